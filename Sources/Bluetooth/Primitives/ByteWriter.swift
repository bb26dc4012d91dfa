/// Appends little-endian fields (`@inlinable`, as ``ByteReader``: the encoders call it per field).
package struct ByteWriter {
    package var bytes: [UInt8] = []
    @inlinable
    package init(capacity: Int = 20) { bytes.reserveCapacity(capacity) }
    @inlinable
    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    @inlinable
    package mutating func u16(_ v: UInt16) {
        bytes.append(UInt8(v & 0xFF))
        bytes.append(UInt8(v >> 8))
    }
    @inlinable
    package mutating func u24(_ v: UInt32) {
        u16(UInt16(v & 0xFFFF))
        u8(UInt8((v >> 16) & 0xFF))
    }
    @inlinable
    package mutating func u32(_ v: UInt32) {
        u16(UInt16(v & 0xFFFF))
        u16(UInt16(v >> 16))
    }
    @inlinable
    package mutating func sfloat(_ sFloat: SFloat) { u16(sFloat.raw) }
    @inlinable
    package mutating func float32(_ medFloat: MedFloat) { u32(medFloat.raw) }
    @inlinable
    package mutating func dateTime(_ d: DateTime) {
        u16(d.year)
        u8(d.month)
        u8(d.day)
        u8(d.hours)
        u8(d.minutes)
        u8(d.seconds)
    }
    @inlinable
    package mutating func append(_ b: [UInt8]) { bytes.append(contentsOf: b) }
}
