/// Reads little-endian fields from a characteristic value, producing offset-precise errors.
///
/// Its methods are `@inlinable`: the decoders (in `GATT`) call them for every field, and a call
/// across modules per field is not inlined otherwise.
package struct ByteReader {
    package let bytes: [UInt8]
    package let characteristic: String
    /// The next byte to read.
    package var offset: Int

    @inlinable
    package init(_ bytes: [UInt8], characteristic: String, offset: Int = 0) {
        self.bytes = bytes
        self.characteristic = characteristic
        self.offset = offset
    }

    /// The longest attribute value ATT carries (Core Specification Vol 3 Part F §3.2.9): a
    /// characteristic value longer than this cannot come from a conforming device.
    package static let maxAttributeValue = 512

    /// A reader of a whole characteristic value; throws ``GATTError/tooLong(characteristic:length:limit:)``
    /// for a value longer than ``maxAttributeValue``, before any field is read.
    @inlinable
    package init(value bytes: [UInt8], characteristic: String) throws(GATTError) {
        try Self.checkLength(bytes, characteristic: characteristic)
        self.init(bytes, characteristic: characteristic)
    }

    /// Throws ``GATTError/tooLong(characteristic:length:limit:)`` for a value longer than
    /// ``maxAttributeValue`` (for decoders that split a value before reading it).
    @inlinable
    package static func checkLength(_ bytes: [UInt8], characteristic: String) throws(GATTError) {
        guard bytes.count <= maxAttributeValue else {
            throw .tooLong(characteristic: characteristic, length: bytes.count, limit: maxAttributeValue)
        }
    }

    /// Bytes not yet read.
    @inlinable
    package var remaining: Int { bytes.count - offset }

    @inlinable
    package mutating func need(_ n: Int, _ field: String) throws(GATTError) {
        if remaining < n {
            throw .truncated(
                characteristic: characteristic,
                offset: offset,
                field: field,
                needed: n,
                available: remaining
            )
        }
    }

    @inlinable
    package mutating func u8(_ field: String) throws(GATTError) -> UInt8 {
        try need(1, field)
        defer { offset += 1 }
        return bytes[offset]
    }

    @inlinable
    package mutating func u16(_ field: String) throws(GATTError) -> UInt16 {
        try need(2, field)
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    @inlinable
    package mutating func u24(_ field: String) throws(GATTError) -> UInt32 {
        try need(3, field)
        defer { offset += 3 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
    }

    @inlinable
    package mutating func u32(_ field: String) throws(GATTError) -> UInt32 {
        try need(4, field)
        defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(
            bytes[offset + 3]
        ) << 24
    }

    @inlinable
    package mutating func sfloat(_ field: String) throws(GATTError) -> SFloat { SFloat(raw: try u16(field)) }
    @inlinable
    package mutating func float32(_ field: String) throws(GATTError) -> MedFloat { MedFloat(raw: try u32(field)) }

    @inlinable
    package mutating func dateTime(_ field: String) throws(GATTError) -> DateTime {
        let start = offset
        try need(7, field)
        let dateTime = DateTime(
            year: try u16(field),
            month: try u8(field),
            day: try u8(field),
            hours: try u8(field),
            minutes: try u8(field),
            seconds: try u8(field)
        )
        if let problem = dateTime.problem {
            throw .invalidValue(characteristic: characteristic, offset: start, field: field, reason: problem)
        }
        return dateTime
    }

    @inlinable
    package mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    /// Throws when bytes remain.
    @inlinable
    package func finish() throws(GATTError) {
        if remaining > 0 { throw .trailingBytes(characteristic: characteristic, offset: offset, count: remaining) }
    }

    /// Throws when `value` has bits outside `allowed` set.
    @inlinable
    package func checkReserved(_ value: UInt32, allowed: UInt32, field: String, at offset: Int) throws(GATTError) {
        if value & ~allowed != 0 {
            throw .reservedBits(characteristic: characteristic, offset: offset, field: field, value: value & ~allowed)
        }
    }
}
