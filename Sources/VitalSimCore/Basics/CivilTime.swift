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
        var s = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        s += pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2)
        if fractional { s += "." + pad(millisecond, 3) }
        return s + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` (optionally with `.fff`); returns nil for anything else.
    public init?(iso8601 text: String) {
        let b = Array(text.utf8)
        func num(_ from: Int, _ len: Int) -> Int? {
            guard from + len <= b.count else { return nil }
            var v = 0
            for i in from..<(from + len) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b.last == 90,
            let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
            let s = num(17, 2)
        else { return nil }
        var ms = 0
        if b.count == 24, b[19] == 46, let f = num(20, 3) { ms = f } else if b.count != 20 { return nil }
        guard (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 60 else { return nil }
        self.init(year: y, month: mo, day: d, hour: h, minute: mi, second: s, millisecond: ms)
        guard CivilTime(unixMilliseconds: unixMilliseconds) == self else { return nil }
    }

    /// Unix ms of an RFC 3339 / FHIR `dateTime` with a time: `YYYY-MM-DDThh:mm:ss[.f…](Z|±hh:mm)`, any number
    /// of fraction digits (truncated to ms), any offset; nil otherwise.
    public static func unixMilliseconds(rfc3339 text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 116, b[13] == 58, b[16] == 58 else {
            return nil
        }
        var i = 19
        var fraction = ""
        if i < b.count, b[i] == 46 {
            i += 1
            let start = i
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            guard i > start else { return nil }
            fraction = String(decoding: b[start..<min(i, start + 3)], as: UTF8.self)
            fraction += String(repeating: "0", count: 3 - fraction.count)
        }
        let base = String(decoding: b[0..<19], as: UTF8.self) + (fraction.isEmpty ? "" : "." + fraction) + "Z"
        guard let utc = CivilTime(iso8601: base) else { return nil }
        let zone = Array(b[i...])
        if zone == [90] || zone == [122] { return utc.unixMilliseconds }
        guard zone.count == 6, zone[0] == 43 || zone[0] == 45, zone[3] == 58,
            [1, 2, 4, 5].allSatisfy({ (48...57).contains(zone[$0]) }),
            let h = Int(String(decoding: zone[1..<3], as: UTF8.self)),
            let m = Int(String(decoding: zone[4..<6], as: UTF8.self)),
            h <= 23, m <= 59
        else { return nil }
        let offset = Int64(h * 60 + m) * 60_000
        return zone[0] == 43 ? utc.unixMilliseconds - offset : utc.unixMilliseconds + offset
    }

    private func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
