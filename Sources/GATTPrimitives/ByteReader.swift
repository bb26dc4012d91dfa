/// Reads little-endian fields from a characteristic value, producing offset-precise errors.
package struct ByteReader {
    package let bytes: [UInt8]
    package let characteristic: String
    /// The next byte to read.
    package private(set) var offset: Int

    package init(_ bytes: [UInt8], characteristic: String, offset: Int = 0) {
        self.bytes = bytes
        self.characteristic = characteristic
        self.offset = offset
    }

    /// Bytes not yet read.
    package var remaining: Int { bytes.count - offset }

    private mutating func need(_ n: Int, _ field: String) throws(GATTError) {
        if remaining < n {
            throw .truncated(characteristic: characteristic, offset: offset, field: field, needed: n, available: remaining)
        }
    }

    package mutating func u8(_ field: String) throws(GATTError) -> UInt8 {
        try need(1, field)
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func u16(_ field: String) throws(GATTError) -> UInt16 {
        try need(2, field)
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    package mutating func u24(_ field: String) throws(GATTError) -> UInt32 {
        try need(3, field)
        defer { offset += 3 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
    }

    package mutating func u32(_ field: String) throws(GATTError) -> UInt32 {
        try need(4, field)
        defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    package mutating func sfloat(_ field: String) throws(GATTError) -> SFloat { SFloat(raw: try u16(field)) }
    package mutating func float32(_ field: String) throws(GATTError) -> MedFloat { MedFloat(raw: try u32(field)) }

    package mutating func dateTime(_ field: String) throws(GATTError) -> DateTime {
        let start = offset
        try need(7, field)
        let d = DateTime(
            year: try u16(field),
            month: try u8(field),
            day: try u8(field),
            hours: try u8(field),
            minutes: try u8(field),
            seconds: try u8(field)
        )
        if let problem = d.problem {
            throw .invalidValue(characteristic: characteristic, offset: start, field: field, reason: problem)
        }
        return d
    }

    package mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    /// Throws when bytes remain.
    package func finish() throws(GATTError) {
        if remaining > 0 { throw .trailingBytes(characteristic: characteristic, offset: offset, count: remaining) }
    }

    /// Throws when `value` has bits outside `allowed` set.
    package func checkReserved(_ value: UInt32, allowed: UInt32, field: String, at offset: Int) throws(GATTError) {
        if value & ~allowed != 0 {
            throw .reservedBits(characteristic: characteristic, offset: offset, field: field, value: value & ~allowed)
        }
    }
}

/// Appends little-endian fields.
package struct ByteWriter {
    package private(set) var bytes: [UInt8] = []
    package init(capacity: Int = 20) { bytes.reserveCapacity(capacity) }
    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func u16(_ v: UInt16) {
        bytes.append(UInt8(v & 0xFF))
        bytes.append(UInt8(v >> 8))
    }
    package mutating func u24(_ v: UInt32) {
        u16(UInt16(v & 0xFFFF))
        u8(UInt8((v >> 16) & 0xFF))
    }
    package mutating func u32(_ v: UInt32) {
        u16(UInt16(v & 0xFFFF))
        u16(UInt16(v >> 16))
    }
    package mutating func sfloat(_ v: SFloat) { u16(v.raw) }
    package mutating func float32(_ v: MedFloat) { u32(v.raw) }
    package mutating func dateTime(_ d: DateTime) {
        u16(d.year)
        u8(d.month)
        u8(d.day)
        u8(d.hours)
        u8(d.minutes)
        u8(d.seconds)
    }
    package mutating func append(_ b: [UInt8]) { bytes.append(contentsOf: b) }
}
