import Bluetooth
import Dispatch
import Foundation
import VitalSimCore

/// An advertiser seen while scanning.
package struct Advertiser: Sendable, Equatable {
    /// Address in HCI order (least significant byte first).
    package var address: [UInt8]
    package var addressType: UInt8
    package var name: String
    package var services: [UInt16]
    /// `C0:DE:…` text (most significant byte first).
    package var addressString: String {
        address.reversed().map { Hex.encode([$0]).uppercased() }.joined(separator: ":")
    }
}

/// A characteristic found by discovery.
package struct DiscoveredCharacteristic: Sendable, Equatable {
    package var service: UInt16
    package var uuid: UInt16
    package var properties: CharacteristicProperties
    package var valueHandle: UInt16
    package var cccdHandle: UInt16?
}

/// A BLE central host over HCI: scans for advertisers, connects (LE Create Connection), discovers
/// services, characteristics and descriptors, enables notifications or indications (confirming each
/// indication) and hands every received value to `onValue`, on top of ``HCILink``. The BLE gateway role uses it.
///
/// Sendable: its mutable state is touched only with the link's `state` locked; `onValue` is set
/// before ``start()``.
package final class HCICentral: @unchecked Sendable {
    package let address: [UInt8]
    let link: HCILink
    var response: [UInt8]?
    var advertisers: [Advertiser] = []
    var handleToUUID: [UInt16: UInt16] = [:]
    let work = DispatchQueue(label: "vitalsim.ble.central")
    /// Called on a work queue with (characteristic UUID, value) for each notification or indication.
    package var onValue: (@Sendable (UInt16, [UInt8]) -> Void)?
    package private(set) var characteristics: [DiscoveredCharacteristic] = []

    package init(transport: any HCITransport, address: [UInt8], capture: BTSnoopWriter?) {
        self.address = address
        link = HCILink(transport: transport, capture: capture)
        link.onEvent = { [weak self] code, p in
            guard let self, code == HCIEvent.leMeta, p.count >= 2,
                p[0] == HCIEvent.leAdvertisingReport || p[0] == HCIEvent.leExtendedAdvertisingReport
            else { return }
            self.parseReports(Array(p[1...]), extended: p[0] == HCIEvent.leExtendedAdvertisingReport)
        }
        link.onATT = { [weak self] pdu in self?.att(pdu) }
    }

    package func start() throws(HCIError) { try link.start(name: "vitalsim-hci-central", randomAddress: address) }

    /// True while a connection is up (false after Disconnection Complete).
    package var isConnected: Bool {
        link.state.lock()
        defer { link.state.unlock() }
        return link.connection != nil && link.readerError == nil
    }

    /// Scans for `seconds` and returns the advertisers seen in this scan (first report per address).
    package func scan(seconds: TimeInterval) throws(HCIError) -> [Advertiser] {
        link.state.lock()
        advertisers = []
        link.state.unlock()
        // Active scanning, 10 ms interval and window, random own address.
        _ = try link.command(HCICommand.leSetScanParameters, [0x01, 0x10, 0x00, 0x10, 0x00, 0x01, 0x00])
        _ = try link.command(HCICommand.leSetScanEnable, [0x01, 0x00])
        Thread.sleep(forTimeInterval: seconds)
        _ = try link.command(HCICommand.leSetScanEnable, [0x00, 0x00])
        link.state.lock()
        defer { link.state.unlock() }
        return advertisers
    }

    /// Connects to `peer` (HCI byte order) and waits for LE Connection Complete.
    package func connect(to peer: [UInt8], addressType: UInt8 = 1, timeout: TimeInterval = 10) throws(HCIError) {
        // Scan interval 60 ms, window 30 ms, no filter list, the peer, random own address; connection
        // interval 30–50 ms, latency 0, supervision timeout 2 s.
        var parameters: [UInt8] = [0x60, 0x00, 0x30, 0x00, 0x00, addressType] + peer + [0x01]
        parameters += [0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00, 0x00, 0x00, 0x00]
        _ = try link.command(HCICommand.leCreateConnection, parameters, completesWithStatus: true)
        let state = link.state
        state.lock()
        defer { state.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while link.connection == nil, link.readerError == nil {
            if !state.wait(until: deadline) { throw .timeout("LE Connection Complete") }
        }
        if let error = link.readerError { throw error }
    }

    /// Discovers every primary service, characteristic and CCCD.
    package func discover() throws(HCIError) -> [DiscoveredCharacteristic] {
        var found: [DiscoveredCharacteristic] = []
        for service in try discoverServices() {
            var inService = try discoverCharacteristics(of: service)
            try discoverCCCDs(&inService, serviceEnd: service.end)
            found += inService
        }
        link.state.lock()
        characteristics = found
        for c in found { handleToUUID[c.valueHandle] = c.uuid }
        link.state.unlock()
        return found
    }

    /// Primary services (16-bit UUIDs) by Read By Group Type.
    func discoverServices() throws(HCIError) -> [(start: UInt16, end: UInt16, uuid: UInt16)] {
        var services: [(start: UInt16, end: UInt16, uuid: UInt16)] = []
        var start: UInt16 = 1
        while true {
            let response = try request(
                [ATTOpcode.readByGroupTypeRequest] + le(start) + le(0xFFFF) + le(GATTAttributeType.primaryService)
            )
            guard response.first == ATTOpcode.readByGroupTypeResponse, response.count >= 2 else { break }
            let length = Int(response[1])
            guard length == 6 else { break }  // 128-bit services are not health profiles
            var members = 2
            var last: UInt16 = start
            while members + length <= response.count {
                services.append((u16(response, members), u16(response, members + 2), u16(response, members + 4)))
                last = u16(response, members + 2)
                members += length
            }
            if last == 0xFFFF { break }
            start = last + 1
        }
        return services
    }

    /// A service's characteristic declarations (16-bit UUIDs) by Read By Type.
    func discoverCharacteristics(
        of service: (start: UInt16, end: UInt16, uuid: UInt16)
    ) throws(HCIError) -> [DiscoveredCharacteristic] {
        var handle = service.start
        let end = service.end
        var inService: [DiscoveredCharacteristic] = []
        while handle <= end {
            let response = try request(
                [ATTOpcode.readByTypeRequest] + le(handle) + le(end) + le(GATTAttributeType.characteristic)
            )
            guard response.first == ATTOpcode.readByTypeResponse, response.count >= 2, response[1] == 7 else { break }
            var members = 2
            var last = handle
            while members + 7 <= response.count {
                let properties = CharacteristicProperties(rawValue: response[members + 2])
                inService.append(
                    DiscoveredCharacteristic(
                        service: service.uuid,
                        uuid: u16(response, members + 5),
                        properties: properties,
                        valueHandle: u16(response, members + 3),
                        cccdHandle: nil
                    )
                )
                last = u16(response, members)
                members += 7
            }
            if last >= end { break }
            handle = last + 1
        }
        return inService
    }

    /// Each characteristic's CCCD, by Find Information between its value and the next declaration.
    func discoverCCCDs(_ inService: inout [DiscoveredCharacteristic], serviceEnd: UInt16) throws(HCIError) {
        for i in inService.indices {
            let from = inService[i].valueHandle + 1
            let to = i + 1 < inService.count ? inService[i + 1].valueHandle - 2 : serviceEnd
            guard from <= to else { continue }
            let response = try request([ATTOpcode.findInformationRequest] + le(from) + le(to))
            guard response.first == ATTOpcode.findInformationResponse, response.count >= 2, response[1] == 1 else {
                continue
            }
            var members = 2
            while members + 4 <= response.count {
                if u16(response, members + 2) == GATTAttributeType.clientCharacteristicConfiguration {
                    inService[i].cccdHandle = u16(response, members)
                }
                members += 4
            }
        }
    }

    /// Enables notifications (or indications, for indicate-only characteristics) on `uuid`.
    @discardableResult
    package func subscribe(_ uuid: UInt16) throws(HCIError) -> Bool {
        guard let characteristic = characteristics.first(where: { $0.uuid == uuid }),
            let cccd = characteristic.cccdHandle
        else { return false }
        let value: UInt16 = characteristic.properties.contains(.notify) ? 1 : 2
        let response = try request([ATTOpcode.writeRequest] + le(cccd) + le(value))
        return response.first == ATTOpcode.writeResponse
    }

    /// Reads a characteristic value.
    package func read(_ uuid: UInt16) throws(HCIError) -> [UInt8]? {
        guard let characteristic = characteristics.first(where: { $0.uuid == uuid }) else { return nil }
        let response = try request([ATTOpcode.readRequest] + le(characteristic.valueHandle))
        return response.first == ATTOpcode.readResponse ? Array(response.dropFirst()) : nil
    }

    /// Writes a characteristic value with a Write Request.
    package func write(_ uuid: UInt16, _ value: [UInt8]) throws(HCIError) -> Bool {
        guard let characteristic = characteristics.first(where: { $0.uuid == uuid }) else { return false }
        return try request([ATTOpcode.writeRequest] + le(characteristic.valueHandle) + value).first
            == ATTOpcode.writeResponse
    }

    func parseReports(_ parameters: [UInt8], extended: Bool) {
        guard let count = parameters.first else { return }
        var members = 1
        for _ in 0..<Int(count) {
            let fixed = extended ? 24 : 9
            guard members + fixed <= parameters.count else { return }
            let typeOffset = extended ? members + 2 : members + 1
            let type = parameters[typeOffset]
            let address = Array(parameters[(typeOffset + 1)..<(typeOffset + 7)])
            let len = Int(parameters[members + fixed - 1])
            guard members + fixed + len + (extended ? 0 : 1) <= parameters.count else { return }
            let ad = Array(parameters[(members + fixed)..<(members + fixed + len)])
            members += fixed + len + (extended ? 0 : 1)
            var name = ""
            var services: [UInt16] = []
            var index = 0
            while index < ad.count {
                let length = Int(ad[index])
                guard length > 0, index + 1 + length <= ad.count else { break }
                let adType = ad[index + 1]
                let data = Array(ad[(index + 2)..<(index + 1 + length)])
                if adType == AdvertisingDataType.shortenedLocalName || adType == AdvertisingDataType.completeLocalName {
                    name = String(decoding: data, as: UTF8.self)
                }
                if adType == AdvertisingDataType.incompleteServiceUUIDs16
                    || adType == AdvertisingDataType.completeServiceUUIDs16
                {
                    var offset = 0
                    while offset + 1 < data.count {
                        services.append(u16(data, offset))
                        offset += 2
                    }
                }
                index += 1 + length
            }
            if let idx = advertisers.firstIndex(where: { $0.address == address }) {
                if advertisers[idx].name.isEmpty { advertisers[idx].name = name }
                if advertisers[idx].services.isEmpty { advertisers[idx].services = services }
            } else {
                advertisers.append(Advertiser(address: address, addressType: type, name: name, services: services))
            }
        }
    }

    /// Sends an ATT request and waits for its response (or Error Response).
    func request(_ pdu: [UInt8], timeout: TimeInterval = 10) throws(HCIError) -> [UInt8] {
        let state = link.state
        state.lock()
        response = nil
        state.unlock()
        try link.sendATT(pdu)
        state.lock()
        defer { state.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while response == nil, link.readerError == nil, link.connection != nil {
            if !state.wait(until: deadline) { throw .timeout("ATT response to opcode 0x\(String(pdu[0], radix: 16))") }
        }
        if let error = link.readerError { throw error }
        guard let received = response else { throw .closed }
        return received
    }

    /// An ATT PDU from the peripheral: values go to `onValue` (indications are confirmed), the rest answers `request`.
    func att(_ pdu: [UInt8]) {
        let op = pdu[0]
        let state = link.state
        switch op {
        case ATTOpcode.handleValueNotification, ATTOpcode.handleValueIndication:
            guard pdu.count >= 3 else { return }
            state.lock()
            let uuid = handleToUUID[u16(pdu, 1)]
            state.unlock()
            let value = Array(pdu[3...])
            work.async { [weak self] in
                if op == ATTOpcode.handleValueIndication {
                    try? self?.link.sendATT([ATTOpcode.handleValueConfirmation])
                }
                if let uuid { self?.onValue?(uuid, value) }
            }
        default:
            state.lock()
            response = pdu
            state.broadcast()
            state.unlock()
        }
    }

    package func stop() { link.stop() }

    private func le(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func u16(_ b: [UInt8], _ members: Int) -> UInt16 { UInt16(b[members]) | UInt16(b[members + 1]) << 8 }
}
