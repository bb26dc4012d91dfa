/// Read, Read Blob, Write Request and Write Command.
extension ATTServer {
    func read(_ request: ATTRequest) -> [UInt8] {
        let op = request.opcode
        guard let handle = request.u16(at: 1) else { return Self.error(op, 0, ATTErrorCode.invalidPDU) }
        guard let a = attribute(handle) else { return Self.error(op, handle, ATTErrorCode.invalidHandle) }
        if let p = properties(of: handle), !p.contains(.read) {
            return Self.error(op, handle, ATTErrorCode.readNotPermitted)
        }
        let value = values[handle] ?? a.value
        let offset = op == ATTOpcode.readBlobRequest ? Int(request.u16(at: 3) ?? 0) : 0
        guard offset <= value.count else { return Self.error(op, handle, ATTErrorCode.invalidOffset) }
        return [op + 1] + Array(value[offset...].prefix(mtu - 1))  // Read Response, Read Blob Response
    }

    /// The Write Response or the error; the caller drops either for a Write Command.
    func write(_ request: ATTRequest) -> [UInt8] {
        let op = request.opcode
        guard let handle = request.u16(at: 1) else { return Self.error(op, 0, ATTErrorCode.invalidPDU) }
        let value = Array(request.bytes.dropFirst(3))
        guard let a = attribute(handle) else { return Self.error(op, handle, ATTErrorCode.invalidHandle) }
        if a.type == GATTAttributeType.clientCharacteristicConfiguration { return writeCCCD(op, handle, value) }
        guard let p = properties(of: handle), p.contains(.write) || p.contains(.writeWithoutResponse) else {
            return Self.error(op, handle, ATTErrorCode.writeNotPermitted)
        }
        if a.type == RecordAccessControlPoint.uuid {
            guard subscribed(RecordAccessControlPoint.uuid, indicate: true) else {
                return Self.error(op, handle, ATTErrorCode.cccdImproperlyConfigured)
            }
            onRACP?(value)
            return [ATTOpcode.writeResponse]
        }
        values[handle] = value
        return [ATTOpcode.writeResponse]
    }

    private func writeCCCD(_ op: UInt8, _ h: UInt16, _ value: [UInt8]) -> [UInt8] {
        guard value.count == 2 else { return Self.error(op, h, ATTErrorCode.invalidAttributeValueLength) }
        let configuration = UInt16(value[0]) | UInt16(value[1]) << 8
        let props = properties(of: h - 1) ?? []
        if configuration & 1 != 0 && !props.contains(.notify) || configuration & 2 != 0 && !props.contains(.indicate)
            || configuration > 3
        {
            return Self.error(op, h, ATTErrorCode.cccdImproperlyConfigured)
        }
        cccd[h] = configuration
        values[h] = value
        return [ATTOpcode.writeResponse]
    }
}
