import Judge
import VitalSimCore
import XCTest

/// Pairing expected and observed alerts: optimal, bounded, one check per unexpected alert.
extension FindingTests {
    /// An extra alert at 00:25 and a missing one at 02:05 of the same rule are one spurious and one
    /// missed alert, not one alert "early by 1 h 40"; the missed check names the nearest alert.
    func testAnAlertBeyondThePairingBoundIsSpuriousAndTheExpectationMissed() {
        let verdict = judge(
            golden(alerts: [expected(at: t0 + 125 * minute)]),
            result([observed("x", at: t0 + 25 * minute)])
        )
        XCTAssertEqual(finding(verdict, .alert), [.missed])
        XCTAssertEqual(finding(verdict, .noOtherAlerts), [.spurious])
        let missed = verdict.checks.first { $0.kind == .alert }!.detail
        XCTAssertTrue(missed.contains("nearest unpaired one (alert x"), missed)
        XCTAssertTrue(missed.contains("before the window, beyond the 30m pairing bound"), missed)
        // Within the bound it is early.
        let early = judge(
            golden(alerts: [expected(at: t0 + 40 * minute)]),
            result([observed("x", at: t0 + 25 * minute)])
        )
        XCTAssertEqual(finding(early, .alert), [.early])
        XCTAssertEqual(finding(early, .noOtherAlerts), [nil])
    }

    /// Whatever order the SUT lists its alerts in, each expectation gets the alert that makes the
    /// total distance least (a greedy first-come pairing gave the first window the far alert).
    func testPairingIsOptimalNotGreedy() {
        let goldenFile = golden(alerts: [expected(at: t0), expected(at: t0 + 16 * minute)])
        // Windows [t0 − 1, t0 + 5] and [t0 + 15, t0 + 21]; alerts at t0 + 6 and t0 + 40.
        let verdict = judge(
            goldenFile,
            result([observed("far", at: t0 + 40 * minute), observed("near", at: t0 + 6 * minute)])
        )
        let checks = verdict.checks.filter { $0.kind == .alert }
        XCTAssertEqual(checks.map(\.finding), [.late, .late])
        XCTAssertTrue(checks[0].detail.contains(Verdict.iso(t0 + 6 * minute)), checks[0].detail)
        XCTAssertTrue(checks[1].detail.contains(Verdict.iso(t0 + 40 * minute)), checks[1].detail)
        XCTAssertEqual(finding(verdict, .noOtherAlerts), [nil])
    }

    /// Unexpected alerts are one check per rule and patient (spurious) or per expectation repeated
    /// (duplicate), named without times, each with its own finding and a count.
    func testEachUnexpectedAlertIsACheckWithItsOwnFinding() {
        let goldenFile = golden(alerts: [expected(at: t0)])
        let alerts = [
            observed("a", at: t0), observed("dup", at: t0 + 2 * minute), observed("s1", "hr.tachycardia", at: t0),
            observed("s2", patient: "2", at: t0), observed("s3", at: t0 + 300 * minute),
        ]
        let verdict = judge(goldenFile, result(alerts))
        XCTAssertEqual(finding(verdict, .alert), [nil])
        let extra = verdict.checks.filter { $0.kind == .noOtherAlerts }
        XCTAssertEqual(extra.map(\.finding), [.spurious, .spurious, .duplicate, .spurious])
        XCTAssertEqual(
            extra.map(\.name),
            [
                "unexpected alert hr.tachycardia patient 1", "unexpected alert temp.fever patient 2",
                "duplicate alert temp.fever patient 1", "unexpected alert temp.fever patient 1",
            ]
        )
        XCTAssertEqual(
            extra[2].detail,
            "1 alert(s), repeat(s) of an expected alert already met; first: alert dup at 2024-11-07T10:02:00.000Z"
        )
        XCTAssertFalse(verdict.checks.contains { $0.name.contains(" at 20") }, "no check is named by a time")
    }

    /// The assignment solver itself: the least total cost, every row once.
    func testTheAssignmentPairsWithTheLeastTotalDistance() {
        let windows = [expected(at: t0), expected(at: t0 + 10 * minute), expected(at: t0 + 20 * minute)]
        let alerts = [observed("c", at: t0 + 21 * minute), observed("a", at: t0 + 11 * minute), observed("b", at: t0)]
        XCTAssertEqual(AlertMatching.match(windows, alerts), [2, 1, 0])
        XCTAssertEqual(AlertMatching.match(windows, []), [nil, nil, nil])
        XCTAssertEqual(AlertMatching.match([], alerts), [])
    }
}
