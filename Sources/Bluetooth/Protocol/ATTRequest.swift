/// A received ATT request PDU with little-endian field access.
struct ATTRequest {
    /// The whole PDU, opcode first.
    let bytes: [UInt8]

    /// The request opcode.
    var opcode: UInt8 { bytes[0] }

    /// The 16-bit little-endian field at `offset`, or nil when the PDU is too short.
    func u16(at offset: Int) -> UInt16? {
        offset + 1 < bytes.count ? UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 : nil
    }

    /// The starting and ending handles of a range request, or nil when absent, zero or reversed.
    var handleRange: (start: UInt16, end: UInt16)? {
        guard let start = u16(at: 1), let end = u16(at: 3), start != 0, start <= end else { return nil }
        return (start, end)
    }

    /// The Invalid Handle error a range request without a valid range gets.
    var invalidRangeError: [UInt8] { ATTServer.error(opcode, u16(at: 1) ?? 0, ATTErrorCode.invalidHandle) }
}
