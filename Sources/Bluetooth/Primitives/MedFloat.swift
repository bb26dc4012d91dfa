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
    @inlinable
    public init(raw: UInt32) { self.raw = raw }
}
