import VitalSimCore

/// Time- and frequency-domain heart-rate-variability measures of an RR series (Task Force 1996 definitions).
package struct HRVMetrics: Sendable, Equatable {
    /// Mean RR, ms.
    package var meanNN: Double
    /// Standard deviation of RR, ms.
    package var sdnn: Double
    /// Root mean square of successive differences, ms.
    package var rmssd: Double
    /// Share of successive differences above 50 ms, percent.
    package var pnn50: Double
    /// LF (0.04–0.15 Hz) over HF (0.15–0.4 Hz) power by Welch's method (``WelchSpectrum``).
    package var lfHf: Double
    /// Largest |autocorrelation| of the RR series at lags 1–10 (near 0 for AF, high for sinus rhythm).
    package var maxAutocorrelation: Double
    package var beats: Int

    /// Metrics of `rr` (seconds); nil with fewer than 20 intervals.
    package static func compute(_ rr: [Double]) -> HRVMetrics? {
        guard rr.count >= 20 else { return nil }
        let ms = rr.map { $0 * 1000 }
        let mean = ms.reduce(0, +) / Double(ms.count)
        let sd = (ms.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(ms.count - 1)).squareRoot()
        var sq = 0.0
        var over = 0
        for i in 1..<ms.count {
            let d = ms[i] - ms[i - 1]
            sq += d * d
            if abs(d) > 50 { over += 1 }
        }
        let n = Double(ms.count - 1)
        var maxAC = 0.0
        let variance = sd * sd
        for lag in 1...10 where lag < ms.count {
            var s = 0.0
            for i in lag..<ms.count { s += (ms[i] - mean) * (ms[i - lag] - mean) }
            maxAC = max(maxAC, abs(s / Double(ms.count - lag) / variance))
        }
        return HRVMetrics(
            meanNN: mean,
            sdnn: sd,
            rmssd: (sq / n).squareRoot(),
            pnn50: 100 * Double(over) / n,
            lfHf: spectralRatio(rr),
            maxAutocorrelation: maxAC,
            beats: rr.count
        )
    }

    /// LF/HF by Welch's method as hrv-analysis computes it by default (``WelchSpectrum``).
    static func spectralRatio(_ rr: [Double]) -> Double {
        let bands = WelchSpectrum.bandPowers(rr.map { $0 * 1000 })
        return bands.hf > 0 ? bands.lf / bands.hf : .infinity
    }
}
