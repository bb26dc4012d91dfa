import VitalSimCore

/// What sleep does to SpO2: a lower level and brief dips from shallower breathing.
///
/// Healthy people asleep (Gries & Brooks, Chest 1996;110:1489; 350 all-night oximetries): median
/// 96.5 ± 1.5 %, 10th centile 94.7 ± 1.6 %, lowest 90.4 ± 3.1 %. Here an adult's saturation falls by
/// 1 % asleep and dips about three times an hour by 2–8 % (2 % plus an exponential 1.2 %) for 20–50 s,
/// so a night's lowest reading falls near 90 %. COPD (Fletcher et al., Chest 1987;92:604: nocturnal
/// desaturation, deepest in REM sleep) falls by 2 % and dips six times an hour by 3–10 % for 30–70 s.
/// Infants' feeds and sleep are spread over the day; they get no nocturnal pattern here.
/// Random access: a dip is decided per 10-minute block from the seed, so any time can be read.
struct NocturnalDips: Sendable {
    let fall: Double
    let perHour: Double
    let minDepth: Double, meanExtraDepth: Double
    let minSeconds: Double, extraSeconds: Double
    let seed: UInt64
    static let block: Int64 = 600_000

    init(profile: Profile, seed: UInt64) {
        self.seed = seed
        switch profile {
        case .copd:
            (fall, perHour, minDepth, meanExtraDepth, minSeconds, extraSeconds) = (2, 6, 3, 1.5, 30, 40)
        case .chdInfant:
            (fall, perHour, minDepth, meanExtraDepth, minSeconds, extraSeconds) = (0, 0, 0, 0, 0, 0)
        default:
            (fall, perHour, minDepth, meanExtraDepth, minSeconds, extraSeconds) = (1, 3, 2, 1.2, 20, 30)
        }
    }

    /// How far the dips in progress at `t` lower SpO2 (%).
    func depth(at t: Int64) -> Double {
        guard perHour > 0 else { return 0 }
        let b = t >= 0 ? t / Self.block : (t - Self.block + 1) / Self.block
        // Up to three dips per block (Poisson-thinned), each starting in its own third of the block.
        var depth = 0.0
        for block in (b - 1)...b {
            for slot in 0..<3 {
                let key = UInt64(bitPattern: block) &* 8 &+ UInt64(slot) &* 2
                let p = perHour / 6 / 3
                guard SeededRandom.unit(seed, key) < p else { continue }
                let u = SeededRandom.unit(seed, key &+ 1)
                let start = block * Self.block + Int64(slot) * Self.block / 3 + Int64(u * Double(Self.block / 3))
                let seconds = minSeconds + extraSeconds * SeededRandom.unit(seed, key &+ 0x5151)
                let d = minDepth - meanExtraDepth * Math.log(max(1e-9, SeededRandom.unit(seed, key &+ 0x7777)))
                let x = Double(t - start) / (seconds * 1000)
                // Falls over the first 60 % of the dip, recovers over the rest.
                guard x > 0, x < 1 else { continue }
                let w = x < 0.6 ? Math.smoothstep(x / 0.6) : Math.smoothstep((1 - x) / 0.4)
                depth = max(depth, d * w)
            }
        }
        return depth
    }
}
