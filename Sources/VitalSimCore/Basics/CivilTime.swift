/// A UTC calendar date and time, converted without Foundation or the local time zone.
public struct CivilTime: Equatable, Sendable {
    public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    /// Milliseconds within the second (0...999).
    public var millisecond: Int

    /// The UTC civil time of a Unix time in milliseconds.
    public init(unixMilliseconds ms: Int64) {
        let secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        millisecond = Int(ms - secs * 1000)
        let days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400
        let rem = Int(secs - days * 86400)
        hour = rem / 3600
        minute = rem % 3600 / 60
        second = rem % 60
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = Int(doy - (153 * mp + 2) / 5 + 1)
        month = Int(mp < 10 ? mp + 3 : mp - 9)
        year = Int(yoe + era * 400) + (month <= 2 ? 1 : 0)
    }

    /// Creates a civil time from its parts.
    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, millisecond: Int = 0)
    {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
    }

    /// Unix time in milliseconds.
    public var unixMilliseconds: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return ((days * 86400) + Int64(hour * 3600 + minute * 60 + second)) * 1000 + Int64(millisecond)
    }

    /// ISO-8601 UTC, `2024-11-07T12:34:58Z` (milliseconds are added when non-zero and `fractional` is set).
    public func iso8601(fractional: Bool = false) -> String {
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2)
        if fractional { text += "." + pad(millisecond, 3) }
        return text + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` (optionally with `.fff`); returns nil for anything else.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        func num(_ from: Int, _ len: Int) -> Int? {
            guard from + len <= bytes.count else { return nil }
            var v = 0
            for i in from..<(from + len) {
                guard bytes[i] >= 48, bytes[i] <= 57 else { return nil }
                v = v * 10 + Int(bytes[i] - 48)
            }
            return v
        }
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58, bytes[16] == 58,
            bytes.last == 90,
            let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
            let s = num(17, 2)
        else { return nil }
        var ms = 0
        if bytes.count == 24, bytes[19] == 46, let milliseconds = num(20, 3) {
            ms = milliseconds
        } else if bytes.count != 20 {
            return nil
        }
        guard (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 60 else { return nil }
        self.init(year: y, month: mo, day: d, hour: h, minute: mi, second: s, millisecond: ms)
        guard CivilTime(unixMilliseconds: unixMilliseconds) == self else { return nil }
    }

    /// Unix ms of an RFC 3339 / FHIR `dateTime` with a time: `YYYY-MM-DDThh:mm:ss[.f…](Z|±hh:mm)`, any number
    /// of fraction digits (truncated to ms), any offset; nil otherwise.
    public static func unixMilliseconds(rfc3339 text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116, bytes[13] == 58,
            bytes[16] == 58
        else {
            return nil
        }
        var position = 19
        var fraction = ""
        if position < bytes.count, bytes[position] == 46 {
            position += 1
            let start = position
            while position < bytes.count, (48...57).contains(bytes[position]) { position += 1 }
            guard position > start else { return nil }
            fraction = String(decoding: bytes[start..<min(position, start + 3)], as: UTF8.self)
            fraction += String(repeating: "0", count: 3 - fraction.count)
        }
        let base = String(decoding: bytes[0..<19], as: UTF8.self) + (fraction.isEmpty ? "" : "." + fraction) + "Z"
        guard let utc = CivilTime(iso8601: base) else { return nil }
        let zone = Array(bytes[position...])
        if zone == [90] || zone == [122] { return utc.unixMilliseconds }
        guard zone.count == 6, zone[0] == 43 || zone[0] == 45, zone[3] == 58,
            [1, 2, 4, 5].allSatisfy({ (48...57).contains(zone[$0]) }),
            let hours = Int(String(decoding: zone[1..<3], as: UTF8.self)),
            let minutes = Int(String(decoding: zone[4..<6], as: UTF8.self)),
            hours <= 23, minutes <= 59
        else { return nil }
        let offset = Int64(hours * 60 + minutes) * 60_000
        return zone[0] == 43 ? utc.unixMilliseconds - offset : utc.unixMilliseconds + offset
    }

    private func pad(_ v: Int, _ width: Int) -> String {
        let digits = String(v)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
