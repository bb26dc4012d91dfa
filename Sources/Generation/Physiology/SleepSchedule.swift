import VitalSimCore

/// When one patient sleeps, night by night: a chronotype of their own (bedtime about the clock's
/// 23:00, SD 45 min between people; Roenneberg et al. 2007's mid-sleep spread) and a usual sleep
/// length (7.5 h, SD 35 min), moved each night by SD 30 min at both ends (Bei et al. 2016's
/// night-to-night variability), and later on Friday and Saturday nights: bedtime +50 min, waking
/// +75 min (social jet lag, Roenneberg et al. 2012). A patient who measures something at home at a
/// set time is up for it: a morning measurement (05:00–10:00) before waking brings waking forward
/// (fully awake 10 minutes before it), an evening one (18:00–01:00) after bedtime puts bed off
/// until after it; measurements in the small hours are taken asleep (a carer's). Readable at any
/// time; the two nights around the last day asked for are kept, as every beat asks several times.
final class SleepSchedule {
    let clock: DayClock
    let seed: UInt64
    /// The patient's usual bedtime (hours after midnight, 24 = midnight) and sleep length (h).
    let bedtime: Double, length: Double
    /// Times of day (hours) of the patient's scheduled home measurements.
    let measurements: [Double]

    init(clock: DayClock, rng: SeededRandom, measurements: [Double] = []) {
        self.clock = clock
        self.measurements = measurements
        var own = rng
        let chronotype = Math.clamp(0.75 * own.normal(), -1.5, 1.5)
        bedtime = clock.sleepStart + chronotype
        let usual = clock.wake + 24 - clock.sleepStart
        length = Math.clamp(usual + 0.58 * own.normal(), usual - 1.2, usual + 1.2)
        seed = own.split("nights").seed
    }

    /// Bedtime and waking of the night that starts on the evening of `day` (days since 1970), in
    /// hours after that day's midnight.
    func night(_ day: Int64) -> (asleep: Double, awake: Double) {
        let key = UInt64(bitPattern: day) &* 4
        let weekday = DayClock.weekday(ofDay: day)
        let weekend = weekday == 5 || weekday == 6
        var asleep = bedtime + (weekend ? 0.83 : 0) + 0.5 * Self.normal(seed, key)
        var awake = max(bedtime + length + (weekend ? 1.25 : 0) + 0.5 * Self.normal(seed, key &+ 2), asleep + 4)
        // Transitions take an hour centred on each time: fully awake half an hour after `awake`.
        let margin = 0.5 + 1.0 / 6
        for m in measurements {
            if m >= 5, m <= 10, m + 24 < awake + margin { awake = m + 24 - margin }
            let evening = m < 12 ? m + 24 : m
            if evening >= 18, evening <= 25, evening > asleep - margin { asleep = evening + margin }
        }
        return (asleep, max(awake, asleep + 4))
    }

    /// 1 while asleep, 0 while awake, with one-hour transitions centred on falling asleep and waking.
    func sleepiness(at t: Int64) -> Double {
        let absolute = clock.startUnixMilliseconds + t
        let day = absolute >= 0 ? absolute / 86_400_000 : (absolute - 86_399_999) / 86_400_000
        let hour = Double(absolute - day * 86_400_000) / 3_600_000
        if day != cachedDay {
            cachedNights = (night(day - 1), night(day))
            cachedDay = day
        }
        return max(Self.asleep(cachedNights.0, at: hour + 24), Self.asleep(cachedNights.1, at: hour))
    }

    /// The day whose night and the night before are in ``cachedNights``.
    private var cachedDay = Int64.min
    private var cachedNights = ((asleep: 0.0, awake: 0.0), (asleep: 0.0, awake: 0.0))

    /// How asleep the patient is `hour` hours after the midnight of the day `night` starts on.
    private static func asleep(_ night: (asleep: Double, awake: Double), at hour: Double) -> Double {
        Math.smoothstep(hour - (night.asleep - 0.5)) * (1 - Math.smoothstep(hour - (night.awake - 0.5)))
    }

    /// A standard normal deviate for `(seed, key)`, truncated at ±2.5.
    static func normal(_ seed: UInt64, _ key: UInt64) -> Double {
        Math.clamp(SeededRandom.normal(seed, key), -2.5, 2.5)
    }
}
