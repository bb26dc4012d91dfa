/// R peaks of a single-lead ECG, to count the heart rate of a recording that does not state it:
/// the slope's magnitude (five-point derivative, after Pan and Tompkins 1985; not squared, so a
/// beat of half the amplitude is not lost under the threshold) smoothed over 150 ms, its local
/// maxima above 30 % of the recording's 98th percentile, at least 250 ms apart, each placed on the
/// largest absolute voltage of the QRS before it (never reaching back into the previous beat); the
/// tail of a beat cut off by the recording's start is not a beat.
/// Enough for a watch's clean 30 s at rest or in AF; not a diagnostic QRS detector.
enum RPeaks {
    static func detect(_ microvolts: [Int16], samplingFrequency rate: Int) -> [Double] {
        let samples = microvolts.map(Double.init)
        guard samples.count > 8, rate > 0 else { return [] }
        var energy = [Double](repeating: 0, count: samples.count)
        for index in 2..<(samples.count - 2) {
            let slope = (2 * samples[index + 2] + samples[index + 1] - samples[index - 1] - 2 * samples[index - 2]) / 8
            energy[index] = abs(slope)
        }
        let window = max(1, rate * 150 / 1000)
        var smooth = [Double](repeating: 0, count: samples.count)
        var sum = 0.0
        for index in 0..<samples.count {
            sum += energy[index]
            if index >= window { sum -= energy[index - window] }
            smooth[index] = sum / Double(window)
        }
        let sorted = smooth.sorted()
        let threshold = 0.3 * sorted[Int(Double(sorted.count - 1) * 0.98)]
        guard threshold > 0 else { return [] }
        let refractory = rate * 250 / 1000
        let search = rate * 60 / 1000
        var peaks: [Int] = []
        var index = 1
        while index < samples.count - 1 {
            if smooth[index] > threshold, smooth[index] >= smooth[index - 1], smooth[index] > smooth[index + 1] {
                // The smoothed energy peaks just after the QRS: the R peak is the largest voltage before it.
                // A peak in the recording's first 60 ms is the tail of a beat before it: no barrier.
                let barrier = peaks.last.map { $0 < search ? 0 : $0 + refractory } ?? 0
                let lo = max(0, index - window - search, barrier)
                let peak = lo <= index ? ((lo...index).max { abs(samples[$0]) < abs(samples[$1]) } ?? index) : index
                if let last = peaks.last, peak - last < refractory {
                    // The larger of two peaks too close to both be beats; a tail is never kept.
                    if abs(samples[peak]) > abs(samples[last]) || last < search { peaks[peaks.count - 1] = peak }
                } else {
                    peaks.append(peak)
                }
                index += max(1, refractory / 2)
                continue
            }
            index += 1
        }
        return peaks.map { Double($0) * 1000 / Double(rate) }
    }
}
