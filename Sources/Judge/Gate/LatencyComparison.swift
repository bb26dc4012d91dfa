import Foundation
import Histogram

/// A measured latency distribution as reports keep it: the HdrHistogram's recorded values (µs, each
/// the highest value of its bucket: three significant digits) with their counts, ascending.
package struct LatencyDistribution: Sendable, Equatable {
    package var bins: [(value: UInt64, count: UInt64)]

    package init(bins: [(value: UInt64, count: UInt64)]) { self.bins = bins.filter { $0.count > 0 } }

    package init(_ histogram: Histogram<UInt64>) {
        self.init(bins: histogram.totalCount == 0 ? [] : histogram.recordedValues().map { ($0.value, $0.count) })
    }

    package static func == (a: LatencyDistribution, b: LatencyDistribution) -> Bool {
        a.bins.map(\.value) == b.bins.map(\.value) && a.bins.map(\.count) == b.bins.map(\.count)
    }

    package var count: UInt64 { bins.reduce(0) { $0 + $1.count } }

    /// Another distribution's samples added.
    package func adding(_ other: LatencyDistribution) -> LatencyDistribution {
        var merged: [UInt64: UInt64] = [:]
        for b in bins + other.bins { merged[b.value, default: 0] += b.count }
        return LatencyDistribution(bins: merged.keys.sorted().map { ($0, merged[$0] ?? 0) })
    }

    /// The value (µs) at a percentile (0…100): the smallest bin holding that share of the samples.
    package func percentile(_ p: Double) -> UInt64 {
        let total = count
        guard total > 0 else { return 0 }
        let rank = UInt64((p / 100 * Double(total)).rounded(.up))
        var seen: UInt64 = 0
        for b in bins {
            seen += b.count
            if seen >= max(rank, 1) { return b.value }
        }
        return bins.last?.value ?? 0
    }

    /// As JSON: `[[µs, count], …]`.
    package var json: JSONPairs { bins.map { [$0.value, $0.count] } }
    package typealias JSONPairs = [[UInt64]]

    /// From `[[µs, count], …]`; nil when the shape is wrong.
    package init?(json: Any) {
        guard let pairs = json as? [[Any]] else { return nil }
        var bins: [(value: UInt64, count: UInt64)] = []
        for pair in pairs {
            guard pair.count == 2, let value = (pair[0] as? NSNumber)?.uint64Value,
                let count = (pair[1] as? NSNumber)?.uint64Value
            else { return nil }
            bins.append((value, count))
        }
        self.init(bins: bins.sorted { $0.value < $1.value })
    }
}

/// Whether a run's latency on one path is slower than a baseline's beyond noise: the one-sided
/// Mann–Whitney U test (ranks with ties, normal approximation with tie and continuity corrections)
/// on the two whole distributions, not a single percentile; the effect as Vargha and Delaney's A
/// (the probability that a new sample is slower than a baseline one, ties counting half); the size
/// as the Hodges–Lehmann shift (the median of all new − baseline differences). A regression needs
/// all three: significant (p < `alpha`), a large effect (A ≥ `minimumEffect`), and a shift
/// worth a user's attention (at least `minimumShift` ms and `minimumRatio` of the baseline's median,
/// beyond the path's resolution: a polled alert's poll cycle, ``LatencyPath/resolution(pollCycles:)``).
package struct LatencyComparison: Sendable, Equatable {
    /// The thresholds of a regression.
    package struct Settings: Sendable, Equatable {
        package var alpha = 0.01
        /// Vargha–Delaney: 0.56 small, 0.64 medium, 0.71 large.
        package var minimumEffect = 0.71
        package var minimumShift = 10.0
        package var minimumRatio = 0.25
        /// Fewer samples on either side cannot tell (the test has no power below it).
        package var minimumSamples: UInt64 = 5

        package init() {}
    }

    package enum Outcome: String, Sendable, Equatable {
        case slower, faster, same
        case tooFewSamples = "too-few-samples"
    }

    package var baseCount: UInt64
    package var newCount: UInt64
    /// Medians and 99th percentiles, ms.
    package var baseMedian: Double, newMedian: Double, baseP99: Double, newP99: Double
    /// Hodges–Lehmann shift, ms (positive: slower).
    package var shift: Double
    /// P(new > base) + ½ P(new = base).
    package var effect: Double
    /// One-sided p-values: new slower, new faster.
    package var pSlower: Double, pFaster: Double
    /// The finest shift the harness could see on the path (ms), added to the thresholds.
    package var resolution: Double
    package var outcome: Outcome

    /// Compares `new` with `base`.
    package static func compare(
        base: LatencyDistribution,
        new: LatencyDistribution,
        settings: Settings = Settings(),
        resolution: Double = 0
    ) -> LatencyComparison {
        let (m, n) = (base.count, new.count)
        func ms(_ us: UInt64) -> Double { Double(us) / 1000 }
        var comparison = LatencyComparison(
            baseCount: m,
            newCount: n,
            baseMedian: ms(base.percentile(50)),
            newMedian: ms(new.percentile(50)),
            baseP99: ms(base.percentile(99)),
            newP99: ms(new.percentile(99)),
            shift: 0,
            effect: 0.5,
            pSlower: 1,
            pFaster: 1,
            resolution: resolution,
            outcome: .tooFewSamples
        )
        guard m >= settings.minimumSamples, n >= settings.minimumSamples else { return comparison }
        let test = mannWhitney(base, new)
        (comparison.effect, comparison.pSlower, comparison.pFaster) = (test.effect, test.pSlower, test.pFaster)
        comparison.shift = hodgesLehmann(base, new) / 1000
        let floor = max(settings.minimumShift, settings.minimumRatio * comparison.baseMedian) + resolution
        if comparison.pSlower < settings.alpha, comparison.effect >= settings.minimumEffect, comparison.shift >= floor {
            comparison.outcome = .slower
        } else if comparison.pFaster < settings.alpha, 1 - comparison.effect >= settings.minimumEffect,
            -comparison.shift >= floor
        {
            comparison.outcome = .faster
        } else {
            comparison.outcome = .same
        }
        return comparison
    }

    /// One line: the outcome, the medians and 99th percentiles, the shift and the test.
    package func summary(baseline: String) -> String {
        var figures = String(
            format: "median %.2f ms (baseline %.2f), p99 %.2f ms (baseline %.2f), Hodges–Lehmann shift %+.2f ms, "
                + "A = %.2f, Mann–Whitney one-sided p = %.2g (%llu vs %llu samples)",
            newMedian,
            baseMedian,
            newP99,
            baseP99,
            shift,
            effect,
            outcome == .faster ? pFaster : pSlower,
            newCount,
            baseCount
        )
        if resolution > 0 { figures += String(format: "; shifts within %.0f ms are the alert polling's", resolution) }
        switch outcome {
        case .slower: return "slower than \(baseline) beyond noise: " + figures
        case .faster: return "faster than \(baseline): " + figures
        case .same: return "not slower than \(baseline) beyond noise: " + figures
        case .tooFewSamples:
            return "not compared: too few samples to tell (\(newCount) here, \(baseCount) in \(baseline))"
        }
    }

    /// The U statistic of `new` against `base` as A = U / (m·n), and the one-sided p-values.
    static func mannWhitney(
        _ base: LatencyDistribution,
        _ new: LatencyDistribution
    ) -> (effect: Double, pSlower: Double, pFaster: Double) {
        let (m, n) = (Double(base.count), Double(new.count))
        let total = m + n
        var baseCounts: [UInt64: Double] = [:]
        var newCounts: [UInt64: Double] = [:]
        for b in base.bins { baseCounts[b.value, default: 0] += Double(b.count) }
        for b in new.bins { newCounts[b.value, default: 0] += Double(b.count) }
        var rankSumNew = 0.0
        var below = 0.0
        var ties = 0.0
        for value in Set(baseCounts.keys).union(newCounts.keys).sorted() {
            let inNew = newCounts[value] ?? 0
            let t = (baseCounts[value] ?? 0) + inNew
            rankSumNew += inNew * (below + (t + 1) / 2)
            ties += t * t * t - t
            below += t
        }
        let u = rankSumNew - n * (n + 1) / 2
        let mean = m * n / 2
        let variance = m * n / 12 * ((total + 1) - ties / (total * (total - 1)))
        guard variance > 0 else { return (u / (m * n), 1, 1) }
        let sd = variance.squareRoot()
        let zSlower = (u - mean - 0.5) / sd
        let zFaster = (mean - u - 0.5) / sd
        return (u / (m * n), 0.5 * erfc(zSlower / 2.squareRoot()), 0.5 * erfc(zFaster / 2.squareRoot()))
    }

    /// The weighted median of the pairwise differences new − base (µs), over the bins (coarsened to
    /// at most 2,000 bins a side, so a large run costs at most four million pairs).
    static func hodgesLehmann(_ base: LatencyDistribution, _ new: LatencyDistribution) -> Double {
        let coarseBase = coarse(base.bins)
        let coarseNew = coarse(new.bins)
        var pairs: [(difference: Double, weight: Double)] = []
        pairs.reserveCapacity(coarseNew.count * coarseBase.count)
        for x in coarseNew {
            for y in coarseBase { pairs.append((x.value - y.value, x.count * y.count)) }
        }
        pairs.sort { $0.difference < $1.difference }
        let half = pairs.reduce(0) { $0 + $1.weight } / 2
        var seen = 0.0
        for p in pairs {
            seen += p.weight
            if seen >= half { return p.difference }
        }
        return 0
    }

    /// Bins merged into at most 2,000 of equal sample counts (each at its weighted mean value).
    static func coarse(_ bins: [(value: UInt64, count: UInt64)]) -> [(value: Double, count: Double)] {
        let limit = 2_000
        guard bins.count > limit else { return bins.map { (Double($0.value), Double($0.count)) } }
        let step = (bins.count + limit - 1) / limit
        return stride(from: 0, to: bins.count, by: step).map { start in
            let slice = bins[start..<min(start + step, bins.count)]
            let count = slice.reduce(0.0) { $0 + Double($1.count) }
            let value = slice.reduce(0.0) { $0 + Double($1.value) * Double($1.count) } / count
            return (value, count)
        }
    }
}
