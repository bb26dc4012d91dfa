import VitalSimCore

/// Maps virtual time to wall-clock hour of day (UTC of the scenario start).
package struct DayClock: Sendable {
    /// Unix ms of virtual time zero.
    package let startUnixMilliseconds: Int64
    /// The typical sleep window (hours of day); each patient's nights vary about it (``SleepSchedule``).
    package var sleepStart = 23.0, wake = 7.0

    package init(startUnixMilliseconds: Int64) { self.startUnixMilliseconds = startUnixMilliseconds }

    /// Hour of day in [0, 24).
    @inlinable package func hour(at t: Int64) -> Double {
        let ms = (startUnixMilliseconds + t) % 86_400_000
        return Double(ms < 0 ? ms + 86_400_000 : ms) / 3_600_000
    }

    /// The day of the week of `day` (days since 1970-01-01, a Thursday): 0 Sunday … 6 Saturday.
    package static func weekday(ofDay day: Int64) -> Int64 { ((day + 4) % 7 + 7) % 7 }

    /// Unix ms of the midnight at or after virtual time `t`.
    package func nextMidnight(after t: Int64) -> Int64 {
        let abs = startUnixMilliseconds + t
        let day = (abs / 86_400_000 + 1) * 86_400_000
        return day - startUnixMilliseconds
    }
}
