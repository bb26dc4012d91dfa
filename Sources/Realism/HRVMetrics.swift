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
    /// LF (0.04–0.15 Hz) over HF (0.15–0.4 Hz) power of the 4 Hz-resampled tachogram.
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

    /// LF/HF from a 4 Hz linear resampling of the tachogram and a direct periodogram.
    static func spectralRatio(_ rr: [Double]) -> Double {
        var times: [Double] = []
        var values: [Double] = []
        var t = 0.0
        for r in rr {
            t += r
            times.append(t)
            values.append(r)
        }
        let fs = 4.0
        var samples: [Double] = []
        var j = 0
        var x = times[0]
        while x <= times[times.count - 1] {
            while j + 1 < times.count, times[j + 1] < x { j += 1 }
            let k = min(j + 1, times.count - 1)
            let span = times[k] - times[j]
            let f = span > 0 ? (x - times[j]) / span : 0
            samples.append(values[j] + (values[k] - values[j]) * f)
            x += 1 / fs
        }
        let m = samples.reduce(0, +) / Double(samples.count)
        // Hann window against leakage from the slow trend.
        let n = samples.count
        let w = (0..<n).map { 0.5 - 0.5 * Math.cos(2 * Double.pi * Double($0) / Double(max(n - 1, 1))) }
        let s = (0..<n).map { (samples[$0] - m) * w[$0] }
        let df = fs / Double(n)
        var lf = 0.0
        var hf = 0.0
        var bin = max(1, Int((0.04 / df).rounded(.up)))
        while Double(bin) * df < 0.4 {
            let f = Double(bin) * df
            var re = 0.0
            var im = 0.0
            let step = 2 * Double.pi * f / fs
            for i in 0..<n {
                re += s[i] * Math.cos(step * Double(i))
                im -= s[i] * Math.sin(step * Double(i))
            }
            let p = re * re + im * im
            if f < 0.15 { lf += p } else { hf += p }
            bin += 1
        }
        return hf > 0 ? lf / hf : .infinity
    }
}
