/// Read, Read Blob, Write Request and Write Command.
extension ATTServer {
    func read(_ request: ATTRequest) -> [UInt8] {
        let op = request.opcode
        guard let h = request.u16(at: 1) else { return Self.error(op, 0, ATTErrorCode.invalidPDU) }
        guard let a = attribute(h) else { return Self.error(op, h, ATTErrorCode.invalidHandle) }
        if let p = properties(of: h), !p.contains(.read) { return Self.error(op, h, ATTErrorCode.readNotPermitted) }
        let v = values[h] ?? a.value
        let offset = op == ATTOpcode.readBlobRequest ? Int(request.u16(at: 3) ?? 0) : 0
        guard offset <= v.count else { return Self.error(op, h, ATTErrorCode.invalidOffset) }
        return [op + 1] + Array(v[offset...].prefix(mtu - 1))  // Read Response, Read Blob Response
    }

    /// The Write Response or the error; the caller drops either for a Write Command.
    func write(_ request: ATTRequest) -> [UInt8] {
        let op = request.opcode
        guard let h = request.u16(at: 1) else { return Self.error(op, 0, ATTErrorCode.invalidPDU) }
        let value = Array(request.bytes.dropFirst(3))
        guard let a = attribute(h) else { return Self.error(op, h, ATTErrorCode.invalidHandle) }
        if a.type == GATTAttributeType.clientCharacteristicConfiguration { return writeCCCD(op, h, value) }
        guard let p = properties(of: h), p.contains(.write) || p.contains(.writeWithoutResponse) else {
            return Self.error(op, h, ATTErrorCode.writeNotPermitted)
        }
        if a.type == RecordAccessControlPoint.uuid {
            guard subscribed(RecordAccessControlPoint.uuid, indicate: true) else {
                return Self.error(op, h, ATTErrorCode.cccdImproperlyConfigured)
            }
            onRACP?(value)
            return [ATTOpcode.writeResponse]
        }
        values[h] = value
        return [ATTOpcode.writeResponse]
    }

    private func writeCCCD(_ op: UInt8, _ h: UInt16, _ value: [UInt8]) -> [UInt8] {
        guard value.count == 2 else { return Self.error(op, h, ATTErrorCode.invalidAttributeValueLength) }
        let v = UInt16(value[0]) | UInt16(value[1]) << 8
        let props = properties(of: h - 1) ?? []
        if v & 1 != 0 && !props.contains(.notify) || v & 2 != 0 && !props.contains(.indicate) || v > 3 {
            return Self.error(op, h, ATTErrorCode.cccdImproperlyConfigured)
        }
        cccd[h] = v
        values[h] = value
        return [ATTOpcode.writeResponse]
    }
}
