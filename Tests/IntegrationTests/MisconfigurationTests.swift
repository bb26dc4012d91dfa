import Foundation
import XCTest

/// A misconfigured run — credentials the SUT refuses, an alert source that is broken, an outage
/// that never ends — exits 3 naming the endpoint, the status and the body, never 1 with "missed
/// alert" findings that blame the SUT's clinical behaviour.
final class MisconfigurationTests: XCTestCase {
    var directory = ""
    let scenario = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"
    let golden = TestSupport.repositoryRoot + "/golden"

    override func setUp() { directory = TestSupport.temporaryDirectory("misconfiguration") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func vitalsim(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try TestSupport.vitalsim(args, in: directory, environment: ["CI": "true"])
    }

    /// A SUT that wants device tokens, run without them: every request 401, the run stops early.
    func testASUTRefusingEveryRequestIsAnInfrastructureFailure() throws {
        let sut = try SUTProcess(
            ["--self-signed", "--dev", "--database", directory + "/sut.sqlite", "--scenario", scenario],
            directory: directory
        )
        defer { _ = sut.stop() }
        let reports = ["--junit", directory + "/r.xml", "--json", directory + "/r.json"]
        let r = try vitalsim(["run", scenario, "--golden-dir", golden, "--target", sut.base, "--cacert", sut.caFile ?? ""] + reports)
        XCTAssertEqual(r.status, 3, r.out + r.err)
        XCTAssertTrue(r.err.contains("the SUT accepted none of the"), r.err)
        XCTAssertTrue(r.err.contains("/api/v1/observations → 401: ") && r.err.contains("a device credential is required"), r.err)
        XCTAssertFalse(r.out.contains("missed"), "no clinical finding: \(r.out)")
        // The reports are written all the same: the scenario as an error (JUnit <error>, not
        // <failure>), with the SUT contract showing what the SUT answered.
        XCTAssertTrue(r.out.contains("ERROR hypertensive-crisis: not judged: "), r.out)
        XCTAssertTrue(r.out.contains("ingestion POST /api/v1/observations: 401 ×"), r.out)
        XCTAssertTrue(r.out.contains("first 401: ") && r.out.contains("a device credential is required"), r.out)
        let junit = try String(contentsOfFile: directory + "/r.xml", encoding: .utf8)
        XCTAssertTrue(junit.contains("errors=\"1\"") && junit.contains("<error type=\"infrastructure\""), junit)
        XCTAssertFalse(junit.contains("<failure"), junit)
        let json = try XCTUnwrap(SUTProcess.json(String(contentsOfFile: directory + "/r.json", encoding: .utf8)) as? [String: Any])
        let scenario = try XCTUnwrap((json["scenarios"] as? [[String: Any]])?.first)
        XCTAssertTrue((scenario["error"] as? String ?? "").contains("the SUT accepted none of the"), "\(scenario)")
        let endpoints = try XCTUnwrap((scenario["contract"] as? [String: Any])?["endpoints"] as? [[String: Any]])
        let ingestion = try XCTUnwrap(endpoints.first { $0["name"] as? String == "POST /api/v1/observations" }, "\(endpoints)")
        let refusals = (ingestion["statuses"] as? [String: Int])?["401"] ?? 0
        XCTAssertGreaterThanOrEqual(refusals, 20, "the run stops after 20 refusals in a row: \(ingestion)")
        XCTAssertEqual((ingestion["statuses"] as? [String: Int])?.keys.sorted(), ["401"], "\(ingestion)")
    }

    func testABrokenAlertSourceIsAnInfrastructureFailure() throws {
        let cases = [
            ("alert-api=error", "the alert source never returned an alert list", "answered 500"),
            ("alert-api=garbage", "the alert source never returned an alert list", "a body that is not JSON: <html>maintenance</html>"),
            ("alert-api=unreadable", "alert(s) the harness cannot read", "it has no raisedAt"),
        ]
        for (fault, problem, detail) in cases {
            let r = try vitalsim(["run", scenario, "--golden-dir", golden, "--sut-fault", fault])
            XCTAssertEqual(r.status, 3, "\(fault): \(r.out) \(r.err)")
            XCTAssertTrue(r.err.contains(problem) && r.err.contains(detail), "\(fault): \(r.err)")
            XCTAssertTrue(r.err.contains("/api/v1/alerts"), "\(fault): the endpoint is named: \(r.err)")
            XCTAssertTrue(r.out.contains("alerts    GET /api/v1/alerts: "), "\(fault): the SUT contract lists the alert source: \(r.out)")
            if fault == "alert-api=error" {
                // The alert source's 500s are counted in the contract, the first body shown.
                XCTAssertTrue(r.out.contains("alerts    GET /api/v1/alerts: 500 ×") && r.out.contains("first 500: "), r.out)
            }
        }
    }

    /// A SUT answering 503 to everything stops the run at --outage-limit with exit 3, rather than
    /// retrying each request for the whole limit and ending with lost readings.
    func testAnOutageThatNeverEndsStopsAtTheOutageLimit() throws {
        let r = try vitalsim(["run", scenario, "--golden-dir", golden, "--sut-fault", "unavailable", "--outage-limit", "2"])
        XCTAssertEqual(r.status, 3, r.out + r.err)
        XCTAssertTrue(r.err.contains("the SUT accepted no request and the run stopped"), r.err)
        XCTAssertTrue(r.err.contains("answered 503 for longer than --outage-limit"), r.err)
        XCTAssertTrue(r.err.contains("/api/v1/observations → 503: ") && r.err.contains("service unavailable"), r.err)
    }
}
