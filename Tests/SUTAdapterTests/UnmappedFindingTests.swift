import Histogram
import Judge
import RunRecord
import VitalSimCore
import XCTest

/// An alert whose names the profile cannot map is its own finding, never paired and never spurious.
final class UnmappedFindingTests: XCTestCase {
    func testUnmappedAlertIsItsOwnFindingAndHintsTheMissedExpectation() {
        let start: Int64 = 1_730_973_600_000
        let expected = GoldenFile.ExpectedAlert(
            patientID: "507",
            rule: "bp.hypertensive-crisis",
            severity: .high,
            from: start - 60_000,
            to: start + 300_000
        )
        let golden = GoldenFile(
            scenario: "s",
            seed: 1,
            trafficDigest: "sha256:x",
            earlyTolerance: GoldenFile.defaultEarly,
            lateTolerance: GoldenFile.defaultLate,
            alerts: [expected],
            validation: [],
            budgets: []
        )
        var raw = ObservedAlert(
            alertID: "17",
            patientID: "507",
            rule: "HIGH_BP",
            severity: "high",
            raisedAt: start,
            evidence: []
        )
        raw.unmapped = "rule 'HIGH_BP'"
        let result = RunObservation(
            traffic: TrafficObservation(
                outcomes: [],
                ackLatency: .latency(),
                schedulingLag: .latency(),
                unreachable: false
            ),
            alerts: AlertObservation(observed: [raw], latency: .latency())
        )
        let verdict = Verdict(scenario: "s", golden: golden, plan: [], digest: "sha256:x", result: result)
        let unmapped = verdict.checks.filter { $0.finding == .unmapped }
        XCTAssertEqual(unmapped.count, 1)
        XCTAssertEqual(unmapped.first?.name, "SUT alert 'HIGH_BP' patient 507")
        XCTAssertTrue(unmapped.first?.detail.contains("no mapping for its rule 'HIGH_BP'") ?? false)
        XCTAssertTrue(verdict.checks.allSatisfy { $0.finding != .spurious }, "an unmapped alert is never spurious")
        let missed = verdict.checks.first { $0.finding == .missed }
        XCTAssertTrue(
            missed?.detail.contains("under name(s) the profile does not map ('HIGH_BP', first: alert 17)") ?? false,
            missed?.detail ?? ""
        )
        // Mapped, the same alert meets the expectation.
        raw.unmapped = nil
        raw.rule = "bp.hypertensive-crisis"
        var mapped = result
        mapped.alerts.observed = [raw]
        XCTAssertTrue(Verdict(scenario: "s", golden: golden, plan: [], digest: "sha256:x", result: mapped).passed)
    }
}
