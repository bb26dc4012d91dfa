import VitalSimCore

/// Band powers of an RR series by Welch's method, the default of hrv-analysis (Champseix et al.,
/// PyPI `hrv-analysis`; Task Force 1996 bands), so that `vitalsim stats` and that library agree:
/// the tachogram (interval i at the sum of intervals 1…i) linearly resampled
/// at 4 Hz, its mean removed; segments of 256 samples (64 s) overlapping by half, each with its mean
/// removed and a Hann window, zero-padded to 4,096 points; one-sided power spectral densities
/// averaged over segments; a band's power the trapezoidal integral over the frequencies in
/// `[low, high)`. VLF 0.003–0.04 Hz, LF 0.04–0.15 Hz, HF 0.15–0.4 Hz.
enum WelchSpectrum {
    static let rate = 4.0, segment = 256, fftLength = 4096

    /// VLF, LF and HF power (ms²) of `rr` (ms).
    static func bandPowers(_ rr: [Double]) -> (vlf: Double, lf: Double, hf: Double) {
        let x = resampled(rr)
        guard x.count >= 16 else { return (.nan, .nan, .nan) }
        let n = min(segment, x.count)
        let step = n / 2
        let window = (0..<n).map { 0.5 - 0.5 * Math.cos(2 * Double.pi * Double($0) / Double(n)) }
        let windowPower = window.reduce(0) { $0 + $1 * $1 }
        let df = rate / Double(fftLength)
        let top = Int((0.4 / df).rounded(.up))
        var psd = [Double](repeating: 0, count: top + 1)
        var segments = 0
        var start = 0
        while start + n <= x.count {
            let part = Array(x[start..<(start + n)])
            let mean = part.reduce(0, +) / Double(n)
            let s = (0..<n).map { (part[$0] - mean) * window[$0] }
            for k in 1...top {
                let w = 2 * Double.pi * Double(k) / Double(fftLength)
                var re = 0.0
                var im = 0.0
                for i in 0..<n {
                    re += s[i] * Math.cos(w * Double(i))
                    im -= s[i] * Math.sin(w * Double(i))
                }
                psd[k] += 2 * (re * re + im * im) / (rate * windowPower)
            }
            segments += 1
            start += step
        }
        for k in psd.indices { psd[k] /= Double(max(segments, 1)) }
        func band(_ low: Double, _ high: Double) -> Double {
            var total = 0.0
            var previous: (Double, Double)?
            for k in 1...top {
                let f = Double(k) * df
                guard f >= low, f < high else { continue }
                if let (f0, p0) = previous { total += (f - f0) * (p0 + psd[k]) / 2 }
                previous = (f, psd[k])
            }
            return total
        }
        return (band(0.003, 0.04), band(0.04, 0.15), band(0.15, 0.4))
    }

    /// The tachogram at 4 Hz, linearly interpolated, mean removed.
    static func resampled(_ rr: [Double]) -> [Double] {
        // Interval i at the sum of intervals 1…i (the first at 0), as hrv-analysis places them.
        var times: [Double] = []
        var t = 0.0
        for (i, r) in rr.enumerated() {
            if i > 0 { t += r / 1000 }
            times.append(t)
        }
        guard let last = times.last, last > 0 else { return [] }
        var out: [Double] = []
        var j = 0
        var x = 0.0
        while x < last {
            while j + 1 < times.count, times[j + 1] < x { j += 1 }
            let k = min(j + 1, times.count - 1)
            let span = times[k] - times[j]
            let f = span > 0 ? (x - times[j]) / span : 0
            out.append(rr[j] + (rr[k] - rr[j]) * f)
            x += 1 / rate
        }
        let mean = out.reduce(0, +) / Double(out.count)
        return out.map { $0 - mean }
    }
}
