import VitalSimCore

/// Everyday walking: bouts in waking hours, each with its own start, length and pace. In each
/// half hour awake a bout starts with a probability set by the patient's daily steps, at a
/// uniform moment in it; its length is lognormal (median 8 min, 2–25 min: everyday bouts are of
/// very unequal length, most of them short, Orendurff et al. 2008), its pace 85–120 steps/min
/// (about 100 steps/min marks moderate walking, Tudor-Locke et al. 2018) with a slow wander of
/// ±8 %, reached and left over a quarter of the bout (at most 90 s). A fifth fewer bouts on
/// Sundays (VitalSim's choice: a quieter day). Readable at any time; the bouts of the last two
/// half hours asked for are kept, as every beat asks.
final class WalkingBouts {
    typealias Bout = (start: Int64, end: Int64, pace: Double)
    static let slot: Int64 = 1_800_000
    /// The steps of an average bout (median 8 min × e^(σ²/2), less its ramps, at 102 steps/min).
    static let stepsPerBout = 830.0

    /// The short bouts' slot: five minutes.
    static let shortSlot: Int64 = 300_000
    /// The steps of an average short bout (median 30 s × e^(σ²/2), less its ramps, at 90 steps/min).
    static let stepsPerShortBout = 43.0
    /// The share of a day's steps taken in short bouts.
    static let shortShare = 0.3

    let seed: UInt64
    let shortSeed: UInt64
    let pace: ValueNoise
    /// Chance of a bout starting in a waking half hour.
    let chance: Double
    /// Chance of a short bout starting in a waking five minutes.
    let shortChance: Double

    init(dailySteps: Double, rng: SeededRandom) {
        seed = rng.split("bouts").seed
        shortSeed = rng.split("short-bouts").seed
        pace = ValueNoise(rng: rng, label: "bout-pace", spacing: 90_000)
        chance = Math.clamp((1 - Self.shortShare) * dailySteps / (32 * Self.stepsPerBout), 0, 0.9)
        shortChance = Math.clamp(Self.shortShare * dailySteps / (192 * Self.stepsPerShortBout), 0, 0.9)
    }

    /// Cadence (steps/min) at `t` of the short bouts: a few seconds to two minutes on foot (to the
    /// kitchen, up the stairs; most bouts are this short, Orendurff et al. 2008), lognormal around
    /// 30 s at 70–110 steps/min, reached and left over a quarter of the bout. `awake` says whether
    /// the patient was up when a bout would start.
    func shortCadence(at t: Int64, awake: (Int64) -> Bool) -> Double {
        let j = Math.floorDivide(t, Self.shortSlot)
        if let bout = cachedShortBout(j), t >= bout.start, t < bout.end, awake(bout.start) {
            return Self.shape(bout, at: t)
        }
        if let bout = cachedShortBout(j - 1), t >= bout.start, t < bout.end, awake(bout.start) {
            return Self.shape(bout, at: t)
        }
        return 0
    }

    /// A short bout's cadence at `t` inside it, ramped over a quarter of its length.
    static func shape(_ bout: Bout, at t: Int64) -> Double {
        let ramp = Double(bout.end - bout.start) / 4
        return bout.pace * Math.smoothstep(Double(t - bout.start) / ramp) * Math.smoothstep(Double(bout.end - t) / ramp)
    }

    /// The last two five-minute slots asked for and their short bouts.
    private var cachedShort = RecentSlots()

    /// The short bout drawn for five-minute slot `j`, if one starts then, kept for the last two asked for.
    func cachedShortBout(_ j: Int64) -> Bout? {
        cachedShort.bout(j) { j in
            let key = UInt64(bitPattern: j) &* 8
            guard SeededRandom.unit(shortSeed, key) < shortChance else { return nil }
            let start = j * Self.shortSlot + Int64(SeededRandom.unit(shortSeed, key &+ 1) * Double(Self.shortSlot))
            let seconds = Math.clamp(30 * Math.exp(0.7 * SleepSchedule.normal(shortSeed, key &+ 2)), 8, 150)
            return (start, start + Int64(seconds * 1000), 70 + 40 * SeededRandom.unit(shortSeed, key &+ 3))
        }
    }

    /// The last two half hours asked for and their bouts.
    private var cached = RecentSlots()

    /// ``bout(_:startUnixMilliseconds:)``, kept for the last two half hours asked for.
    func cachedBout(_ k: Int64, startUnixMilliseconds: Int64) -> Bout? {
        cached.bout(k) { bout($0, startUnixMilliseconds: startUnixMilliseconds) }
    }

    /// Start, end (virtual ms) and pace of the bout drawn for half hour `k`, if one starts then.
    func bout(_ k: Int64, startUnixMilliseconds: Int64) -> (start: Int64, end: Int64, pace: Double)? {
        let key = UInt64(bitPattern: k) &* 8
        let absoluteDay = (startUnixMilliseconds + k * Self.slot) / 86_400_000
        let sunday = DayClock.weekday(ofDay: absoluteDay) == 0
        guard SeededRandom.unit(seed, key) < chance * (sunday ? 0.8 : 1) else { return nil }
        let start = k * Self.slot + Int64(SeededRandom.unit(seed, key &+ 1) * Double(Self.slot))
        let minutes = Math.clamp(8 * Math.exp(0.6 * SleepSchedule.normal(seed, key &+ 2)), 2, 25)
        let pace = 85 + 35 * SeededRandom.unit(seed, key &+ 4)
        return (start, start + Int64(minutes * 60_000), pace)
    }

    /// Cadence (steps/min) at `t` of a bout drawn for half hour `k`; `awake` says whether the
    /// patient was up when it would start.
    func cadence(at t: Int64, slot k: Int64, startUnixMilliseconds: Int64, awake: (Int64) -> Bool) -> Double {
        guard let (start, end, pace) = cachedBout(k, startUnixMilliseconds: startUnixMilliseconds), t >= start,
            t < end, awake(start)
        else { return 0 }
        let ramp = Double(min((end - start) / 4, 90_000))
        let shape = Math.smoothstep(Double(t - start) / ramp) * Math.smoothstep(Double(end - t) / ramp)
        return pace * (1 + 0.08 * self.pace.value(at: t)) * shape
    }
}

/// The bouts of the last two slots asked for: every beat asks for its slot and the one before, so
/// each slot's bout is drawn once, not at every beat.
struct RecentSlots {
    private var entries: [(slot: Int64, bout: WalkingBouts.Bout?)] = []

    /// The bout of `slot`, drawn by `draw` unless it is one of the last two asked for.
    mutating func bout(_ slot: Int64, draw: (Int64) -> WalkingBouts.Bout?) -> WalkingBouts.Bout? {
        if let hit = entries.first(where: { $0.slot == slot }) { return hit.bout }
        let drawn = draw(slot)
        if entries.count == 2 { entries.removeFirst() }
        entries.append((slot, drawn))
        return drawn
    }
}
