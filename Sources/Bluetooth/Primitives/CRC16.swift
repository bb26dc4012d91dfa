/// CRC-16/MCRF4XX (poly 0x1021 reflected = 0x8408, init 0xFFFF, no final XOR): the CGMS E2E-CRC.
public enum CRC16 {
    /// The CRC of `bytes`.
    @inlinable
    public static func mcrf4xx<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        var crc: UInt16 = 0xFFFF
        for b in bytes {
            crc ^= UInt16(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x8408 : crc >> 1 }
        }
        return crc
    }
}
