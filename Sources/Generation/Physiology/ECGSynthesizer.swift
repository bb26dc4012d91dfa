import VitalSimCore

/// A single-lead ECG waveform from the dynamical model of McSharry, Clifford, Tarassenko and Smith
/// (2003, *IEEE TBME* 50:289), re-implemented from the paper's equations and driven by given beat
/// times: the trajectory's phase θ runs once around the limit cycle per beat, reaching 0 (the R
/// peak) at each beat time, and
///
///     dz/dt = −Σᵢ aᵢ Δθᵢ exp(−Δθᵢ² / 2bᵢ²) − (z − z₀),   Δθᵢ = (θ − θᵢ) mod 2π
///
/// (the force scaled by each beat's rate, see `force`) with the P, Q, R, S, T events at θᵢ = −55°, −6°, 0°, 6°, 85°,
/// aᵢ = 0.8, −29, 150, −44, 0.5 and bᵢ = 0.2, 0.04, 0.045, 0.04, 0.3 rad at 60 /min. The paper's
/// values (−70°, −15°, 0°, 15°, 100°; 1.2, −5, 30, −7.5, 0.75; 0.25, 0.1, 0.1, 0.1, 0.4) give a QRS of
/// about 150 ms, a QTc of about 480 ms and a 0.25 mV P wave; these give QRS ≈ 88 ms, PR ≈ 165 ms,
/// QTc (Fridericia) ≈ 385 ms, P ≈ 0.12 mV and T ≈ 0.18 mV against an R of 0.8 mV in lead I, as
/// neurokit2 measures them (`Tests/referees/ecg_morphology.py`), and a quality its index rates
/// "Excellent", atrial fibrillation's included (docs/physiology.md, "ECG"). With the beat's rate r
/// (per second) each event's angle and width scale by r for Q, R, S (a QRS of fixed duration), r^⅔ for T (QT ∝ RR^⅓, Fridericia) and
/// r^¾ for P, and its amplitude by 1/scale² (the same height at any rate). In atrial fibrillation
/// the P event is absent (no organised atrial activity) and fibrillatory waves of 4–9 Hz take its
/// place. The clean signal is scaled to −0.4…1.2 mV as in the paper; then come baseline wander at the
/// breathing rate (40 µV) and a slower one (20 µV), muscle noise (white, SD 15 µV; 75 µV on a poor
/// recording) and mains interference (50 Hz, 10 µV).
package struct ECGSynthesizer {
    /// Angles (rad), amplitudes and widths (rad) of P, Q, R, S, T.
    static let angles: [Double] = [-55, -6, 0, 6, 85].map { $0 * Double.pi / 180 }
    static let amplitudes: [Double] = [0.8, -29, 150, -44, 0.5]
    static let widths: [Double] = [0.2, 0.04, 0.045, 0.04, 0.3]

    /// How a wave's phase offset and width scale with the beat's rate (beats per second), so that in
    /// time the QRS complex keeps its duration at any rate, the QT interval follows Fridericia's
    /// correction (QT ∝ RR^⅓: phase × rate^⅔), and the P wave and PR interval shorten a little
    /// (phase × rate^¾, time ∝ RR^¼).
    static func phaseScale(_ wave: Int, rate: Double) -> Double {
        switch wave {
        case 1, 2, 3: rate
        case 4: Math.pow(rate, 2.0 / 3)
        default: Math.pow(rate, 0.75)
        }
    }

    /// Samples per second.
    package var samplingFrequency = 512
    /// Breathing frequency (Hz) of the baseline wander.
    package var breathingHz = 0.25
    /// A poor recording (loose contact, motion): five times the muscle noise.
    package var poor = false

    package init(samplingFrequency: Int = 512, breathingHz: Double = 0.25, poor: Bool = false) {
        self.samplingFrequency = samplingFrequency
        self.breathingHz = breathingHz
        self.poor = poor
    }

    /// The voltage (mV) of `count` samples from `start` (ms). `beats` are beat (R peak) times in ms,
    /// ascending, at least one before `start` and one after the last sample; `fibrillating(t)` says
    /// whether the atria fibrillate at time `t`.
    package func voltages(
        start: Double,
        count: Int,
        beats: [Double],
        fibrillating: (Double) -> Bool,
        rng: inout SeededRandom
    ) -> [Double] {
        let h = 1000 / Double(samplingFrequency)
        var k = 0
        // The phase, the beat's rate and whether its P wave exists, at time t (ms).
        func state(_ t: Double) -> (theta: Double, hr: Double, p: Bool) {
            while k + 1 < beats.count - 1, beats[k + 1] <= t { k += 1 }
            let rr = max(1, beats[k + 1] - beats[k])
            var theta = 2 * Double.pi * (t - beats[k]) / rr
            if theta > Double.pi { theta -= 2 * Double.pi }
            return (theta, 60_000 / rr, !fibrillating(t))
        }
        // Each event's scale depends on the beat's rate only: worked out once per beat, not per step.
        var scaledBeat = -1
        var scales = [Double](repeating: 1, count: 5)
        func force(_ t: Double, _ z: Double) -> Double {
            let (theta, hr, phase) = state(t)
            if scaledBeat != k {
                scaledBeat = k
                for i in 0..<5 { scales[i] = Self.phaseScale(i, rate: hr / 60) }
            }
            var sum = 0.0
            for i in 0..<5 where i != 0 || phase {
                let scale = scales[i]
                var d = theta - Self.angles[i] * scale
                d -= 2 * Double.pi * (d / (2 * Double.pi)).rounded()
                let b = Self.widths[i] * scale
                // A wave's height is its amplitude × width²: divided by scale², it is the same at any rate.
                sum += Self.amplitudes[i] / (scale * scale) * d * Math.exp(-d * d / (2 * b * b))
            }
            // Scaled by the beat's rate (HR/60 beats per second): in the paper's units a wave's
            // amplitude falls as 1/ω, so an irregular rhythm's short beats would lose their R
            // peaks; per phase, as here, every beat keeps its shape.
            return -sum * hr / 60 - z
        }
        // Settle the trajectory over the beats before the recording, then sample it.
        var t = max(beats[0], start - 2000)
        var z = 0.0
        var clean: [Double] = []
        clean.reserveCapacity(count)
        let dt = h / 1000
        while clean.count < count {
            if t >= start - h / 2 { clean.append(z) }
            let k1 = force(t, z)
            let k2 = force(t + h / 2, z + dt / 2 * k1)
            let k3 = force(t + h / 2, z + dt / 2 * k2)
            let k4 = force(t + h, z + dt * k3)
            z += dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            t += h
        }
        return finish(clean, start: start, fibrillating: fibrillating, rng: &rng)
    }

    /// Scaling to −0.4…1.2 mV, then wander, f-waves, muscle noise and mains.
    func finish(_ clean: [Double], start: Double, fibrillating: (Double) -> Bool, rng: inout SeededRandom) -> [Double] {
        let lo = clean.min() ?? 0
        let hi = clean.max() ?? 1
        let gain = 1.6 / max(hi - lo, 1e-9)
        let wanderPhase = rng.uniform(0, 2 * Double.pi)
        let mainsPhase = rng.uniform(0, 2 * Double.pi)
        let fHz = (rng.uniform(4, 9), rng.uniform(4, 9))
        let muscle = poor ? 0.075 : 0.015
        var out: [Double] = []
        out.reserveCapacity(clean.count)
        for (n, z) in clean.enumerated() {
            let s = Double(n) / Double(samplingFrequency)
            var v = -0.4 + (z - lo) * gain
            v +=
                0.04 * Math.sin(2 * Double.pi * breathingHz * s + wanderPhase) + 0.02
                * Math.sin(2 * Double.pi * 0.05 * s)
            if fibrillating(start + s * 1000) {
                v += 0.03 * Math.sin(2 * Double.pi * fHz.0 * s) + 0.02 * Math.sin(2 * Double.pi * fHz.1 * s + 1.3)
            }
            v += muscle * rng.normal() + 0.01 * Math.sin(2 * Double.pi * 50 * s + mainsPhase)
            out.append(v)
        }
        return out
    }
}
