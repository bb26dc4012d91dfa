import VitalSimCore

/// Smooth, random-access noise: Gaussian-ish values at knots every `spacing` ms, cosine-interpolated.
///
/// Deterministic in (seed, time), so any device can read it at any time without shared state.
package struct ValueNoise: Sendable {
    package let seed: UInt64
    package let spacing: Int64

    package init(rng: SeededRandom, label: String, spacing: Int64) {
        seed = rng.split(label).seed
        self.spacing = spacing
    }

    /// Approximately standard-normal knot value (sum of three uniforms, rescaled).
    @inlinable func knot(_ k: Int64) -> Double {
        let i = UInt64(bitPattern: k) &* 3
        let s = SeededRandom.unit(seed, i) + SeededRandom.unit(seed, i &+ 1) + SeededRandom.unit(seed, i &+ 2)
        return (s - 1.5) * 2  // variance of sum = 3/12 → sd 0.5; ×2 → sd 1
    }

    /// Noise value at time `t` (sd ≈ 1 at knots, slightly less between them).
    package func value(at t: Int64) -> Double {
        let k = t >= 0 ? t / spacing : (t - spacing + 1) / spacing
        let frac = Double(t - k * spacing) / Double(spacing)
        let w = (1 - Math.cos(frac * Double.pi)) / 2
        return knot(k) * (1 - w) + knot(k + 1) * w
    }
}
