import Foundation
import Histogram
import XCTest

@testable import Judge

/// `vitalsim compare` and `run --baseline`'s latency test: the Mann–Whitney U test and the
/// Hodges–Lehmann shift on whole distributions (figures checked against scipy.stats.mannwhitneyu and
/// numpy), the thresholds of a regression, and the gate's check.
final class LatencyComparisonTests: XCTestCase {
    /// Values in ms as a distribution in µs, one sample each.
    func distribution(_ ms: [Int]) -> LatencyDistribution {
        var counts: [UInt64: UInt64] = [:]
        for v in ms { counts[UInt64(v * 1000), default: 0] += 1 }
        return LatencyDistribution(bins: counts.keys.sorted().map { ($0, counts[$0] ?? 0) })
    }

    let base = [10, 12, 12, 15, 20, 20, 20, 25, 30, 31]
    let new = [14, 18, 20, 22, 25, 25, 33, 40, 41, 45, 50]

    func testTheTestAgreesWithScipyAndTheShiftWithNumpy() {
        // scipy.stats.mannwhitneyu(new, base, alternative='greater', method='asymptotic',
        // use_continuity=True): U 84.5, p 0.020078169; 'less': p 0.983118903. numpy: the median of
        // the pairwise differences new − base is 10.
        var settings = LatencyComparison.Settings()
        settings.minimumSamples = 1
        let comparison = LatencyComparison.compare(base: distribution(base), new: distribution(new), settings: settings)
        XCTAssertEqual(comparison.effect, 84.5 / 110, accuracy: 1e-12)
        XCTAssertEqual(comparison.pSlower, 0.020078169091176816, accuracy: 1e-9)
        XCTAssertEqual(comparison.pFaster, 0.9831189034914587, accuracy: 1e-9)
        XCTAssertEqual(comparison.shift, 10, accuracy: 1e-9)
        XCTAssertEqual(comparison.baseMedian, 20)
        XCTAssertEqual(comparison.newMedian, 25)
        // p 0.02 is not below the default 0.01: not slower, although the medians differ by 5 ms.
        XCTAssertEqual(comparison.outcome, .same)
        settings.alpha = 0.05
        XCTAssertEqual(
            LatencyComparison.compare(base: distribution(base), new: distribution(new), settings: settings).outcome,
            .slower
        )
    }

    func testTwoHundredMillisecondsLaterIsSlowerAndTheSameRunIsNot() {
        let alerts = [21, 23, 19, 40, 22, 35, 18, 25]
        let same = LatencyComparison.compare(base: distribution(alerts), new: distribution(alerts.reversed()))
        XCTAssertEqual(same.outcome, .same)
        XCTAssertEqual(same.effect, 0.5, accuracy: 1e-12)
        XCTAssertEqual(same.shift, 0)
        let delayed = LatencyComparison.compare(base: distribution(alerts), new: distribution(alerts.map { $0 + 200 }))
        XCTAssertEqual(delayed.outcome, .slower, delayed.summary(baseline: "b"))
        XCTAssertEqual(delayed.shift, 200, accuracy: 1e-9)
        XCTAssertEqual(delayed.effect, 1)
        XCTAssertTrue(delayed.summary(baseline: "b.json").hasPrefix("slower than b.json beyond noise: median "))
        let faster = LatencyComparison.compare(base: distribution(alerts.map { $0 + 200 }), new: distribution(alerts))
        XCTAssertEqual(faster.outcome, .faster)
        // A shift below the floor (10 ms, and a quarter of the baseline's median) is noise however certain.
        let base = Array(repeating: 100, count: 500) + Array(repeating: 101, count: 500)
        let slightly = LatencyComparison.compare(base: distribution(base), new: distribution(base.map { $0 + 3 }))
        XCTAssertLessThan(slightly.pSlower, 1e-10)
        XCTAssertEqual(slightly.outcome, .same)
        // Too few samples to tell.
        let few = LatencyComparison.compare(base: distribution([1, 2]), new: distribution([300, 400]))
        XCTAssertEqual(few.outcome, .tooFewSamples)
    }

    func testADistributionKeepsTheHistogramsRecordedValues() throws {
        var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
        for v: UInt64 in [1_000, 1_000, 2_500, 250_000] { histogram.record(v) }
        let distribution = LatencyDistribution(histogram)
        XCTAssertEqual(distribution.count, 4)
        XCTAssertEqual(distribution.bins.map(\.count), [2, 1, 1])
        XCTAssertEqual(distribution.percentile(50), 1_000)
        XCTAssertEqual(distribution.percentile(100), distribution.bins.last?.value)
        let json = try JSONSerialization.jsonObject(with: JSONSerialization.data(withJSONObject: distribution.json))
        XCTAssertEqual(LatencyDistribution(json: json), distribution)
        XCTAssertNil(LatencyDistribution(json: [[1, 2, 3]]))
        XCTAssertEqual(distribution.adding(distribution).count, 8)
    }

    /// A JSON verdict keeps each scenario's histograms; `--baseline` reads them and the gate adds a
    /// check per path, failing a slower one at the level of the scenario's budgets.
    func testTheGateComparesEachPathWithTheBaselinesHistogram() throws {
        func verdict(alertsMs: [Int]) -> Verdict {
            var judged = Verdict(scenario: "s", checks: [])
            var budget = Check(
                kind: .budget,
                name: "budget reading-to-alert p99 ≤ 1000 ms",
                rule: nil,
                finding: nil,
                detail: ""
            )
            budget.level = .should
            judged.checks = [budget]
            var histogram = Histogram<UInt64>(
                highestTrackableValue: 3_600_000_000,
                numberOfSignificantValueDigits: .three
            )
            for ms in alertsMs { histogram.record(UInt64(ms * 1000)) }
            judged.merging.histograms[.readingToAlert] = histogram
            return judged
        }
        let alerts = [21, 23, 19, 40, 22, 35, 18, 25]
        let json = RunReport([verdict(alertsMs: alerts)]).json
        let baseline = try Baseline.parse(Data(json.utf8), file: "base.json")
        XCTAssertEqual(baseline.latency["s"]?[.readingToAlert]?.count, 8)
        var gate = GatePolicy(today: "2026-11-28")
        gate.baseline = baseline
        let same = gate.apply([verdict(alertsMs: alerts)]).verdicts[0]
        let check = try XCTUnwrap(same.checks.last)
        XCTAssertEqual(check.name, "budget reading-to-alert no slower than the baseline")
        XCTAssertNil(check.finding)
        XCTAssertEqual(check.requirements, ["alerts.latency"])
        let slow = gate.apply([verdict(alertsMs: alerts.map { $0 + 200 })]).verdicts[0]
        XCTAssertEqual(slow.checks.last?.finding, .latencyRegression)
        XCTAssertEqual(slow.checks.last?.level, .should)
        XCTAssertEqual(slow.checks.last?.excuse, .warning)
        gate.strict = true
        XCTAssertFalse(gate.apply([verdict(alertsMs: alerts.map { $0 + 200 })]).verdicts[0].passed)
        // A malformed histogram names the file and the scenario.
        let bad = #"{"scenarios":[{"scenario":"s","checks":[],"latencyHistograms":{"reading-to-alert":[[1]]}}]}"#
        XCTAssertThrowsError(try Baseline.parse(Data(bad.utf8), file: "bad.json")) { error in
            XCTAssertTrue("\(error)".hasPrefix("bad.json: scenario s: latencyHistograms.reading-to-alert"), "\(error)")
        }
    }

    /// A run whose alert list was slow to read polled it less often: its verdict records the longest
    /// poll cycle, and a comparison with it does not call a shift within that cycle slower — the
    /// polling, not the SUT, may account for it. A run that did not record one polled every 50 ms.
    func testAStretchedPollCycleWidensTheResolutionOfReadingToAlert() throws {
        func verdict(alertsMs: [Int], pollCycle: Double?) -> Verdict {
            var judged = Verdict(scenario: "s", checks: [])
            var histogram = Histogram<UInt64>(
                highestTrackableValue: 3_600_000_000,
                numberOfSignificantValueDigits: .three
            )
            for ms in alertsMs { histogram.record(UInt64(ms * 1000)) }
            judged.merging.histograms[.readingToAlert] = histogram
            judged.merging.alertPollCycle = pollCycle
            return judged
        }
        let alerts = [121, 123, 119, 140, 122, 135, 118, 125]
        let later = alerts.map { $0 + 200 }
        func gate(baselineCycle: Double?) throws -> GatePolicy {
            let json = RunReport([verdict(alertsMs: alerts, pollCycle: baselineCycle)]).json
            var gate = GatePolicy(today: "2026-11-29")
            gate.baseline = try Baseline.parse(Data(json.utf8), file: "base.json")
            return gate
        }
        XCTAssertEqual(try gate(baselineCycle: 400).baseline?.pollCycles, ["s": 400])
        XCTAssertEqual(try gate(baselineCycle: nil).baseline?.pollCycles, [:])
        func finding(_ gate: GatePolicy, _ v: Verdict) -> Finding? { gate.apply([v]).verdicts[0].checks.last?.finding }
        // 200 ms later, both runs polling every 50 ms: slower.
        let unstretched = finding(try gate(baselineCycle: nil), verdict(alertsMs: later, pollCycle: 50))
        XCTAssertEqual(unstretched, .latencyRegression)
        // Either run's cycle of 400 ms: within what the polling can account for.
        XCTAssertNil(finding(try gate(baselineCycle: 400), verdict(alertsMs: later, pollCycle: 50)))
        XCTAssertNil(finding(try gate(baselineCycle: nil), verdict(alertsMs: later, pollCycle: 400)))
        let detail = try gate(baselineCycle: 400).apply([verdict(alertsMs: later, pollCycle: 50)]).verdicts[0]
        XCTAssertTrue(
            detail.checks.last?.detail.hasSuffix("shifts within 400 ms are the alert polling's") == true,
            detail.checks.last?.detail ?? ""
        )
        // The other paths are not polled; their resolution stays zero.
        XCTAssertEqual(LatencyPath.readingToAck.resolution(pollCycles: 400), 0)
        XCTAssertEqual(LatencyPath.readingToAlert.resolution(pollCycles: nil, nil), 50)
        // A cycle that is not a number names the file and the scenario.
        let bad = #"{"scenarios":[{"scenario":"s","checks":[],"alertPollCycleMs":"slow"}]}"#
        XCTAssertThrowsError(try Baseline.parse(Data(bad.utf8), file: "bad.json")) { error in
            XCTAssertTrue("\(error)".hasPrefix("bad.json: scenario s: alertPollCycleMs"), "\(error)")
        }
        // Shards merged: the longest of their cycles.
        let a = verdict(alertsMs: alerts, pollCycle: 60)
        let fast = verdict(alertsMs: alerts, pollCycle: 320)
        XCTAssertEqual(Verdict.mergedInputs([a, fast, verdict(alertsMs: alerts, pollCycle: nil)]).alertPollCycle, 320)
    }
}
