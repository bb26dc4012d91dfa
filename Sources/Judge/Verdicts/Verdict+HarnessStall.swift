import Foundation
import Histogram
import RunRecord

extension Verdict {
    /// Why the latency budgets a run failed cannot be put on the SUT, or nil: for a failed budget,
    /// the harness's own timer (its hiccup meter, ``RunObservation/hiccups``) woke late by a quarter
    /// of the budget's limit or more at the budget's percentile. Every latency is measured from the
    /// reading's intended send time, so a stall of the machine running the harness (too many devices
    /// for its cores, other work beside it) lengthens them as much as a slow SUT would; the run is
    /// then not judged (exit 3) rather than failed. A budget that passed stands: the stall could only
    /// have lengthened what was measured.
    package static func harnessStall(
        _ budgets: [GoldenFile.Budget],
        histograms: [LatencyPath: Histogram<UInt64>],
        hiccups: Histogram<UInt64>?,
        allowance: Double = 0
    ) -> String? {
        guard let hiccups, hiccups.totalCount > 0 else { return nil }
        func at(_ h: Histogram<UInt64>, _ p: Double) -> Double { h.milliseconds(at: p) }
        for budget in budgets {
            guard let measured = histograms[budget.path], measured.totalCount > 0 else { continue }
            for (p, limit) in budget.limits where at(measured, p) > limit + allowance && at(hiccups, p) > limit / 4 {
                let name = "\(budget.path.rawValue) \(GoldenFile.percentileName(p)) ≤ \(GoldenFile.ms(limit)) ms"
                func ms(_ v: Double) -> String { String(format: "%.0f", v) }
                let interval = Int(RunObservation.hiccupInterval / .milliseconds(1))
                let longest = ms(at(hiccups, 100))
                return "the harness itself stalled: its own \(interval) ms timer woke up to \(longest) ms late "
                    + "(\(GoldenFile.percentileName(p)) \(ms(at(hiccups, p))) ms over \(hiccups.totalCount) wake-ups), "
                    + "a quarter or more of the limit of the budget \(name) that failed (\(ms(at(measured, p))) ms): "
                    + "the machine running the harness was overloaded, so the latency budgets are not judged. "
                    + "Run fewer devices per process (--shard across machines), or with nothing else running beside it"
            }
        }
        return nil
    }
}
