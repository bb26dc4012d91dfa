import VitalSimCore

/// The shared shape of IEEE 11073-20601 SFLOAT and FLOAT: a two's-complement exponent over a
/// two's-complement mantissa, with reserved special values at exponent 0.
public protocol MedicalFloat: Hashable, Sendable, CustomStringConvertible {
    associatedtype Raw: FixedWidthInteger & UnsignedInteger & Sendable
    /// Mantissa width in bits (12 or 24).
    static var mantissaBits: Int { get }
    /// Largest mantissa magnitude the encoder emits (keeps clear of the special values).
    static var maxMantissa: Int { get }
    static var exponentRange: ClosedRange<Int> { get }
    /// Wire values of NaN, NRes, +INFINITY, −INFINITY and RFU, in that order.
    static var specialRaws: [Raw] { get }
    var raw: Raw { get }
    init(raw: Raw)
}

/// The special values shared by SFLOAT and FLOAT.
public enum MedicalFloatSpecial: String, Sendable, CaseIterable {
    case nan = "NaN"
    case nres = "NRes"
    case positiveInfinity = "+INFINITY"
    case negativeInfinity = "-INFINITY"
    case reserved = "RFU"
}

extension MedicalFloat {
    /// A special value.
    public init(_ special: MedicalFloatSpecial) { self.init(raw: Self.specialRaws[MedicalFloatSpecial.allCases.firstIndex(of: special)!]) }

    /// Exact construction; nil when the mantissa or exponent does not fit.
    public init?(mantissa: Int, exponent: Int) {
        guard abs(mantissa) <= Self.maxMantissa, Self.exponentRange.contains(exponent) else { return nil }
        let mask = (1 << Self.mantissaBits) - 1
        let expMask = (1 << (Raw.bitWidth - Self.mantissaBits)) - 1
        self.init(raw: Raw(truncatingIfNeeded: (exponent & expMask) << Self.mantissaBits | (mantissa & mask)))
    }

    /// Rounds `value` to the resolution 10^`exponent` (half away from zero); nil when out of range or not finite.
    public init?(_ value: Double, exponent: Int) {
        guard value.isFinite else { return nil }
        let m = (value / Math10.pow10(exponent)).rounded(.toNearestOrAwayFromZero)
        guard abs(m) <= Double(Self.maxMantissa) else { return nil }
        self.init(mantissa: Int(m), exponent: exponent)
    }

    /// Parses a decimal such as `120`, `0.0055`, `-1.5` or `12E2`, or a special name; keeps the written precision.
    public init?(decimal text: String) {
        if let s = MedicalFloatSpecial.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) {
            self.init(s)
            return
        }
        guard var (m, e) = Decimal10.parse(text) else { return nil }
        Decimal10.normalize(&m, &e, maxMantissa: Self.maxMantissa, exponentRange: Self.exponentRange)
        self.init(mantissa: m, exponent: e)
    }

    /// The special value this is, if any.
    public var special: MedicalFloatSpecial? { Self.specialRaws.firstIndex(of: raw).map { MedicalFloatSpecial.allCases[$0] } }

    /// The sign-extended mantissa.
    public var mantissa: Int {
        let shift = Int.bitWidth - Self.mantissaBits
        return (Int(truncatingIfNeeded: raw) << shift) >> shift
    }

    /// The sign-extended exponent.
    public var exponent: Int {
        let width = Raw.bitWidth - Self.mantissaBits
        let shift = Int.bitWidth - width
        return (Int(truncatingIfNeeded: raw >> Self.mantissaBits) << shift) >> shift
    }

    /// The numeric value (NaN for NaN, NRes and RFU; ±infinity).
    public var value: Double {
        switch special {
        case .positiveInfinity?: .infinity
        case .negativeInfinity?: -.infinity
        case .nan?, .nres?, .reserved?: .nan
        // Dividing by an exact power of ten gives the correctly rounded double (36.8, not 36.800000000000004).
        case nil: exponent < 0 ? Double(mantissa) / Math10.pow10(-exponent) : Double(mantissa) * Math10.pow10(exponent)
        }
    }

    /// Exact decimal text, e.g. `0.0055`, `120`, `12E2`, or the special name.
    public var description: String { special?.rawValue ?? Decimal10.format(mantissa, exponent) }

    /// JSON number text, or a quoted special name.
    var jsonText: String { special.map { "\"\($0.rawValue)\"" } ?? description }
}

/// IEEE 11073-20601 16-bit SFLOAT: 4-bit exponent, 12-bit mantissa.
public struct SFloat: MedicalFloat {
    /// The special values (NaN, NRes, +INFINITY, -INFINITY, reserved).
    public typealias Special = MedicalFloatSpecial
    /// Bits of the two's-complement mantissa.
    public static let mantissaBits = 12
    /// The largest mantissa magnitude that is not a special value.
    public static let maxMantissa = 2045
    /// The exponents the format can carry.
    public static let exponentRange = -8...7
    /// Raw encodings of the special values, in ``MedicalFloatSpecial`` order.
    public static let specialRaws: [UInt16] = [0x07FF, 0x0800, 0x07FE, 0x0802, 0x0801]
    /// The 16-bit wire value.
    public let raw: UInt16
    /// The value with this raw encoding.
    public init(raw: UInt16) { self.raw = raw }
}

/// IEEE 11073-20601 32-bit FLOAT: 8-bit exponent, 24-bit mantissa.
public struct MedFloat: MedicalFloat {
    /// The special values (NaN, NRes, +INFINITY, -INFINITY, reserved).
    public typealias Special = MedicalFloatSpecial
    /// Bits of the two's-complement mantissa.
    public static let mantissaBits = 24
    /// The largest mantissa magnitude that is not a special value.
    public static let maxMantissa = 8_388_605
    /// The exponents the format can carry.
    public static let exponentRange = -128...127
    /// Raw encodings of the special values, in ``MedicalFloatSpecial`` order.
    public static let specialRaws: [UInt32] = [0x007F_FFFF, 0x0080_0000, 0x007F_FFFE, 0x0080_0002, 0x0080_0001]
    /// The 32-bit wire value.
    public let raw: UInt32
    /// The value with this raw encoding.
    public init(raw: UInt32) { self.raw = raw }
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
        if chars.first == "-" || chars.first == "+" {
            negative = chars.first == "-"
            chars.removeFirst()
        }
        var m = 0
        var seenDot = false
        var digits = 0
        for c in chars {
            if c == "." {
                if seenDot { return nil }
                seenDot = true
                continue
            }
            guard let d = c.wholeNumberValue, c.isASCII else { return nil }
            guard m < Int.max / 20 else { return nil }
            m = m * 10 + d
            digits += 1
            if seenDot { exp -= 1 }
        }
        guard digits > 0 else { return nil }
        return (negative ? -m : m, exp)
    }

    static func normalize(_ m: inout Int, _ e: inout Int, maxMantissa: Int, exponentRange: ClosedRange<Int>) {
        while abs(m) > maxMantissa, m % 10 == 0 {
            m /= 10
            e += 1
        }
        while e > exponentRange.upperBound, abs(m) * 10 <= maxMantissa {
            m *= 10
            e -= 1
        }
        while e < exponentRange.lowerBound, m % 10 == 0, m != 0 {
            m /= 10
            e += 1
        }
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
