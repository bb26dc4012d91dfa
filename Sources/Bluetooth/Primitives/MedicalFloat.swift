import VitalSimCore

/// The shared shape of IEEE 11073-20601 SFLOAT and FLOAT: a two's-complement exponent over a
/// two's-complement mantissa, with reserved special values at exponent 0.
public protocol MedicalFloat: Hashable, Sendable, CustomStringConvertible {
    associatedtype Raw: FixedWidthInteger & UnsignedInteger & Sendable
    /// Mantissa width in bits (12 or 24).
    static var mantissaBits: Int { get }
    /// Largest mantissa magnitude the encoder emits (keeps clear of the special values).
    static var maxMantissa: Int { get }
    /// The exponents the format can carry.
    static var exponentRange: ClosedRange<Int> { get }
    /// Wire values of NaN, NRes, +INFINITY, −INFINITY and RFU, in that order.
    static var specialRaws: [Raw] { get }
    /// The wire value.
    var raw: Raw { get }
    /// The value with this wire encoding.
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

/// The members on the encoding and decoding paths are `@inlinable`: the characteristics (in `GATT`)
/// call them for every value, and a generic call across modules is not specialized otherwise.
extension MedicalFloat {
    /// A special value.
    @inlinable
    public init(_ special: MedicalFloatSpecial) {
        self.init(raw: Self.specialRaws[MedicalFloatSpecial.allCases.firstIndex(of: special)!])
    }

    /// Exact construction; nil when the mantissa or exponent does not fit.
    @inlinable
    public init?(mantissa: Int, exponent: Int) {
        guard abs(mantissa) <= Self.maxMantissa, Self.exponentRange.contains(exponent) else { return nil }
        let mask = (1 << Self.mantissaBits) - 1
        let expMask = (1 << (Raw.bitWidth - Self.mantissaBits)) - 1
        self.init(raw: Raw(truncatingIfNeeded: (exponent & expMask) << Self.mantissaBits | (mantissa & mask)))
    }

    /// Rounds `value` to the resolution 10^`exponent` (half away from zero); nil when out of range or not finite.
    @inlinable
    public init?(_ value: Double, exponent: Int) {
        guard value.isFinite else { return nil }
        let m = (value / Decimal10.pow10(exponent)).rounded(.toNearestOrAwayFromZero)
        guard abs(m) <= Double(Self.maxMantissa) else { return nil }
        self.init(mantissa: Int(m), exponent: exponent)
    }

    /// Parses a decimal such as `120`, `0.0055`, `-1.5` or `12E2`, or a special name; keeps the written precision.
    public init?(decimal text: String) {
        if let special = MedicalFloatSpecial.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) {
            self.init(special)
            return
        }
        guard var (m, e) = Decimal10.parse(text) else { return nil }
        Decimal10.normalize(&m, &e, maxMantissa: Self.maxMantissa, exponentRange: Self.exponentRange)
        self.init(mantissa: m, exponent: e)
    }

    /// The special value this is, if any.
    @inlinable
    public var special: MedicalFloatSpecial? {
        Self.specialRaws.firstIndex(of: raw).map { MedicalFloatSpecial.allCases[$0] }
    }

    /// The sign-extended mantissa.
    @inlinable
    public var mantissa: Int {
        let shift = Int.bitWidth - Self.mantissaBits
        return (Int(truncatingIfNeeded: raw) << shift) >> shift
    }

    /// The sign-extended exponent.
    @inlinable
    public var exponent: Int {
        let width = Raw.bitWidth - Self.mantissaBits
        let shift = Int.bitWidth - width
        return (Int(truncatingIfNeeded: raw >> Self.mantissaBits) << shift) >> shift
    }

    /// The numeric value (NaN for NaN, NRes and RFU; ±infinity).
    @inlinable
    public var value: Double {
        switch special {
        case .positiveInfinity?: .infinity
        case .negativeInfinity?: -.infinity
        case .nan?, .nres?, .reserved?: .nan
        // Dividing by an exact power of ten gives the correctly rounded double (36.8, not 36.800000000000004).
        case nil:
            exponent < 0 ? Double(mantissa) / Decimal10.pow10(-exponent) : Double(mantissa) * Decimal10.pow10(exponent)
        }
    }

    /// Exact decimal text, e.g. `0.0055`, `120`, `12E2`, or the special name.
    public var description: String { special?.rawValue ?? Decimal10.format(mantissa, exponent) }

    /// JSON number text, or a quoted special name.
    package var jsonText: String { special.map { "\"\($0.rawValue)\"" } ?? description }

    /// The JSON members of a value called `name`: the number (or the special value's name) and, for
    /// a number, its exponent as `nameExponent`. A JSON reader that turns `-65290E7` into a double
    /// loses the exponent the bytes carry; with the exponent beside it, the value re-encodes exactly.
    package func jsonFields(_ name: String) -> [(String, JSONValue)] {
        special == nil
            ? [(name, .decimal(jsonText)), (name + "Exponent", .int(Int64(exponent)))] : [(name, .decimal(jsonText))]
    }

    /// The value of decimal `text` at the fixed `exponent` (the mantissa rounded half away from
    /// zero, as a double reader may have added noise in the last digits); nil when it does not fit
    /// or is not within a millionth of a step of the text.
    public init?(decimal text: String, exponent: Int) {
        guard let value = Double(text), value.isFinite, let float = Self(value, exponent: exponent) else { return nil }
        let step = Decimal10.pow10(exponent)
        guard abs(Double(float.mantissa) * step - value) <= step * 1e-6 + abs(value) * 1e-12 else { return nil }
        self = float
    }
}
