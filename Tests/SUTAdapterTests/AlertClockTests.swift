import Judge
import RunRecord
import SUTAdapter
import XCTest

/// Alerts on the SUT's own clock (`alerts.clock: server`) placed on the scenario's device time, and
/// alert times on another clock than the profile says named as a misconfiguration.
final class AlertClockTests: XCTestCase {
    func testAServerTimeMapsToTheLastRequestSentBeforeIt() {
        let marks = [
            AlertClock.Mark(wall: 1_000, time: 60_000), AlertClock.Mark(wall: 2_000, time: 120_000),
            AlertClock.Mark(wall: 3_000, time: 180_000),
        ]
        XCTAssertEqual(AlertClock.deviceTime(at: 2_500, marks: marks), 120_000)
        XCTAssertEqual(
            AlertClock.deviceTime(at: 2_000, marks: marks),
            120_000,
            "raised while the request was being answered"
        )
        XCTAssertEqual(AlertClock.deviceTime(at: 9_999, marks: marks), 180_000)
        XCTAssertEqual(AlertClock.deviceTime(at: 10, marks: marks), 60_000, "before every request: the first")
        XCTAssertNil(AlertClock.deviceTime(at: 10, marks: []))
    }

    func testAlertsStampedFarOutsideTheScenarioAreAClockMisconfiguration() {
        let start: Int64 = 1_730_937_600_000  // 2024-11-07
        let span: Int64 = 6 * 3_600_000
        func alert(_ t: Int64) -> ObservedAlert {
            ObservedAlert(
                alertID: "a\(t)",
                patientID: "507",
                rule: "bp.hypertensive-crisis",
                severity: "high",
                raisedAt: t,
                evidence: []
            )
        }
        let now: Int64 = 1_795_500_000_000  // 2026-11
        let problem = AlertClock.problem([alert(now), alert(now + 5)], start: start, span: span, clock: .device)
        XCTAssertTrue(problem?.contains("needs alerts.clock: server") ?? false, problem ?? "nil")
        XCTAssertTrue(problem?.contains("2024-11-07T00:00:00") ?? false, problem ?? "nil")
        XCTAssertNil(
            AlertClock.problem([alert(now), alert(start + 60_000)], start: start, span: span, clock: .device),
            "one in the scenario"
        )
        XCTAssertNil(
            AlertClock.problem([alert(start + span + 3_600_000)], start: start, span: span, clock: .device),
            "within a day"
        )
        XCTAssertNil(AlertClock.problem([alert(now)], start: start, span: span, clock: .server))
        XCTAssertNil(AlertClock.problem([], start: start, span: span, clock: .device))
    }
}
