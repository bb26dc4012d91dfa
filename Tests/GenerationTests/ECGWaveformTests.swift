import Generation
import VitalSimCore
import XCTest

/// The synthesized ECG's shape: its largest deflection is the R peak at each beat time, a P wave
/// precedes the QRS in sinus rhythm and is absent in atrial fibrillation (beat-averaged, so the
/// f-waves and noise, unrelated to the beats, average out), and the T wave follows the QRS.
final class ECGWaveformTests: XCTestCase {
    let fs = 512

    func waveform(beats: [Double], af: Bool, seed: UInt64 = 1) -> [Double] {
        var rng = SeededRandom(seed: seed)
        return ECGSynthesizer(samplingFrequency: fs).voltages(
            start: 0,
            count: 30 * fs,
            beats: beats,
            fibrillating: { _ in af },
            rng: &rng
        )
    }

    /// The mean of the signal over a window (ms, relative to each beat), averaged over beats.
    func averaged(_ v: [Double], _ beats: [Double], from: Double, to: Double) -> Double {
        var sum = 0.0
        var count = 0
        for b in beats where b + from >= 0 && b + to < 30_000 {
            for i in Int((b + from) * Double(fs) / 1000)..<Int((b + to) * Double(fs) / 1000) {
                sum += v[i]
                count += 1
            }
        }
        return sum / Double(max(count, 1))
    }

    func testRPeaksAtTheBeatsAndPWavesOnlyInSinusRhythm() {
        let beats = stride(from: -1600.0, through: 31_600, by: 800).map { $0 }
        let sinus = waveform(beats: beats, af: false)
        let af = waveform(beats: beats, af: true)
        XCTAssertEqual(sinus.count, 30 * fs)
        // Each beat's R peak: the window's maximum lies within 10 ms of the beat, about 1.2 mV high.
        for b in beats where b > 100 && b < 29_900 {
            let lo = Int((b - 100) * Double(fs) / 1000)
            let window = Array(sinus[lo..<lo + Int(0.2 * Double(fs))])
            let peak = window.indices.max { window[$0] < window[$1] }!
            XCTAssertEqual(Double(lo + peak) * 1000 / Double(fs), b, accuracy: 10, "R peak at the beat")
            XCTAssertTrue((0.8...1.5).contains(window[peak]), "R amplitude \(window[peak]) mV")
        }
        // Baseline: the TP segment, 350–250 ms before the R peak at 75 bpm (after T, before P).
        let base = { (v: [Double]) in self.averaged(v, beats, from: -330, to: -280) }
        let pSinus = averaged(sinus, beats, from: -200, to: -120) - base(sinus)
        let pAF = averaged(af, beats, from: -200, to: -120) - base(af)
        XCTAssertGreaterThan(pSinus, 0.05, "a P wave before each QRS in sinus rhythm")
        XCTAssertLessThan(abs(pAF), 0.02, "no P wave in atrial fibrillation")
        let average = averaged(sinus, beats, from: 180, to: 300) - base(sinus)
        XCTAssertGreaterThan(average, 0.05, "a T wave after each QRS")
        XCTAssertNotEqual(waveform(beats: beats, af: false, seed: 2), sinus, "noise follows the seed")
        XCTAssertEqual(waveform(beats: beats, af: false, seed: 1), sinus, "and only the seed")
    }
}
