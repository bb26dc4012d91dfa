import Dispatch
import Foundation
import GATT
import VitalSimCore

/// A BLE peripheral host speaking HCI over H4: it resets and configures the controller, advertises
/// with a random static address, accepts a central's connection, serves GATT through ``ATTServer``,
/// and sends notifications and indications (one indication outstanding at a time), with ACL flow
/// control from LE Read Buffer Size and Number Of Completed Packets, and L2CAP fragmentation and
/// reassembly on the ATT fixed channel. Every packet is also written to a btsnoop capture.
public final class HCIPeripheral: @unchecked Sendable {
    public let server: ATTServer
    public let name: String
    /// Random static address, most significant byte last (HCI order).
    public let address: [UInt8]
    let transport: any HCITransport
    let capture: BTSnoopWriter?
    let state = NSCondition()
    var commandWaiting: UInt16?
    var commandResult: [UInt8]?
    var connection: UInt16?
    var credits = 0
    var aclLength = 27
    var rx: [UInt8] = []
    var rxExpected = 0
    var confirmationPending = false
    var subscriptionChanges = 0
    var statusCompletes = false
    /// False while a scenario fault keeps the device off the air.
    var advertisingAllowed = true
    var stopped = false
    var readerError: HCIError?
    let work = DispatchQueue(label: "vitalsim.ble.peripheral")
    /// Called (on a work queue) when the central writes the Record Access Control Point.
    public var onRACP: (@Sendable ([UInt8]) -> Void)?

    public init(transport: any HCITransport, database: GATTDatabase, name: String, address: [UInt8], capture: BTSnoopWriter?) {
        self.transport = transport
        self.server = ATTServer(database: database)
        self.name = name
        self.address = address
        self.capture = capture
        server.onRACP = { [weak self] value in
            guard let self else { return }
            self.work.async { self.onRACP?(value) }
        }
    }

    /// The address as text, `C0:DE:…` (most significant byte first).
    public var addressString: String { address.reversed().map { Hex.encode([$0]).uppercased() }.joined(separator: ":") }

    /// Starts the reader thread, configures the controller and starts advertising.
    public func start() throws(HCIError) {
        let thread = Thread { [self] in readLoop() }
        thread.name = "vitalsim-hci-reader"
        thread.start()
        _ = try command(0x0C03, [])
        _ = try command(0x0C01, [0xFF, 0xFF, 0xFB, 0xFF, 0x07, 0xF8, 0xBF, 0x3D])
        _ = try command(0x2001, [0x1F, 0x0A, 0, 0, 0, 0, 0, 0])
        let buffer = try command(0x2002, [])
        let length = buffer.count >= 3 ? Int(buffer[0]) | Int(buffer[1]) << 8 : 0
        state.lock()
        aclLength = length > 0 ? length : 27
        credits = buffer.count >= 3 && buffer[2] > 0 ? Int(buffer[2]) : 8
        state.unlock()
        _ = try command(0x2005, address)
        _ = try command(0x2006, [0xA0, 0x00, 0xA0, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00])
        _ = try command(0x2008, advertisingData())
        try advertise(true)
    }

    func advertisingData() -> [UInt8] {
        var ad: [UInt8] = [0x02, 0x01, 0x06]
        if let s = server.database.services.dropFirst().first { ad += [0x03, 0x03, UInt8(s.uuid & 0xFF), UInt8(s.uuid >> 8)] }
        let n = Array(name.utf8.prefix(31 - ad.count - 2))
        ad += [UInt8(n.count + 1), 0x09] + n
        return [UInt8(ad.count)] + ad + Array(repeating: 0, count: 31 - ad.count)
    }

    func advertise(_ on: Bool) throws(HCIError) { _ = try command(0x200A, [on ? 1 : 0]) }

    /// Sends an HCI command and waits for its Command Complete; returns the return parameters after the status.
    func command(_ opcode: UInt16, _ params: [UInt8], timeout: TimeInterval = 5, completesWithStatus: Bool = false) throws(HCIError) -> [UInt8] {
        state.lock()
        statusCompletes = completesWithStatus
        commandWaiting = opcode
        commandResult = nil
        state.unlock()
        let packet = [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(params.count)] + params
        log(packet, .sentCommand)
        try transport.write(packet)
        state.lock()
        defer { commandWaiting = nil; state.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while commandResult == nil, readerError == nil {
            if !state.wait(until: deadline) { throw .timeout("Command Complete of 0x\(String(opcode, radix: 16))") }
        }
        if let e = readerError { throw e }
        let r = commandResult ?? []
        guard let status = r.first else { throw .malformedPacket("empty Command Complete") }
        if status != 0 { throw .commandFailed(opcode: opcode, status: status) }
        return Array(r.dropFirst())
    }

    func log(_ packet: [UInt8], _ direction: BTSnoopWriter.Direction) {
        guard let capture else { return }
        let us = Int64(Date().timeIntervalSince1970 * 1_000_000)
        state.lock(); capture.append(h4: packet, direction: direction, unixMicroseconds: us); state.unlock()
    }

    // MARK: Receiving

    func readLoop() {
        while true {
            let packet: [UInt8]
            do { packet = try transport.read() } catch {
                state.lock(); if readerError == nil { readerError = error }; state.broadcast(); state.unlock()
                return
            }
            log(packet, packet[0] == 0x04 ? .receivedEvent : .receivedData)
            switch packet[0] {
            case 0x04 where packet.count >= 3: event(packet[1], Array(packet[3...]))
            case 0x02 where packet.count >= 5: acl(packet)
            default: break
            }
        }
    }

    func event(_ code: UInt8, _ p: [UInt8]) {
        state.lock(); defer { state.broadcast(); state.unlock() }
        switch code {
        case 0x0E where p.count >= 3: // Command Complete
            let op = UInt16(p[1]) | UInt16(p[2]) << 8
            if op == commandWaiting { commandResult = Array(p[3...]) }
        case 0x0F where p.count >= 4: // Command Status
            let op = UInt16(p[2]) | UInt16(p[3]) << 8
            if op == commandWaiting, p[0] != 0 || statusCompletes { commandResult = [p[0]] }
        case 0x3E where p.count >= 4 && (p[0] == 0x01 || p[0] == 0x0A): // LE (Enhanced) Connection Complete
            if p[1] == 0 {
                connection = UInt16(p[2]) | UInt16(p[3] & 0x0F) << 8
                server.reset()
                confirmationPending = false
            }
        case 0x05 where p.count >= 4: // Disconnection Complete
            connection = nil
            server.reset()
            confirmationPending = false
            if advertisingAllowed { work.async { [weak self] in try? self?.advertise(true) } }
        case 0x13 where p.count >= 1: // Number Of Completed Packets
            var o = 1
            for _ in 0..<Int(p[0]) where o + 3 < p.count + 0 {
                credits += Int(p[o + 2]) | Int(p[o + 3]) << 8
                o += 4
            }
        default: break
        }
    }

    func acl(_ packet: [UInt8]) {
        let pb = (packet[2] >> 4) & 0x03
        let data = Array(packet[5...])
        if pb == 0x01 { rx += data } else {
            rx = data
            rxExpected = data.count >= 2 ? Int(data[0]) | Int(data[1]) << 8 : 0
        }
        guard rx.count >= 4, rx.count >= rxExpected + 4 else { return }
        let cid = UInt16(rx[2]) | UInt16(rx[3]) << 8
        let pdu = Array(rx[4..<(4 + rxExpected)])
        rx = []
        guard cid == 0x0004, let op = pdu.first else { return }
        if op == 0x1E {
            state.lock(); confirmationPending = false; state.broadcast(); state.unlock()
            return
        }
        state.lock()
        let before = server.cccd
        let response = server.handle(pdu)
        if server.cccd != before { subscriptionChanges += 1; state.broadcast() }
        state.unlock()
        if let response { work.async { [weak self] in try? self?.sendATT(response) } }
    }

    // MARK: Sending

    /// Sends an ATT PDU on L2CAP CID 4, fragmented to the controller's ACL length, waiting for credits.
    func sendATT(_ pdu: [UInt8]) throws(HCIError) {
        state.lock()
        guard let handle = connection else { state.unlock(); return }
        state.unlock()
        let l2cap = [UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), 0x04, 0x00] + pdu
        var offset = 0
        while offset < l2cap.count {
            let part = Array(l2cap[offset..<min(l2cap.count, offset + aclLength)])
            state.lock()
            let deadline = Date(timeIntervalSinceNow: 5)
            while credits == 0, readerError == nil, connection != nil {
                if !state.wait(until: deadline) { state.unlock(); throw .timeout("ACL buffer credits (Number Of Completed Packets)") }
            }
            if let e = readerError { state.unlock(); throw e }
            credits -= 1
            state.unlock()
            let h = handle | (offset == 0 ? 0x0000 : 0x1000)
            let packet = [0x02, UInt8(h & 0xFF), UInt8(h >> 8), UInt8(part.count & 0xFF), UInt8(part.count >> 8)] + part
            log(packet, .sentData)
            try transport.write(packet)
            offset += part.count
        }
    }

    /// True while a central is connected.
    public var isConnected: Bool { state.lock(); defer { state.unlock() }; return connection != nil }

    /// Waits until a central has enabled at least one notification or indication and then made no
    /// further CCCD change for `settle` seconds (centrals subscribe one characteristic at a time).
    public func waitForSubscription(timeout: TimeInterval, settle: TimeInterval = 0.5) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock(); defer { state.unlock() }
        while !server.anySubscription { if !state.wait(until: deadline) { return false } }
        while true {
            let seen = subscriptionChanges
            _ = state.wait(until: Date(timeIntervalSinceNow: settle))
            if subscriptionChanges == seen { return server.anySubscription }
        }
    }

    /// Notifies or indicates `value` on `uuid` when the central subscribed; returns false when it did not.
    /// An indication waits for the central's confirmation (one outstanding at a time).
    @discardableResult
    public func send(_ uuid: UInt16, _ value: [UInt8], indicate: Bool, timeout: TimeInterval = 10) throws(HCIError) -> Bool {
        state.lock()
        let ok = connection != nil && server.subscribed(uuid, indicate: indicate)
        let handle = server.database.characteristic(uuid)?.valueHandle
        if ok, indicate {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while confirmationPending, connection != nil {
                if !state.wait(until: deadline) {
                    // ATT transaction timeout: the bearer is unusable until the central reconnects.
                    connection = nil
                    confirmationPending = false
                    server.reset()
                    state.unlock()
                    work.async { [weak self] in try? self?.advertise(true) }
                    return false
                }
            }
            guard connection != nil else { state.unlock(); return false }
            confirmationPending = true
        }
        state.unlock()
        guard ok, let handle else { return false }
        try sendATT([indicate ? 0x1D : 0x1B, UInt8(handle & 0xFF), UInt8(handle >> 8)] + value.prefix(server.mtu - 3))
        return true
    }

    /// Drops the link (HCI Disconnect, "remote user terminated") and stays off the air until ``reconnectable()``.
    public func disconnect(timeout: TimeInterval = 5) throws(HCIError) {
        state.lock()
        advertisingAllowed = false
        let handle = connection
        state.unlock()
        guard let handle else { try? advertise(false); return }
        _ = try command(0x0406, [UInt8(handle & 0xFF), UInt8(handle >> 8), 0x13], completesWithStatus: true)
        state.lock(); defer { state.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while connection != nil { if !state.wait(until: deadline) { throw .timeout("Disconnection Complete") } }
    }

    /// Advertises again after a fault so that the central can reconnect.
    public func reconnectable() throws(HCIError) {
        state.lock(); advertisingAllowed = true; let connected = connection != nil; state.unlock()
        if !connected { try advertise(true) }
    }

    /// Waits until the central disconnects, at most `timeout` seconds (keeps serving reads and RACP meanwhile).
    public func waitForDisconnection(timeout: TimeInterval) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock(); defer { state.unlock() }
        while connection != nil { if !state.wait(until: deadline) { return } }
    }

    /// Waits for an outstanding indication to be confirmed.
    public func drain(timeout: TimeInterval = 10) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock(); defer { state.unlock() }
        while confirmationPending, connection != nil { if !state.wait(until: deadline) { return } }
    }

    /// Stops: closes the transport and flushes the capture.
    public func stop() {
        transport.close()
        state.lock(); try? capture?.flush(); state.unlock()
    }
}
