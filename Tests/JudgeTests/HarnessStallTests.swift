import Foundation
import Histogram
import RunRecord
import XCTest

@testable import Judge

/// A failed latency budget is the machine's, not the SUT's, when the harness's own timer stalled by
/// a quarter of the budget's limit or more: the scenario is then not judged (exit 3), never failed.
final class HarnessStallTests: XCTestCase {
    let budgets = [GoldenFile.Budget(path: .readingToAck, limits: [(99, 1000), (100, 5000)])]

    /// A run whose acknowledgements took `ackMs` and whose hiccup meter woke `hiccupMs` late (one
    /// wake-up each).
    func result(ackMs: [UInt64], hiccupMs: [UInt64]) -> RunObservation {
        var observation = JudgeFixtures.result([])
        observation.traffic.ackLatency = JudgeFixtures.histogram(ackMs.map { $0 * 1000 })
        observation.hiccups = JudgeFixtures.histogram(hiccupMs.map { $0 * 1000 })
        return observation
    }

    func judge(_ r: RunObservation) -> Verdict {
        var goldenFile = JudgeFixtures.golden()
        goldenFile.budgets = budgets
        return Verdict(scenario: "s", golden: goldenFile, plan: [], digest: "sha256:x", result: r)
    }

    func testAFailedBudgetBesideAStalledHarnessIsNotJudged() throws {
        // p99 of 3 s acknowledgements against 1 s, while the harness's timer woke 400 ms late at p99.
        let stalled = judge(result(ackMs: Array(repeating: 3000, count: 10), hiccupMs: [400, 400, 400]))
        let error = try XCTUnwrap(stalled.error)
        XCTAssertTrue(error.hasPrefix("the harness itself stalled: its own 10 ms timer woke up to 400 ms late"), error)
        XCTAssertTrue(error.contains("the budget reading-to-ack p99 ≤ 1000 ms that failed (3000 ms)"), error)
        XCTAssertTrue(stalled.checks.isEmpty, "not judged: no check stands")
        XCTAssertFalse(stalled.passed)
    }

    func testAFailedBudgetWithAQuietHarnessIsTheSUTs() {
        let verdict = judge(result(ackMs: Array(repeating: 3000, count: 10), hiccupMs: [20, 30, 240]))
        XCTAssertNil(verdict.error, "240 ms of stall is under a quarter of 1000 ms")
        XCTAssertEqual(
            verdict.checks.filter { $0.kind == .budget }.map(\.finding),
            [.budgetExceeded, nil],
            "p99 over 1 s fails, max within 5 s passes"
        )
    }

    func testABudgetThatPassedStandsWhateverTheStall() {
        let verdict = judge(result(ackMs: [300, 400], hiccupMs: [4000]))
        XCTAssertNil(verdict.error)
        XCTAssertTrue(verdict.passed)
    }

    func testTheMaxBudgetIsWeighedAgainstTheLongestStall() {
        // The p99 budget passes; the max budget (5 s) fails at 9 s while one stall reached 2 s.
        let verdict = judge(result(ackMs: Array(repeating: 100, count: 200) + [9000], hiccupMs: [2000]))
        let error = verdict.error ?? ""
        XCTAssertTrue(error.contains("the budget reading-to-ack max ≤ 5000 ms that failed (9003 ms)"), error)
    }

    /// The JSON verdict shows the meter whether or not it excused anything, and null without one.
    func testTheJSONVerdictShowsHowLateTheHarnessWoke() throws {
        func timer(_ v: Verdict) throws -> Any? {
            let top = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(RunReport([v]).json.utf8)) as? [String: Any]
            )
            let scenario = try XCTUnwrap((top["scenarios"] as? [[String: Any]])?.first)
            return scenario["harnessTimerLateMs"]
        }
        let passed = judge(result(ackMs: [300, 400], hiccupMs: [1, 2, 3, 40]))
        let shown = try XCTUnwrap(try timer(passed) as? [String: Any])
        XCTAssertEqual(shown["count"] as? Int, 4)
        XCTAssertEqual(try XCTUnwrap(shown["max"] as? Double), 40, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(shown["p50"] as? Double), 2, accuracy: 0.01)
        XCTAssertTrue(try timer(Verdict(scenario: "s", checks: [])) is NSNull)
    }

    /// Shards' meters add up in a merge, and the merged budgets are weighed against the sum.
    func testAMergeWeighsTheMergedBudgetsAgainstEveryShardsStalls() {
        var first = Verdict(scenario: "s", checks: [])
        first.merging.hiccups = JudgeFixtures.histogram([1_000, 2_000])
        var second = Verdict(scenario: "s", checks: [])
        second.merging.hiccups = JudgeFixtures.histogram([600_000])
        let third = Verdict(scenario: "s", checks: [])
        let merged = Verdict.mergedInputs([first, second, third])
        XCTAssertEqual(merged.hiccups?.totalCount, 3)
        XCTAssertEqual(merged.hiccups?.max ?? 0, 600_000, accuracy: 600)
        var ack = Histogram<UInt64>.latency()
        for _ in 0..<100 { ack.record(2_000_000) }
        let failed: [LatencyPath: Histogram<UInt64>] = [.readingToAck: ack]
        XCTAssertNotNil(Verdict.harnessStall(budgets, histograms: failed, hiccups: merged.hiccups))
        XCTAssertNil(Verdict.harnessStall(budgets, histograms: failed, hiccups: first.merging.hiccups))
        XCTAssertNil(Verdict.harnessStall(budgets, histograms: failed, hiccups: nil), "no meter, no excuse")
    }
}
