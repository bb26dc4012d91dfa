import Judge
import LiveHarness
import RunRecord
import XCTest

/// What the end of a run waits for: the expectations no listed alert pairs with yet (as the judge
/// pairs them), bounded by the golden file's reading → alert budget plus the grace period.
final class AlertWaitTests: XCTestCase {
    static let golden = """
        scenario: "s"
        seed: 1
        trafficDigest: "sha256:00"
        tolerance: {early: 60s, late: 300s}
        alerts:
          - {patient: "1", rule: "hr.tachycardia", severity: medium, from: "2024-11-07T10:00:00.000Z", to: "2024-11-07T10:06:00.000Z"}
          - {patient: "1", rule: "hr.tachycardia", severity: medium, from: "2024-11-07T12:00:00.000Z", to: "2024-11-07T12:06:00.000Z"}
          - {patient: "2", rule: "spo2.low", severity: high, from: "2024-11-07T10:00:00.000Z", to: "2024-11-07T10:06:00.000Z"}
        validation: []
        budgets:
          reading-to-ack: {p99: 1000ms, max: 5000ms}
          reading-to-alert: {p99: 1500ms, max: 4000ms}
        """

    /// 2024-11-07T10:03:00Z in Unix ms.
    static let tenOhThree: Int64 = 1_730_973_780_000

    func alert(_ id: String, patient: String, rule: String, at t: Int64) -> ObservedAlert {
        ObservedAlert(alertID: id, patientID: patient, rule: rule, severity: "medium", raisedAt: t, evidence: [])
    }

    func testTheBoundIsTheLargestReadingToAlertLimitPlusTheGrace() throws {
        let wait = AlertWait(golden: try GoldenFile.parse(Self.golden, file: "g"), grace: .seconds(30))
        XCTAssertEqual(wait.budget, .milliseconds(4000))
        XCTAssertEqual(wait.bound, .seconds(34))
        XCTAssertEqual(wait.boundReason, "reading → alert budget 4 s + alert wait 30 s")
        var noBudget = try GoldenFile.parse(Self.golden, file: "g")
        noBudget.budgets = []
        XCTAssertEqual(AlertWait(golden: noBudget, grace: .milliseconds(2500)).boundReason, "alert wait 2.5 s")
    }

    func testPendingAreTheExpectationsNoAlertPairsWith() throws {
        let wait = AlertWait(golden: try GoldenFile.parse(Self.golden, file: "g"), grace: .zero)
        XCTAssertEqual(wait.pending([]).count, 3)
        XCTAssertEqual(AlertWait.describe(wait.pending([])), "2 × hr.tachycardia for patient 1, spo2.low for patient 2")
        // One tachycardia alert in the first window: the second window and the SpO2 one still wait.
        let first = alert("a", patient: "1", rule: "hr.tachycardia", at: Self.tenOhThree)
        XCTAssertEqual(
            AlertWait.describe(wait.pending([first])),
            "hr.tachycardia for patient 1, spo2.low for patient 2"
        )
        // An alert of another patient or rule, or beyond the pairing bound, satisfies nothing.
        let elsewhere = [
            alert("b", patient: "2", rule: "hr.tachycardia", at: Self.tenOhThree),
            alert("c", patient: "1", rule: "spo2.low", at: Self.tenOhThree),
            alert("d", patient: "2", rule: "spo2.low", at: Self.tenOhThree + 3 * 3_600_000),
        ]
        XCTAssertEqual(wait.pending([first] + elsewhere).count, 2)
        let all = [
            first, alert("e", patient: "1", rule: "hr.tachycardia", at: Self.tenOhThree + 7_200_000),
            alert("f", patient: "2", rule: "spo2.low", at: Self.tenOhThree),
        ]
        XCTAssertEqual(wait.pending(all), [])
    }
}
