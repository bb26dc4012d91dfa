import VitalSimCore

/// Maps virtual time to wall-clock hour of day (UTC of the scenario start) and sleep state.
package struct DayClock: Sendable {
    /// Unix ms of virtual time zero.
    package let startUnixMilliseconds: Int64
    /// Sleep window (hours of day).
    package var sleepStart = 23.0, wake = 7.0

    package init(startUnixMilliseconds: Int64) { self.startUnixMilliseconds = startUnixMilliseconds }

    /// Hour of day in [0, 24).
    @inlinable package func hour(at t: Int64) -> Double {
        let ms = (startUnixMilliseconds + t) % 86_400_000
        return Double(ms < 0 ? ms + 86_400_000 : ms) / 3_600_000
    }

    /// 1 while asleep, 0 while awake, with one-hour transitions.
    package func sleepiness(at t: Int64) -> Double {
        let h = hour(at: t)
        // Fall asleep over sleepStart-0.5 ... sleepStart+0.5, wake over wake-0.5 ... wake+0.5.
        let asleepFromEvening = Math.smoothstep(h - (sleepStart - 0.5))
        let awakeMorning = Math.smoothstep(h - (wake - 0.5))
        if h >= 12 { return asleepFromEvening }
        return 1 - awakeMorning
    }

    /// Unix ms of the midnight at or after virtual time `t`.
    package func nextMidnight(after t: Int64) -> Int64 {
        let abs = startUnixMilliseconds + t
        let day = (abs / 86_400_000 + 1) * 86_400_000
        return day - startUnixMilliseconds
    }
}
