import Bluetooth
import Dispatch
import Foundation
import VitalSimCore

/// A BLE peripheral host speaking HCI over H4: it resets and configures the controller, advertises
/// with a random static address, accepts a central's connection, serves GATT through ``ATTServer``,
/// and sends notifications and indications (one indication outstanding at a time), with ACL flow
/// control and L2CAP fragmentation from ``HCILink``. Every packet is also written to a btsnoop capture.
///
/// Sendable: its mutable state and its ``ATTServer`` are touched only with the link's `state`
/// locked; `onRACP` is set before ``start()``.
package final class HCIPeripheral: @unchecked Sendable {
    package let server: ATTServer
    package let name: String
    /// Random static address, least significant byte first (HCI order).
    package let address: [UInt8]
    let link: HCILink
    var confirmationPending = false
    var subscriptionChanges = 0
    /// False while a scenario fault keeps the device off the air.
    var advertisingAllowed = true
    let work = DispatchQueue(label: "vitalsim.ble.peripheral")
    /// Called (on a work queue) when the central writes the Record Access Control Point.
    package var onRACP: (@Sendable ([UInt8]) -> Void)?

    package init(
        transport: any HCITransport,
        database: GATTDatabase,
        name: String,
        address: [UInt8],
        capture: BTSnoopWriter?
    ) {
        self.server = ATTServer(database: database)
        self.name = name
        self.address = address
        self.link = HCILink(transport: transport, capture: capture)
        server.onRACP = { [weak self] value in
            guard let self else { return }
            self.work.async { self.onRACP?(value) }
        }
        link.onEvent = { [weak self] code, p in self?.event(code, p) }
        link.onATT = { [weak self] pdu in self?.att(pdu) }
    }

    /// The address as text, `C0:DE:…` (most significant byte first).
    package var addressString: String {
        address.reversed().map { Hex.encode([$0]).uppercased() }.joined(separator: ":")
    }

    /// Configures the controller and starts advertising.
    package func start() throws(HCIError) {
        try link.start(name: "vitalsim-hci-peripheral", randomAddress: address)
        // 100 ms interval, connectable undirected, random own address, all three channels.
        _ = try link.command(
            HCICommand.leSetAdvertisingParameters,
            [0xA0, 0x00, 0xA0, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00]
        )
        _ = try link.command(HCICommand.leSetAdvertisingData, advertisingData())
        try advertise(true)
    }

    func advertisingData() -> [UInt8] {
        var ad: [UInt8] = [0x02, AdvertisingDataType.flags, 0x06]  // LE General Discoverable, BR/EDR not supported
        if let primary = server.database.services.dropFirst().first {
            ad += [
                0x03, AdvertisingDataType.completeServiceUUIDs16, UInt8(primary.uuid & 0xFF), UInt8(primary.uuid >> 8),
            ]
        }
        let nameBytes = Array(name.utf8.prefix(31 - ad.count - 2))
        ad += [UInt8(nameBytes.count + 1), AdvertisingDataType.completeLocalName] + nameBytes
        return [UInt8(ad.count)] + ad + Array(repeating: 0, count: 31 - ad.count)
    }

    func advertise(_ on: Bool) throws(HCIError) {
        _ = try link.command(HCICommand.leSetAdvertisingEnable, [on ? 1 : 0])
    }

    /// Link events (called with the link's lock held).
    func event(_ code: UInt8, _ p: [UInt8]) {
        switch code {
        case HCIEvent.leMeta
        where p.count >= 2 && (p[0] == HCIEvent.leConnectionComplete || p[0] == HCIEvent.leEnhancedConnectionComplete)
            && p[1] == 0:
            server.reset()
            confirmationPending = false
        case HCIEvent.disconnectionComplete:
            server.reset()
            confirmationPending = false
            if advertisingAllowed { work.async { [weak self] in try? self?.advertise(true) } }
        default: break
        }
    }

    /// An ATT PDU from the central (reader thread).
    func att(_ pdu: [UInt8]) {
        let state = link.state
        if pdu[0] == ATTOpcode.handleValueConfirmation {
            state.lock()
            confirmationPending = false
            state.broadcast()
            state.unlock()
            return
        }
        state.lock()
        let before = server.cccd
        let response = server.handle(pdu)
        if server.cccd != before {
            subscriptionChanges += 1
            state.broadcast()
        }
        state.unlock()
        if let response { work.async { [weak self] in try? self?.link.sendATT(response) } }
    }

    /// True while a connected central has notifications or indications enabled on some characteristic.
    package var isSubscribed: Bool {
        link.state.lock()
        defer { link.state.unlock() }
        return link.connection != nil && server.anySubscription
    }

    /// True while a central is connected.
    package var isConnected: Bool {
        link.state.lock()
        defer { link.state.unlock() }
        return link.connection != nil
    }

    /// Waits until a central has enabled notifications or indications on every characteristic that
    /// offers them, or has enabled some and then made no further CCCD change for `settle` seconds
    /// (centrals subscribe one characteristic at a time, and need not subscribe to all).
    package func waitForSubscription(timeout: TimeInterval, settle: TimeInterval = 1.5) -> Bool {
        let state = link.state
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock()
        defer { state.unlock() }
        while !server.anySubscription { if !state.wait(until: deadline) { return false } }
        while true {
            // A central that subscribes to everything is done at once, however slow the machine.
            if server.allSubscribed { return true }
            // Otherwise its subset counts once no CCCD has changed for `settle` seconds (the condition
            // is also signalled for other reasons, such as buffer credits: those do not end the wait).
            let seen = subscriptionChanges
            let quietUntil = Date(timeIntervalSinceNow: settle)
            while subscriptionChanges == seen, !server.allSubscribed, Date() < quietUntil {
                _ = state.wait(until: quietUntil)
            }
            if subscriptionChanges == seen, !server.allSubscribed { return server.anySubscription }
        }
    }

    /// Notifies or indicates `value` on `uuid` when the central subscribed; returns false when it did not.
    /// An indication waits for the previous one's confirmation (one outstanding at a time); an ATT
    /// transaction timeout makes the link unusable until the central reconnects.
    @discardableResult
    package func send(
        _ uuid: UInt16,
        _ value: [UInt8],
        indicate: Bool,
        timeout: TimeInterval = 10
    ) throws(HCIError) -> Bool {
        let state = link.state
        state.lock()
        let ok = link.connection != nil && server.subscribed(uuid, indicate: indicate)
        let handle = server.database.characteristic(uuid)?.valueHandle
        let mtu = server.mtu
        if ok, indicate {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while confirmationPending, link.connection != nil {
                if !state.wait(until: deadline) {
                    link.connection = nil
                    confirmationPending = false
                    server.reset()
                    state.unlock()
                    work.async { [weak self] in try? self?.advertise(true) }
                    return false
                }
            }
            guard link.connection != nil else {
                state.unlock()
                return false
            }
            confirmationPending = true
        }
        state.unlock()
        guard ok, let handle else { return false }
        let opcode = indicate ? ATTOpcode.handleValueIndication : ATTOpcode.handleValueNotification
        try link.sendATT([opcode, UInt8(handle & 0xFF), UInt8(handle >> 8)] + value.prefix(mtu - 3))
        return true
    }

    /// Drops the link (HCI Disconnect, "remote user terminated") and stays off the air until ``reconnectable()``.
    package func disconnect(timeout: TimeInterval = 5) throws(HCIError) {
        let state = link.state
        state.lock()
        advertisingAllowed = false
        let handle = link.connection
        state.unlock()
        guard let handle else {
            try? advertise(false)
            return
        }
        _ = try link.command(
            HCICommand.disconnect,
            [UInt8(handle & 0xFF), UInt8(handle >> 8), HCIEvent.remoteUserTerminated],
            completesWithStatus: true
        )
        state.lock()
        defer { state.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while link.connection != nil { if !state.wait(until: deadline) { throw .timeout("Disconnection Complete") } }
    }

    /// Advertises again after a fault so that the central can reconnect.
    package func reconnectable() throws(HCIError) {
        link.state.lock()
        advertisingAllowed = true
        let connected = link.connection != nil
        link.state.unlock()
        if !connected { try advertise(true) }
    }

    /// Waits until the central disconnects, at most `timeout` seconds (keeps serving reads and RACP meanwhile).
    package func waitForDisconnection(timeout: TimeInterval) {
        let state = link.state
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock()
        defer { state.unlock() }
        while link.connection != nil { if !state.wait(until: deadline) { return } }
    }

    /// Waits for an outstanding indication to be confirmed.
    package func drain(timeout: TimeInterval = 10) {
        let state = link.state
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock()
        defer { state.unlock() }
        while confirmationPending, link.connection != nil { if !state.wait(until: deadline) { return } }
    }

    /// Stops: closes the transport and flushes the capture.
    package func stop() { link.stop() }
}
