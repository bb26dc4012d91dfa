import GATT
import VitalSimCore

/// The ATT/GATT server of one peripheral: answers discovery, reads and writes from its
/// ``GATTDatabase``, keeps CCCD state per connection, and serves RACP requests from stored records.
///
/// Not thread-safe: its owner (``HCIPeripheral``) calls it only while holding the link's lock.
package final class ATTServer {
    package let database: GATTDatabase
    /// Our receive MTU; the effective MTU is the smaller of both sides' (default 23).
    package let serverMTU = 247
    package private(set) var mtu = 23
    /// CCCD values by CCCD handle, for the current connection.
    package private(set) var cccd: [UInt16: UInt16] = [:]
    private var values: [UInt16: [UInt8]] = [:]
    /// Called for a RACP write (value bytes); returns nothing, the owner answers by indication.
    var onRACP: (([UInt8]) -> Void)?

    package init(database: GATTDatabase) {
        self.database = database
        for a in database.attributes { values[a.handle] = a.value }
    }

    /// Forgets per-connection state (CCCDs, MTU) after a disconnection.
    package func reset() {
        cccd = [:]
        mtu = 23
        for a in database.attributes where a.type == GATTAttributeType.clientCharacteristicConfiguration { values[a.handle] = [0, 0] }
    }

    /// True when the central enabled notifications (or indications) on `uuid`.
    package func subscribed(_ uuid: UInt16, indicate: Bool) -> Bool {
        guard let c = database.characteristic(uuid), let h = c.cccdHandle else { return false }
        return (cccd[h] ?? 0) & (indicate ? 2 : 1) != 0
    }

    /// True when any characteristic has notifications or indications enabled.
    package var anySubscription: Bool { cccd.values.contains { $0 != 0 } }

    /// True when every characteristic that has a CCCD has notifications or indications enabled.
    package var allSubscribed: Bool {
        database.services.allSatisfy { s in s.characteristics.allSatisfy { c in c.cccdHandle.map { (cccd[$0] ?? 0) != 0 } ?? true } }
    }

    /// Sets a readable value (e.g. Battery Level) served to reads.
    package func setValue(_ uuid: UInt16, _ value: [UInt8]) {
        if let c = database.characteristic(uuid) { values[c.valueHandle] = value }
    }

    func attribute(_ handle: UInt16) -> Attribute? {
        let i = Int(handle) - 1
        return i >= 0 && i < database.attributes.count ? database.attributes[i] : nil
    }

    func properties(of handle: UInt16) -> CharacteristicProperties? {
        for s in database.services { for c in s.characteristics where c.valueHandle == handle { return c.properties } }
        return nil
    }

    static func error(_ request: UInt8, _ handle: UInt16, _ code: UInt8) -> [UInt8] {
        [ATTOpcode.errorResponse, request, UInt8(handle & 0xFF), UInt8(handle >> 8), code]
    }

    static func le(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    /// Handles one ATT PDU from the central; returns the response PDU, if any.
    package func handle(_ pdu: [UInt8]) -> [UInt8]? {
        guard let op = pdu.first else { return nil }
        func u16(_ o: Int) -> UInt16? { o + 1 < pdu.count ? UInt16(pdu[o]) | UInt16(pdu[o + 1]) << 8 : nil }
        switch op {
        case ATTOpcode.exchangeMTURequest:
            guard let client = u16(1) else { return Self.error(op, 0, ATTErrorCode.invalidPDU) }
            mtu = max(23, min(Int(client), serverMTU))
            return [ATTOpcode.exchangeMTUResponse] + Self.le(UInt16(serverMTU))
        case ATTOpcode.findInformationRequest:
            guard let start = u16(1), let end = u16(3), start != 0, start <= end else {
                return Self.error(op, u16(1) ?? 0, ATTErrorCode.invalidHandle)
            }
            var out: [UInt8] = [ATTOpcode.findInformationResponse, 0x01]  // format 1: 16-bit UUIDs
            for a in database.attributes where a.handle >= start && a.handle <= end {
                guard out.count + 4 <= mtu else { break }
                out += Self.le(a.handle) + Self.le(a.type)
            }
            return out.count > 2 ? out : Self.error(op, start, ATTErrorCode.attributeNotFound)
        case ATTOpcode.findByTypeValueRequest:
            guard let start = u16(1), let end = u16(3), let type = u16(5), start != 0, start <= end else {
                return Self.error(op, u16(1) ?? 0, ATTErrorCode.invalidHandle)
            }
            let value = Array(pdu.dropFirst(7))
            var out: [UInt8] = [ATTOpcode.findByTypeValueResponse]
            for s in database.services
            where type == GATTAttributeType.primaryService && s.startHandle >= start && s.startHandle <= end && Self.le(s.uuid) == value {
                guard out.count + 4 <= mtu else { break }
                out += Self.le(s.startHandle) + Self.le(s.endHandle)
            }
            return out.count > 1 ? out : Self.error(op, start, ATTErrorCode.attributeNotFound)
        case ATTOpcode.readByTypeRequest:
            guard let start = u16(1), let end = u16(3), start != 0, start <= end else {
                return Self.error(op, u16(1) ?? 0, ATTErrorCode.invalidHandle)
            }
            guard pdu.count == 7, let type = u16(5) else {
                return Self.error(op, start, pdu.count == 21 ? ATTErrorCode.attributeNotFound : ATTErrorCode.invalidPDU)
            }
            var out: [UInt8] = [ATTOpcode.readByTypeResponse, 0]
            var length = 0
            for a in database.attributes where a.handle >= start && a.handle <= end && a.type == type {
                if ![
                    GATTAttributeType.characteristic, GATTAttributeType.primaryService, GATTAttributeType.clientCharacteristicConfiguration,
                ]
                .contains(a.type), let p = properties(of: a.handle), !p.contains(.read) {
                    if length == 0 { return Self.error(op, a.handle, ATTErrorCode.readNotPermitted) }
                    break
                }
                let v = Array((values[a.handle] ?? a.value).prefix(min(253, mtu - 4)))
                if length == 0 { length = v.count + 2 } else if v.count + 2 != length { break }
                guard out.count + length <= mtu else { break }
                out += Self.le(a.handle) + v
            }
            if length == 0 { return Self.error(op, start, ATTErrorCode.attributeNotFound) }
            out[1] = UInt8(length)
            return out
        case ATTOpcode.readRequest, ATTOpcode.readBlobRequest:
            guard let h = u16(1) else { return Self.error(op, 0, ATTErrorCode.invalidPDU) }
            guard let a = attribute(h) else { return Self.error(op, h, ATTErrorCode.invalidHandle) }
            if let p = properties(of: h), !p.contains(.read) { return Self.error(op, h, ATTErrorCode.readNotPermitted) }
            let v = values[h] ?? a.value
            let offset = op == ATTOpcode.readBlobRequest ? Int(u16(3) ?? 0) : 0
            guard offset <= v.count else { return Self.error(op, h, ATTErrorCode.invalidOffset) }
            return [op + 1] + Array(v[offset...].prefix(mtu - 1))  // Read Response, Read Blob Response
        case ATTOpcode.readByGroupTypeRequest:
            guard let start = u16(1), let end = u16(3), start != 0, start <= end else {
                return Self.error(op, u16(1) ?? 0, ATTErrorCode.invalidHandle)
            }
            guard pdu.count == 7, let type = u16(5) else { return Self.error(op, start, ATTErrorCode.invalidPDU) }
            guard type == GATTAttributeType.primaryService || type == GATTAttributeType.secondaryService else {
                return Self.error(op, start, ATTErrorCode.unsupportedGroupType)
            }
            var out: [UInt8] = [ATTOpcode.readByGroupTypeResponse, 6]
            for s in database.services where type == GATTAttributeType.primaryService && s.startHandle >= start && s.startHandle <= end {
                guard out.count + 6 <= mtu else { break }
                out += Self.le(s.startHandle) + Self.le(s.endHandle) + Self.le(s.uuid)
            }
            return out.count > 2 ? out : Self.error(op, start, ATTErrorCode.attributeNotFound)
        case ATTOpcode.writeRequest, ATTOpcode.writeCommand:
            let request = op == ATTOpcode.writeRequest
            guard let h = u16(1) else { return request ? Self.error(op, 0, ATTErrorCode.invalidPDU) : nil }
            let value = Array(pdu.dropFirst(3))
            let response: [UInt8]? = request ? [ATTOpcode.writeResponse] : nil
            guard let a = attribute(h) else { return request ? Self.error(op, h, ATTErrorCode.invalidHandle) : nil }
            if a.type == GATTAttributeType.clientCharacteristicConfiguration {
                guard value.count == 2 else { return request ? Self.error(op, h, ATTErrorCode.invalidAttributeValueLength) : nil }
                let v = UInt16(value[0]) | UInt16(value[1]) << 8
                let props = properties(of: h - 1) ?? []
                if v & 1 != 0 && !props.contains(.notify) || v & 2 != 0 && !props.contains(.indicate) || v > 3 {
                    return request ? Self.error(op, h, ATTErrorCode.cccdImproperlyConfigured) : nil
                }
                cccd[h] = v
                values[h] = value
                return response
            }
            guard let p = properties(of: h), p.contains(.write) || p.contains(.writeWithoutResponse) else {
                return request ? Self.error(op, h, ATTErrorCode.writeNotPermitted) : nil
            }
            if a.type == RecordAccessControlPoint.uuid {
                guard subscribed(RecordAccessControlPoint.uuid, indicate: true) else {
                    return request ? Self.error(op, h, ATTErrorCode.cccdImproperlyConfigured) : nil
                }
                onRACP?(value)
                return response
            }
            values[h] = value
            return response
        case ATTOpcode.handleValueConfirmation:  // handled by the host
            return nil
        default:
            // Commands (bit 6) get no error; unknown requests get Request Not Supported.
            return op & ATTOpcode.commandFlag != 0 ? nil : Self.error(op, 0, ATTErrorCode.requestNotSupported)
        }
    }
}
