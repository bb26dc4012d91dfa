import VitalSimCore

/// Generates successive RR intervals (beat-to-beat), McSharry-style: the mean RR follows the
/// patient's mean heart rate; LF (~0.1 Hz, Mayer waves) and HF (respiratory sinus arrhythmia at the
/// patient's breathing rate, which drifts with sleep, activity and from breath to breath) come
/// from two resonant AR(2) processes with band powers in the ratio LF/HF. Under them lies a 1/f
/// process (``SlowVariability``: the very-low-frequency and ultra-low-frequency power of
/// Kobayashi & Musha 1982 and Saul et al. 1988), about a third of a resting 5-minute window's power,
/// as in the Task Force's norms. Atrial fibrillation replaces sinus rhythm with an AV-node style
/// irregular process (refractory period plus a random wait for the next conducted impulse), which
/// has no periodic structure.
package struct HeartBeatGenerator {
    let physiology: PatientPhysiology
    var rng: SeededRandom
    /// Virtual time of the last beat, ms (fractional).
    package private(set) var time: Double
    var lf = (0.0, 0.0), hf = (0.0, 0.0)
    var slow: SlowVariability
    let sdRest: Double
    let lfShare: Double
    /// Share of a resting 5-minute window's RR variance from the 1/f process.
    static let vlfShare = 0.45
    let breathing: ValueNoise

    init(physiology: PatientPhysiology, rng: SeededRandom, start: Int64) {
        self.physiology = physiology
        self.rng = rng
        time = Double(start)
        let baseline = physiology.baseline
        sdRest = baseline.hrvSDNN / 1000
        lfShare = baseline.lfHfRatio / (1 + baseline.lfHfRatio)
        slow = SlowVariability(inWindowVariance: Self.vlfShare * sdRest * sdRest, rng: rng.split("slow"))
        breathing = ValueNoise(rng: rng, label: "breathing", spacing: 20_000)
        // Warm up the oscillators so the first minutes are already stationary.
        for _ in 0..<64 { _ = step(rrMean: 60 / baseline.heartRate, at: start) }
    }

    /// AR(2) coefficients (a1, a2, innovation scale) for a resonance, cached per 1 ms of beat interval.
    struct Coefficients {
        var key = -1
        var a1 = 0.0, a2 = 0.0, scale = 0.0
    }
    var lfCoefficients = Coefficients(), hfCoefficients = Coefficients()

    static func coefficients(freq: Double, bandwidth: Double, dt: Double) -> Coefficients {
        let theta = 2 * Double.pi * freq * dt
        let r = Math.exp(-Double.pi * bandwidth * dt)
        let a1 = 2 * r * Math.cos(theta)
        let a2 = -r * r
        // Stationary variance of AR(2) with unit innovations, used to normalise to unit variance.
        let r2 = r * r
        let v = (1 + r2) / ((1 - r2) * ((1 + r2) * (1 + r2) - a1 * a1))
        return Coefficients(key: 0, a1: a1, a2: a2, scale: 1 / v.squareRoot())
    }

    mutating func ar2(
        _ s: inout (Double, Double),
        _ coefficients: inout Coefficients,
        freq: Double,
        bandwidth: Double,
        dt: Double
    ) -> Double {
        let key = Int(dt * 1000) &* 1000 &+ Int(freq * 1000)
        if coefficients.key != key {
            coefficients = Self.coefficients(
                freq: freq,
                bandwidth: bandwidth,
                dt: (Double(Int(dt * 1000)) + 0.5) / 1000
            )
            coefficients.key = key
        }
        let x = coefficients.a1 * s.0 + coefficients.a2 * s.1 + rng.normal() * coefficients.scale
        s = (x, s.0)
        return x
    }

    /// Breathing frequency (Hz) at `t`: the patient's respiration rate, ±8 % from breath to breath.
    func respiration(at t: Int64) -> Double {
        physiology.respirationRate(at: t) / 60 * (1 + 0.04 * breathing.value(at: t))
    }

    mutating func step(rrMean: Double, at t: Int64) -> (Double, Double) {
        let resp = respiration(at: t)
        var lfState = lf
        var hfState = hf
        var lc = lfCoefficients
        var hc = hfCoefficients
        let l = ar2(&lfState, &lc, freq: 0.1, bandwidth: 0.02, dt: rrMean)
        let h = ar2(&hfState, &hc, freq: min(resp, 0.45 / rrMean), bandwidth: 0.02, dt: rrMean)
        lf = lfState
        hf = hfState
        lfCoefficients = lc
        hfCoefficients = hc
        return (l, h)
    }

    /// The next RR interval in seconds; advances ``time``.
    package mutating func next() -> Double {
        let t = Int64(time)
        let rr: Double
        if let af = physiology.atrialFibrillation(at: t) {
            let mean = 60 / (af.target ?? 110)
            rr = max(0.25, 0.7 * mean * (1 + 0.08 * rng.normal()) + rng.exponential(mean: 0.3 * mean))
            _ = step(rrMean: mean, at: t)
            _ = slow.next(after: rr)
        } else {
            let hr = physiology.meanHeartRate(at: t)
            let rrMean = 60 / hr
            // HRV shrinks as the rate rises (rrstd = 60·hrstd/HR², McSharry).
            let shrink = min(1.3, pow2(physiology.baseHeartRate / hr))
            let scale = sdRest * (1 - Self.vlfShare).squareRoot() * shrink
            let (l, h) = step(rrMean: rrMean, at: t)
            let white = 0.05 * rng.normal()
            let fast = scale * (lfShare.squareRoot() * l + (1 - lfShare).squareRoot() * h + white) / 1.011
            rr = max(0.2, rrMean + fast + shrink * slow.next(after: rrMean))
        }
        time += rr * 1000
        return rr
    }

    private func pow2(_ x: Double) -> Double { x * x }
}
