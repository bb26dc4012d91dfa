import Histogram
import Judge
import RunRecord
import XCTest

/// Verdict rules that need no live run: budgets on a path nobody measured, push-channel checks.
final class VerdictTests: XCTestCase {
    func golden(_ budgets: String) throws -> GoldenFile {
        try GoldenFile.parse(
            """
            scenario: "s"
            seed: 1
            trafficDigest: "sha256:x"
            tolerance: {early: 60s, late: 300s}
            alerts:
              - {patient: "1", rule: "temp.fever", severity: medium, from: "2024-11-07T10:00:00.000Z", to: "2024-11-07T10:10:00.000Z"}
            validation: []
            budgets:
            \(budgets)
            """,
            file: "s.golden.yaml"
        )
    }

    func result(push: [PushDelivery] = []) -> RunObservation {
        var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
        histogram.record(1000)
        let alert = ObservedAlert(
            alertID: "a1",
            patientID: "1",
            rule: "temp.fever",
            severity: "medium",
            raisedAt: 1_730_973_900_000,
            evidence: ["r1"]
        )
        return RunObservation(
            traffic: TrafficObservation(
                outcomes: [],
                ackLatency: histogram,
                schedulingLag: histogram,
                unreachable: false
            ),
            alerts: AlertObservation(observed: [alert], latency: histogram, push: push)
        )
    }

    func testABudgetOnAnUnobservedChannelFails() throws {
        let goldenFile = try golden("  reading-to-alert-sse: {p99: 500ms}")
        let verdict = Verdict(scenario: "s", golden: goldenFile, plan: [], digest: "sha256:x", result: result())
        let budget = try XCTUnwrap(verdict.checks.first { $0.kind == .budget })
        XCTAssertEqual(budget.finding, .budgetExceeded)
        XCTAssertTrue(budget.detail.contains("observe the sse push channel"), budget.detail)
        XCTAssertThrowsError(try golden("  reading-to-alert-sms: {p99: 500ms}"), "unknown budget paths are refused")
    }

    func testPushChannelMustDeliverExactlyTheListedAlerts() throws {
        let goldenFile = try golden("  reading-to-ack: {p99: 1000ms}")
        var none = PushDelivery(kind: .sse)
        var verdict = Verdict(
            scenario: "s",
            golden: goldenFile,
            plan: [],
            digest: "sha256:x",
            result: result(push: [none])
        )
        XCTAssertEqual(verdict.checks.first { $0.name == "alerts delivered via sse" }?.finding, .missed)
        none.delivered = ["a1", "zz"]
        verdict = Verdict(scenario: "s", golden: goldenFile, plan: [], digest: "sha256:x", result: result(push: [none]))
        XCTAssertEqual(verdict.checks.first { $0.name == "alerts delivered via sse" }?.finding, .spurious)
        none.delivered = ["a1"]
        none.repeats = 2
        verdict = Verdict(scenario: "s", golden: goldenFile, plan: [], digest: "sha256:x", result: result(push: [none]))
        let ok = try XCTUnwrap(verdict.checks.first { $0.name == "alerts delivered via sse" })
        XCTAssertNil(ok.finding, "MQTT/SSE deliver at least once: repeats are reported, not failed")
        XCTAssertTrue(ok.detail.contains("2 repeated"), ok.detail)
    }
}
