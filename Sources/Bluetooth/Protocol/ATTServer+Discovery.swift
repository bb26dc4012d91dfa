/// Discovery requests: Find Information, Find By Type Value, Read By Type, Read By Group Type.
extension ATTServer {
    func findInformation(_ request: ATTRequest) -> [UInt8] {
        guard let (start, end) = request.handleRange else { return request.invalidRangeError }
        var out: [UInt8] = [ATTOpcode.findInformationResponse, 0x01]  // format 1: 16-bit UUIDs
        for a in database.attributes where a.handle >= start && a.handle <= end {
            guard out.count + 4 <= mtu else { break }
            out += Self.le(a.handle) + Self.le(a.type)
        }
        return out.count > 2 ? out : Self.error(request.opcode, start, ATTErrorCode.attributeNotFound)
    }

    func findByTypeValue(_ request: ATTRequest) -> [UInt8] {
        guard let (start, end) = request.handleRange, let type = request.u16(at: 5) else {
            return request.invalidRangeError
        }
        let value = Array(request.bytes.dropFirst(7))
        var out: [UInt8] = [ATTOpcode.findByTypeValueResponse]
        for s in database.services
        where type == GATTAttributeType.primaryService && s.startHandle >= start && s.startHandle <= end
            && Self.le(s.uuid) == value
        {
            guard out.count + 4 <= mtu else { break }
            out += Self.le(s.startHandle) + Self.le(s.endHandle)
        }
        return out.count > 1 ? out : Self.error(request.opcode, start, ATTErrorCode.attributeNotFound)
    }

    func readByType(_ request: ATTRequest) -> [UInt8] {
        let op = request.opcode
        guard let (start, end) = request.handleRange else { return request.invalidRangeError }
        guard request.bytes.count == 7, let type = request.u16(at: 5) else {
            // A 128-bit type (21 bytes) is valid but never present: VitalSim's databases use 16-bit UUIDs.
            return Self.error(
                op,
                start,
                request.bytes.count == 21 ? ATTErrorCode.attributeNotFound : ATTErrorCode.invalidPDU
            )
        }
        var out: [UInt8] = [ATTOpcode.readByTypeResponse, 0]
        var length = 0
        for a in database.attributes where a.handle >= start && a.handle <= end && a.type == type {
            if !Self.declarationTypes.contains(a.type), let p = properties(of: a.handle), !p.contains(.read) {
                if length == 0 { return Self.error(op, a.handle, ATTErrorCode.readNotPermitted) }
                break
            }
            let value = Array((values[a.handle] ?? a.value).prefix(min(253, mtu - 4)))
            if length == 0 { length = value.count + 2 } else if value.count + 2 != length { break }
            guard out.count + length <= mtu else { break }
            out += Self.le(a.handle) + value
        }
        if length == 0 { return Self.error(op, start, ATTErrorCode.attributeNotFound) }
        out[1] = UInt8(length)
        return out
    }

    func readByGroupType(_ request: ATTRequest) -> [UInt8] {
        let op = request.opcode
        guard let (start, end) = request.handleRange else { return request.invalidRangeError }
        guard request.bytes.count == 7, let type = request.u16(at: 5) else {
            return Self.error(op, start, ATTErrorCode.invalidPDU)
        }
        guard type == GATTAttributeType.primaryService || type == GATTAttributeType.secondaryService else {
            return Self.error(op, start, ATTErrorCode.unsupportedGroupType)
        }
        var out: [UInt8] = [ATTOpcode.readByGroupTypeResponse, 6]
        for s in database.services
        where type == GATTAttributeType.primaryService && s.startHandle >= start && s.startHandle <= end {
            guard out.count + 6 <= mtu else { break }
            out += Self.le(s.startHandle) + Self.le(s.endHandle) + Self.le(s.uuid)
        }
        return out.count > 2 ? out : Self.error(op, start, ATTErrorCode.attributeNotFound)
    }

    /// Attribute types that are always readable (declarations and CCCDs carry no read property).
    static let declarationTypes: Set<UInt16> = [
        GATTAttributeType.characteristic, GATTAttributeType.primaryService,
        GATTAttributeType.clientCharacteristicConfiguration,
    ]
}
