import VitalSimCore

/// The ATT/GATT server of one peripheral: answers discovery, reads and writes from its
/// ``GATTDatabase``, keeps CCCD state per connection, and serves RACP requests from stored records.
///
/// Not thread-safe: its owner (``HCIPeripheral``) calls it only while holding the link's lock.
package final class ATTServer {
    package let database: GATTDatabase
    /// Our receive MTU; the effective MTU is the smaller of both sides' (default 23).
    package let serverMTU = 247
    package internal(set) var mtu = 23
    /// CCCD values by CCCD handle, for the current connection.
    package internal(set) var cccd: [UInt16: UInt16] = [:]
    /// Attribute values by handle (initially the database's; written CCCDs and characteristics).
    var values: [UInt16: [UInt8]] = [:]
    /// Called for a RACP write (value bytes); returns nothing, the owner answers by indication.
    package var onRACP: (([UInt8]) -> Void)?

    package init(database: GATTDatabase) {
        self.database = database
        for a in database.attributes { values[a.handle] = a.value }
    }

    /// Forgets per-connection state (CCCDs, MTU) after a disconnection.
    package func reset() {
        cccd = [:]
        mtu = 23
        for a in database.attributes where a.type == GATTAttributeType.clientCharacteristicConfiguration {
            values[a.handle] = [0, 0]
        }
    }

    /// True when the central enabled notifications (or indications) on `uuid`.
    package func subscribed(_ uuid: UInt16, indicate: Bool) -> Bool {
        guard let characteristic = database.characteristic(uuid), let h = characteristic.cccdHandle else {
            return false
        }
        return (cccd[h] ?? 0) & (indicate ? 2 : 1) != 0
    }

    /// True when any characteristic has notifications or indications enabled.
    package var anySubscription: Bool { cccd.values.contains { $0 != 0 } }

    /// True when every characteristic that has a CCCD has notifications or indications enabled.
    package var allSubscribed: Bool {
        database.services.allSatisfy { s in
            s.characteristics.allSatisfy { c in c.cccdHandle.map { (cccd[$0] ?? 0) != 0 } ?? true }
        }
    }

    /// Sets a readable value (e.g. Battery Level) served to reads.
    package func setValue(_ uuid: UInt16, _ value: [UInt8]) {
        if let characteristic = database.characteristic(uuid) { values[characteristic.valueHandle] = value }
    }

    func attribute(_ handle: UInt16) -> Attribute? {
        let index = Int(handle) - 1
        return index >= 0 && index < database.attributes.count ? database.attributes[index] : nil
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
        let request = ATTRequest(bytes: pdu)
        switch op {
        case ATTOpcode.exchangeMTURequest:
            guard let client = request.u16(at: 1) else { return Self.error(op, 0, ATTErrorCode.invalidPDU) }
            mtu = max(23, min(Int(client), serverMTU))
            return [ATTOpcode.exchangeMTUResponse] + Self.le(UInt16(serverMTU))
        case ATTOpcode.findInformationRequest: return findInformation(request)
        case ATTOpcode.findByTypeValueRequest: return findByTypeValue(request)
        case ATTOpcode.readByTypeRequest: return readByType(request)
        case ATTOpcode.readRequest, ATTOpcode.readBlobRequest: return read(request)
        case ATTOpcode.readByGroupTypeRequest: return readByGroupType(request)
        case ATTOpcode.writeRequest, ATTOpcode.writeCommand:
            let response = write(request)
            return op == ATTOpcode.writeRequest ? response : nil  // commands get no response, not even an error
        case ATTOpcode.handleValueConfirmation:  // handled by the host
            return nil
        default:
            // Commands (bit 6) get no error; unknown requests get Request Not Supported.
            return op & ATTOpcode.commandFlag != 0 ? nil : Self.error(op, 0, ATTErrorCode.requestNotSupported)
        }
    }
}
