/// Why bytes could not be decoded, or values could not be encoded, for a GATT characteristic.
///
/// Every case names the characteristic and, for decoding, the byte offset where the problem is.
public enum GATTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The value ended before a field that the flags announce.
    case truncated(characteristic: String, offset: Int, field: String, needed: Int, available: Int)
    /// Bytes were left over after the last field the flags announce.
    case trailingBytes(characteristic: String, offset: Int, count: Int)
    /// Reserved-for-future-use bits are set in a flags or enumeration field.
    case reservedBits(characteristic: String, offset: Int, field: String, value: UInt32)
    /// A field holds a value the specification does not allow.
    case invalidValue(characteristic: String, offset: Int, field: String, reason: String)
    /// The E2E-CRC does not match the record.
    case crcMismatch(characteristic: String, offset: Int, expected: UInt16, found: UInt16)
    /// A value cannot be represented on the wire (encoding).
    case unencodable(characteristic: String, field: String, reason: String)
    /// The value is longer than an attribute value can be (512 bytes).
    case tooLong(characteristic: String, length: Int, limit: Int)
    /// The characteristic is not known to VitalSim.
    case unknownCharacteristic(String)

    /// A message naming what is wrong and where.
    public var description: String {
        switch self {
        case let .truncated(c, o, f, n, a):
            "\(c): truncated at byte \(o): \(f) needs \(n) byte(s) but \(a) remain"
        case let .trailingBytes(c, o, n):
            "\(c): \(n) unexpected byte(s) at offset \(o) after the last field announced by the flags"
        case let .reservedBits(c, o, f, v):
            "\(c): reserved bits set in \(f) at byte \(o) (0x\(String(v, radix: 16, uppercase: true)))"
        case let .invalidValue(c, o, f, r):
            "\(c): invalid \(f) at byte \(o): \(r)"
        case let .crcMismatch(c, o, e, f):
            "\(c): E2E-CRC mismatch at byte \(o): computed 0x\(hex16(e)), found 0x\(hex16(f))"
        case let .unencodable(c, f, r):
            "\(c): cannot encode \(f): \(r)"
        case let .tooLong(c, n, limit):
            "\(c): the value is \(n) bytes; an attribute value holds at most \(limit) (Core Specification Vol 3 Part F §3.2.9)"
        case let .unknownCharacteristic(n):
            "unknown characteristic '\(n)'; use a UUID such as 0x2A37 or a characteristic name such as heart-rate-measurement"
        }
    }
}

package func hex16(_ v: UInt16) -> String {
    let hex = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - hex.count) + hex
}
