import VitalSimCore

/// The slow part of heart-rate variability: a 1/f process, the sum of eight second-order relaxations
/// (two first-order stages in cascade, so each is smooth from beat to beat) with time constants
/// 15 s × 3^k (15 s to 9 h) and equal variance, so each factor of three in frequency holds the same
/// power between 1/(2π·9 h) and 1/(2π·15 s) — the long-range 1/f spectrum of RR intervals
/// (Kobayashi & Musha 1982; Saul et al. 1988). Advanced beat by beat in time (s).
struct SlowVariability {
    static let timeConstants: [Double] = (0..<8).map { 15 * Math.pow(3, Double($0)) }
    /// How much of each component's variance a 5-minute window holds (the rest moves the window's
    /// mean): 1 − 2τ/T + 2τ²/T²·(1 − e^(−T/τ)) for T = 300 s.
    static let inWindowFraction: [Double] = timeConstants.map { tau in
        let r = tau / 300
        return 1 - 2 * r + 2 * r * r * (1 - Math.exp(-1 / r))
    }

    var rng: SeededRandom
    /// Each component's first and second stage.
    var states: [(Double, Double)]
    /// Stationary SD of each component (s).
    let sd: Double

    /// A process whose components together put `inWindowVariance` (s²) inside a 5-minute window.
    init(inWindowVariance: Double, rng: SeededRandom) {
        self.rng = rng
        sd = (inWindowVariance / Self.inWindowFraction.reduce(0, +)).squareRoot()
        let s = sd
        states = Self.timeConstants.map { _ in (0, 0) }
        for k in states.indices {
            let x = s * self.rng.normal()
            states[k] = (x, x)
        }
    }

    /// Advances by `dt` seconds; returns the process's value (s).
    mutating func next(after dt: Double) -> Double {
        var sum = 0.0
        for k in states.indices {
            // Each stage has half the component's time constant; the first stage's input is scaled
            // so that the second stage's output has variance sd²: var = s²·(1 + a²)/(1 + a)².
            let a = Math.exp(-2 * dt / Self.timeConstants[k])
            let s = sd * (1 + a) / (1 + a * a).squareRoot()
            var (x1, x2) = states[k]
            x1 = a * x1 + s * (1 - a * a).squareRoot() * rng.normal()
            x2 = a * x2 + (1 - a) * x1
            states[k] = (x1, x2)
            sum += x2
        }
        return sum
    }
}
