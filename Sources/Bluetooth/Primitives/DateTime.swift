import VitalSimCore

/// The 7-octet GATT Date Time: year, month, day, hours, minutes, seconds (0 = unknown for year/month/day).
public struct DateTime: Hashable, Sendable {
    public var year: UInt16, month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8

    /// A date and time as the Date Time characteristic carries it (year 0, month 0 or day 0: unknown).
    @inlinable
    public init(year: UInt16, month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// The UTC Date Time of a Unix time in milliseconds (seconds truncated).
    public init(unixMilliseconds: Int64) {
        let civilTime = CivilTime(unixMilliseconds: unixMilliseconds)
        self.init(
            year: UInt16(clamping: civilTime.year),
            month: UInt8(civilTime.month),
            day: UInt8(civilTime.day),
            hours: UInt8(civilTime.hour),
            minutes: UInt8(civilTime.minute),
            seconds: UInt8(civilTime.second)
        )
    }

    /// Unix ms of this Date Time read as UTC; nil when its month or day is unknown (0).
    public var unixMilliseconds: Int64? {
        guard month > 0, day > 0 else { return nil }
        return CivilTime(
            year: Int(year),
            month: Int(month),
            day: Int(day),
            hour: Int(hours),
            minute: Int(minutes),
            second: Int(seconds)
        )
        .unixMilliseconds
    }

    /// Why the value is invalid, or nil.
    public var problem: String? {
        if year != 0, !(1582...9999).contains(year) { return "year \(year) outside 1582...9999 (0 = unknown)" }
        if month > 12 { return "month \(month) outside 0...12" }
        if day > 31 { return "day \(day) outside 0...31" }
        if hours > 23 { return "hours \(hours) outside 0...23" }
        if minutes > 59 { return "minutes \(minutes) outside 0...59" }
        if seconds > 59 { return "seconds \(seconds) outside 0...59" }
        return nil
    }

    /// ISO-8601 text without zone, e.g. `2024-05-17T10:30:00`.
    public var iso8601: String {
        func p(_ v: Int, _ w: Int) -> String {
            let text = String(v)
            return String(repeating: "0", count: max(0, w - text.count)) + text
        }
        return
            "\(p(Int(year), 4))-\(p(Int(month), 2))-\(p(Int(day), 2))T\(p(Int(hours), 2)):\(p(Int(minutes), 2)):\(p(Int(seconds), 2))"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS` (a trailing `Z` is accepted).
    public init?(iso8601 text: String) {
        var remaining = text
        if remaining.hasSuffix("Z") { remaining.removeLast() }
        let parts = remaining.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).map { Int($0) }
        guard parts.count == 6, parts.allSatisfy({ $0 != nil }) else { return nil }
        let values = parts.map { $0! }
        guard values.allSatisfy({ $0 >= 0 }), values[0] <= 9999, values[1] <= 255, values[2] <= 255, values[3] <= 255,
            values[4] <= 255, values[5] <= 255
        else { return nil }
        self.init(
            year: UInt16(values[0]),
            month: UInt8(values[1]),
            day: UInt8(values[2]),
            hours: UInt8(values[3]),
            minutes: UInt8(values[4]),
            seconds: UInt8(values[5])
        )
        if problem != nil { return nil }
    }
}
