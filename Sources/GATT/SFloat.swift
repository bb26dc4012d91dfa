import VitalSimCore

/// IEEE 11073-20601 16-bit SFLOAT: 4-bit two's-complement exponent, 12-bit two's-complement mantissa.
public struct SFloat: Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit wire value.
    public let raw: UInt16

    /// The reserved special values (all with exponent 0).
    public enum Special: String, Sendable, CaseIterable {
        case nan = "NaN", nres = "NRes", positiveInfinity = "+INFINITY", negativeInfinity = "-INFINITY", reserved = "RFU"
        var raw: UInt16 {
            switch self {
            case .nan: 0x07FF
            case .nres: 0x0800
            case .positiveInfinity: 0x07FE
            case .negativeInfinity: 0x0802
            case .reserved: 0x0801
            }
        }
    }

    /// Largest mantissa magnitude the encoder emits (keeps clear of the special values).
    public static let maxMantissa = 2045

    public init(raw: UInt16) { self.raw = raw }
    public init(_ special: Special) { raw = special.raw }

    /// Exact construction; nil when the mantissa or exponent does not fit.
    public init?(mantissa: Int, exponent: Int) {
        guard abs(mantissa) <= SFloat.maxMantissa, (-8...7).contains(exponent) else { return nil }
        raw = UInt16(truncatingIfNeeded: exponent & 0xF) << 12 | UInt16(truncatingIfNeeded: mantissa & 0xFFF)
    }

    /// Rounds `value` to the resolution 10^`exponent` (half away from zero); nil when out of range or not finite.
    public init?(_ value: Double, exponent: Int) {
        guard value.isFinite else { return nil }
        let m = (value / Math10.pow10(exponent)).rounded(.toNearestOrAwayFromZero)
        guard abs(m) <= Double(SFloat.maxMantissa) else { return nil }
        self.init(mantissa: Int(m), exponent: exponent)
    }

    /// Parses a decimal such as `120`, `0.0055`, `-1.5` or `12E2`, or a special name; keeps the written precision.
    public init?(decimal text: String) {
        if let s = Special.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) { self.init(s); return }
        guard var (m, e) = Decimal10.parse(text) else { return nil }
        Decimal10.normalize(&m, &e, maxMantissa: SFloat.maxMantissa, exponentRange: -8...7)
        self.init(mantissa: m, exponent: e)
    }

    /// The special value this is, if any.
    public var special: Special? { Special.allCases.first { $0.raw == raw } }
    /// The sign-extended mantissa.
    public var mantissa: Int { Int(Int16(bitPattern: raw << 4) >> 4) }
    /// The sign-extended exponent.
    public var exponent: Int { Int(Int8(bitPattern: UInt8(raw >> 12) << 4) >> 4) }

    /// The numeric value (NaN for NaN, NRes and RFU; ±infinity).
    public var value: Double {
        switch special {
        case .positiveInfinity?: .infinity
        case .negativeInfinity?: -.infinity
        case .nan?, .nres?, .reserved?: .nan
        case nil: Double(mantissa) * Math10.pow10(exponent)
        }
    }

    /// Exact decimal text, e.g. `0.0055`, `120`, `12E2`, or the special name.
    public var description: String { special?.rawValue ?? Decimal10.format(mantissa, exponent) }
}

/// IEEE 11073-20601 32-bit FLOAT: 8-bit two's-complement exponent, 24-bit two's-complement mantissa.
public struct MedFloat: Hashable, Sendable, CustomStringConvertible {
    public let raw: UInt32
    public static let maxMantissa = 8_388_605

    public enum Special: String, Sendable, CaseIterable {
        case nan = "NaN", nres = "NRes", positiveInfinity = "+INFINITY", negativeInfinity = "-INFINITY", reserved = "RFU"
        var raw: UInt32 {
            switch self {
            case .nan: 0x007F_FFFF
            case .nres: 0x0080_0000
            case .positiveInfinity: 0x007F_FFFE
            case .negativeInfinity: 0x0080_0002
            case .reserved: 0x0080_0001
            }
        }
    }

    public init(raw: UInt32) { self.raw = raw }
    public init(_ special: Special) { raw = special.raw }

    public init?(mantissa: Int, exponent: Int) {
        guard abs(mantissa) <= MedFloat.maxMantissa, (-128...127).contains(exponent) else { return nil }
        raw = UInt32(truncatingIfNeeded: exponent & 0xFF) << 24 | UInt32(truncatingIfNeeded: mantissa & 0xFF_FFFF)
    }

    public init?(_ value: Double, exponent: Int) {
        guard value.isFinite else { return nil }
        let m = (value / Math10.pow10(exponent)).rounded(.toNearestOrAwayFromZero)
        guard abs(m) <= Double(MedFloat.maxMantissa) else { return nil }
        self.init(mantissa: Int(m), exponent: exponent)
    }

    public init?(decimal text: String) {
        if let s = Special.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) { self.init(s); return }
        guard var (m, e) = Decimal10.parse(text) else { return nil }
        Decimal10.normalize(&m, &e, maxMantissa: MedFloat.maxMantissa, exponentRange: -128...127)
        self.init(mantissa: m, exponent: e)
    }

    public var special: Special? { Special.allCases.first { $0.raw == raw } }
    public var mantissa: Int { Int(Int32(bitPattern: raw << 8) >> 8) }
    public var exponent: Int { Int(Int8(bitPattern: UInt8(raw >> 24))) }

    public var value: Double {
        switch special {
        case .positiveInfinity?: .infinity
        case .negativeInfinity?: -.infinity
        case .nan?, .nres?, .reserved?: .nan
        case nil: Double(mantissa) * Math10.pow10(exponent)
        }
    }

    public var description: String { special?.rawValue ?? Decimal10.format(mantissa, exponent) }
}

enum Math10 {
    static func pow10(_ e: Int) -> Double {
        var r = 1.0
        if e >= 0 { for _ in 0..<e { r *= 10 } } else { for _ in 0..<(-e) { r /= 10 } }
        return r
    }
}

/// Exact decimal text <-> (mantissa, exponent).
enum Decimal10 {
    static func parse(_ text: String) -> (Int, Int)? {
        var chars = Array(text.trimmingWhitespace())
        guard !chars.isEmpty else { return nil }
        var exp = 0
        if let eIndex = chars.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let x = Int(String(chars[(eIndex + 1)...])) else { return nil }
            exp = x
            chars = Array(chars[..<eIndex])
        }
        var negative = false
        if chars.first == "-" || chars.first == "+" { negative = chars.first == "-"; chars.removeFirst() }
        var m = 0, seenDot = false, digits = 0
        for c in chars {
            if c == "." { if seenDot { return nil }; seenDot = true; continue }
            guard let d = c.wholeNumberValue, c.isASCII else { return nil }
            guard m < Int.max / 20 else { return nil }
            m = m * 10 + d; digits += 1
            if seenDot { exp -= 1 }
        }
        guard digits > 0 else { return nil }
        return (negative ? -m : m, exp)
    }

    static func normalize(_ m: inout Int, _ e: inout Int, maxMantissa: Int, exponentRange: ClosedRange<Int>) {
        while abs(m) > maxMantissa, m % 10 == 0 { m /= 10; e += 1 }
        while e > exponentRange.upperBound, abs(m) * 10 <= maxMantissa { m *= 10; e -= 1 }
        while e < exponentRange.lowerBound, m % 10 == 0, m != 0 { m /= 10; e += 1 }
        if m == 0 { e = Swift.min(Swift.max(e, exponentRange.lowerBound), exponentRange.upperBound) }
    }

    static func format(_ m: Int, _ e: Int) -> String {
        if e >= 0 { return e == 0 ? String(m) : "\(m)E\(e)" }
        let neg = m < 0
        var digits = String(abs(m))
        let frac = -e
        if digits.count <= frac { digits = String(repeating: "0", count: frac - digits.count + 1) + digits }
        let split = digits.index(digits.endIndex, offsetBy: -frac)
        return (neg ? "-" : "") + digits[..<split] + "." + digits[split...]
    }
}
