/// A deterministic, splittable pseudo-random generator (xoshiro256** seeded through SplitMix64).
///
/// Every patient, device and signal draws from its own stream, derived with ``split(_:)`` from a
/// label, so adding a patient or a device never changes the numbers another one sees, and results
/// never depend on scheduling order.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    /// The seed this stream was created from (used to derive children).
    public let seed: UInt64
    private var spareNormal: Double?

    /// Creates a stream from a 64-bit seed.
    public init(seed: UInt64) {
        self.seed = seed
        var sm = seed
        s0 = SeededRandom.splitMix(&sm)
        s1 = SeededRandom.splitMix(&sm)
        s2 = SeededRandom.splitMix(&sm)
        s3 = SeededRandom.splitMix(&sm)
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }
    }

    /// A child stream identified by `label`; independent of how much this stream has been used.
    public func split(_ label: String) -> SeededRandom {
        SeededRandom(seed: SeededRandom.mix(seed, SeededRandom.fnv1a(label)))
    }

    /// Stateless hash of (seed, index) to 64 bits, for counter-based noise that can be read at any time.
    @inlinable
    public static func hash(_ seed: UInt64, _ index: UInt64) -> UInt64 {
        var z = seed &+ index &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Stateless uniform value in [0, 1) for (seed, index).
    @inlinable
    public static func unit(_ seed: UInt64, _ index: UInt64) -> Double {
        Double(hash(seed, index) >> 11) * 0x1.0p-53
    }

    /// Stateless standard normal deviate for (seed, index): Box–Muller on the uniforms at `index`
    /// and `index + 1`.
    package static func normal(_ seed: UInt64, _ index: UInt64) -> Double {
        let u1 = max(unit(seed, index), 1e-12)
        let u2 = unit(seed, index &+ 1)
        return (-2 * Math.log(u1)).squareRoot() * Math.cos(2 * Double.pi * u2)
    }

    static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var x = a ^ (b &* 0xD6E8_FEB8_6659_FD93)
        return SeededRandom.splitMix(&x)
    }

    /// FNV-1a of the UTF-8 bytes: stable across runs and machines (unlike `hashValue`).
    public static func fnv1a(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// Uniform in [0, 1).
    public mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform in [lo, hi).
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * uniform() }

    /// Standard normal deviate (Marsaglia polar method).
    public mutating func normal() -> Double {
        if let spare = spareNormal {
            spareNormal = nil
            return spare
        }
        while true {
            let u = 2 * uniform() - 1
            let v = 2 * uniform() - 1
            let s = u * u + v * v
            if s > 0, s < 1 {
                let f = (-2 * Math.log(s) / s).squareRoot()
                spareNormal = v * f
                return u * f
            }
        }
    }

    /// Normal deviate with the given mean and standard deviation.
    public mutating func normal(mean: Double, sd: Double) -> Double { mean + sd * normal() }

    /// Exponential deviate with the given mean.
    public mutating func exponential(mean: Double) -> Double { -mean * Math.log(1 - uniform()) }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { uniform() < p }
}
