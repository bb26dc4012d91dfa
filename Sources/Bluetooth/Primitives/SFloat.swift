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
    @inlinable
    public init(raw: UInt16) { self.raw = raw }
}
