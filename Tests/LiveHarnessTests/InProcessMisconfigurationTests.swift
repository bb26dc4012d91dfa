import Foundation
import InProcessSUT
import Judge
import LiveHarness
import Testing

/// A misconfigured run — credentials the SUT refuses, an alert source that is broken, an outage
/// that never ends — is not judged: its verdict is an error naming the endpoint, the status and
/// the body (exit 3 and a JUnit `<error>`), never clinical findings that blame the SUT.
struct InProcessMisconfigurationTests {
    let scenario = InProcessRun.path("core", "hypertensive-crisis")

    /// The SUT contract's endpoint named `name`.
    func endpoint(_ verdict: Verdict, _ name: String) -> SUTContract.Endpoint? {
        verdict.contract?.endpoints.first { $0.name == name }
    }

    /// A SUT that wants device tokens, run without them: every request 401, the run stops early.
    @Test func aSUTRefusingEveryRequestIsNotJudged() async throws {
        let verdict = try await InProcessRun.verdict(scenario, sut: { $0.requireCredentials() })
        let error = try #require(verdict.error)
        #expect(error.contains("the SUT accepted none of the"), "\(error)")
        #expect(
            error.contains("/api/v1/observations → 401: ") && error.contains("a device credential is required"),
            "\(error)"
        )
        #expect(InProcessRun.failures(verdict).isEmpty, "no clinical finding")
        let ingestion = try #require(endpoint(verdict, "POST /api/v1/observations"), "\(verdict.contract as Any)")
        #expect(Array(ingestion.statuses.keys) == [401])
        #expect((ingestion.statuses[401] ?? 0) >= 20, "the run stops after 20 refusals in a row: \(ingestion.statuses)")
        #expect(ingestion.firstBodies[401]?.contains("a device credential is required") == true)
        // The reports still show the scenario, as an error (JUnit <error>, not <failure>).
        let junit = RunReport.junit([verdict])
        #expect(junit.contains("errors=\"1\"") && junit.contains("<error type=\"infrastructure\""), "\(junit)")
        #expect(!junit.contains("<failure"))
    }

    @Test(arguments: [
        ("alert-api=error", "the alert source never returned an alert list", "answered 500"),
        (
            "alert-api=garbage", "the alert source never returned an alert list",
            "a body that is not JSON: <html>maintenance</html>"
        ),
        ("alert-api=unreadable", "alert(s) the harness cannot read", "it has no raisedAt"),
    ])
    func aBrokenAlertSourceIsNotJudged(fault: String, problem: String, detail: String) async throws {
        let verdict = try await InProcessRun.verdict(scenario, faults: [fault])
        let error = try #require(verdict.error)
        #expect(error.contains(problem) && error.contains(detail), "\(error)")
        #expect(error.contains("/api/v1/alerts"), "the endpoint is named: \(error)")
        let alerts = try #require(endpoint(verdict, "GET /api/v1/alerts"), "\(verdict.contract as Any)")
        if fault == "alert-api=error" {
            #expect((alerts.statuses[500] ?? 0) > 0 && alerts.firstBodies[500] != nil, "\(alerts)")
        }
    }

    /// A SUT answering 503 to everything stops the run at the outage limit, rather than retrying
    /// each request for the whole limit and ending with lost readings.
    @Test func anOutageThatNeverEndsStopsAtTheOutageLimit() async throws {
        let started = ContinuousClock.now
        let verdict = try await InProcessRun.verdict(
            scenario,
            faults: ["unavailable"],
            options: { $0.pacing.outageLimit = .seconds(1) }
        )
        let error = try #require(verdict.error)
        #expect(error.contains("the SUT accepted no request and the run stopped"), "\(error)")
        #expect(error.contains("/api/v1/observations → 503: ") && error.contains("service unavailable"), "\(error)")
        // Six attempts while the SUT has never answered (0.25 + 0.5 + 1 + 2 + 4 s of backoff at most).
        #expect(ContinuousClock.now - started < .seconds(20))
    }
}
