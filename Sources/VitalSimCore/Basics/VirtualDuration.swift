/// A span of virtual (scenario) time with millisecond resolution.
///
/// Written in scenario files as a sequence of number–unit pairs: `500ms`, `90s`, `10m`, `1h30m`, `2d`.
public struct VirtualDuration: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The length in milliseconds.
    public var milliseconds: Int64

    /// Creates a duration from milliseconds.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// Creates a duration from whole seconds.
    public static func seconds(_ s: Int64) -> VirtualDuration { VirtualDuration(milliseconds: s * 1000) }
    /// Creates a duration from whole minutes.
    public static func minutes(_ m: Int64) -> VirtualDuration { VirtualDuration(milliseconds: m * 60_000) }
    /// Creates a duration from whole hours.
    public static func hours(_ h: Int64) -> VirtualDuration { VirtualDuration(milliseconds: h * 3_600_000) }
    /// Zero length.
    public static let zero = VirtualDuration(milliseconds: 0)
    /// The longest duration a scenario may use (ten years).
    public static let maximum = VirtualDuration(milliseconds: 3650 * 86_400_000)

    /// The length in (fractional) seconds.
    public var seconds: Double { Double(milliseconds) / 1000 }

    /// Orders by length.
    public static func < (a: VirtualDuration, b: VirtualDuration) -> Bool { a.milliseconds < b.milliseconds }
    /// The sum of two durations.
    public static func + (a: VirtualDuration, b: VirtualDuration) -> VirtualDuration {
        VirtualDuration(milliseconds: a.milliseconds + b.milliseconds)
    }
    /// The difference of two durations.
    public static func - (a: VirtualDuration, b: VirtualDuration) -> VirtualDuration {
        VirtualDuration(milliseconds: a.milliseconds - b.milliseconds)
    }

    /// The canonical text form, e.g. `1h30m`, `90s` is printed as `1m30s`.
    public var description: String {
        if milliseconds == 0 { return "0s" }
        var rest = milliseconds < 0 ? -milliseconds : milliseconds
        var out = milliseconds < 0 ? "-" : ""
        for (unit, size) in VirtualDuration.units {
            let count = rest / size
            if count > 0 {
                out += "\(count)\(unit)"
                rest -= count * size
            }
        }
        return out
    }

    static let units: [(String, Int64)] = [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)]

    /// Parses `90s`, `10m`, `1h30m`, `2d`, `250ms` or `1.5h`.
    ///
    /// - Returns: `nil` when the text is not a duration (a bare number has no unit and is rejected).
    public init?(parsing text: String) {
        let scalars = Array(text.trimmingWhitespace().unicodeScalars)
        guard !scalars.isEmpty else { return nil }
        var index = 0
        var total: Double = 0
        var seenUnits: Set<String> = []
        while index < scalars.count {
            var number = ""
            while index < scalars.count, CharacterClass.isDigitOrDot(scalars[index]) {
                number.unicodeScalars.append(scalars[index])
                index += 1
            }
            var unit = ""
            while index < scalars.count, CharacterClass.isLetter(scalars[index]) {
                unit.unicodeScalars.append(scalars[index])
                index += 1
            }
            guard let value = Double(number), !unit.isEmpty,
                let size = VirtualDuration.units.first(where: { $0.0 == unit })?.1,
                !seenUnits.contains(unit)
            else { return nil }
            seenUnits.insert(unit)
            total += value * Double(size)
        }
        guard total.isFinite, total < 9.0e15 else { return nil }
        self.milliseconds = Int64(total.rounded())
    }
}

enum CharacterClass {
    static func isDigitOrDot(_ unicode: Unicode.Scalar) -> Bool { (unicode >= "0" && unicode <= "9") || unicode == "." }
    static func isLetter(_ unicode: Unicode.Scalar) -> Bool {
        (unicode >= "a" && unicode <= "z") || (unicode >= "A" && unicode <= "Z")
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    public func trimmingWhitespace() -> String {
        let ws: Set<Character> = [" ", "\t", "\n", "\r"]
        var trimmed = Substring(self)
        while let first = trimmed.first, ws.contains(first) { trimmed.removeFirst() }
        while let last = trimmed.last, ws.contains(last) { trimmed.removeLast() }
        return String(trimmed)
    }
}
