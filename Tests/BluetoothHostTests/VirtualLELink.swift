import Bluetooth
import BluetoothHost
import Foundation

/// Two LE controllers joined by a radio that exists only in memory, as bumble's `LocalLink` joins
/// its virtual controllers: each end is an ``HCITransport`` a host (``HCIPeripheral``,
/// ``HCICentral``) drives with H4 packets, so the hosts' HCI, L2CAP and ATT code runs without a
/// socket, a process or an adapter.
///
/// The controllers answer the commands the hosts send (Bluetooth Core 5.4, Vol 4, Part E, §7): every
/// command with Command Complete, or Command Status for LE Create Connection and Disconnect; LE
/// Read Buffer Size with `aclLength` and `credits`, so that L2CAP fragmentation and flow control are
/// exercised; advertising seen by a scanning end as an Advertising Report; a connection made (LE
/// Connection Complete at both ends, advertising stopped) once the address the central asked for
/// advertises; ACL data forwarded to the other end, each packet returned as a credit (Number Of
/// Completed Packets); Disconnect, or an end closing its transport (the supervision timeout), as
/// Disconnection Complete at both ends. Unknown commands fail with status 0x01.
///
/// Sendable: every field is touched only with `lock` held.
final class VirtualLELink: @unchecked Sendable {
    /// What one controller knows.
    struct Controller {
        var address: [UInt8] = []
        var advertisingData: [UInt8] = []
        var advertising = false
        var scanning = false
        /// The address a pending LE Create Connection waits for.
        var connecting: [UInt8]?
        var connection: UInt16?
        var inbox: [[UInt8]] = []
        var closed = false
        /// Opcodes of the commands received, in order.
        var commands: [UInt16] = []
        /// ACL data packets forwarded from this end.
        var aclPackets = 0
    }

    let lock = NSCondition()
    let aclLength: UInt16
    let credits: UInt8
    var controllers = [Controller(), Controller()]
    var nextHandle: UInt16 = 0x0040
    var connections = 0

    /// - Parameters:
    ///   - aclLength: the LE ACL data length each controller reports (27, the LE minimum, by default).
    ///   - credits: the LE ACL buffers each controller reports.
    init(aclLength: UInt16 = 27, credits: UInt8 = 4) {
        self.aclLength = aclLength
        self.credits = credits
    }

    /// The transport of end `index` (0 or 1).
    func end(_ index: Int) -> any HCITransport { End(link: self, index: index) }

    /// A snapshot of controller `index`.
    func controller(_ index: Int) -> Controller {
        lock.lock()
        defer { lock.unlock() }
        return controllers[index]
    }

    /// How many connections the link has made.
    var connectionCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return connections
    }

    /// Waits (at most `timeout` seconds) until `condition` holds of the two controllers; false when
    /// it never did. The link is signalled on every packet, so no polling is needed.
    func wait(timeout: TimeInterval = 5, until condition: ([Controller]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        lock.lock()
        defer { lock.unlock() }
        while !condition(controllers) { if !lock.wait(until: deadline) { return condition(controllers) } }
        return true
    }

    final class End: HCITransport, @unchecked Sendable {
        let link: VirtualLELink
        let index: Int

        init(link: VirtualLELink, index: Int) {
            self.link = link
            self.index = index
        }

        func write(_ packet: [UInt8]) throws(HCIError) { try link.received(packet, from: index) }
        func read() throws(HCIError) -> [UInt8] { try link.next(for: index) }
        func close() { link.close(index) }
    }

    // MARK: Controllers (called with `lock` held unless said otherwise)

    func received(_ packet: [UInt8], from index: Int) throws(HCIError) {
        lock.lock()
        defer {
            lock.broadcast()
            lock.unlock()
        }
        guard !controllers[index].closed else { throw .closed }
        switch packet.first {
        case HCIPacketType.command where packet.count >= 4:
            let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
            controllers[index].commands.append(opcode)
            command(opcode, Array(packet[4...]), from: index)
        case HCIPacketType.aclData where packet.count >= 5:
            let handle = (UInt16(packet[1]) | UInt16(packet[2]) << 8) & 0x0FFF
            guard controllers[index].connection == handle else { return }
            controllers[index].aclPackets += 1
            deliver(packet, to: 1 - index)
            event(HCIEvent.numberOfCompletedPackets, [1] + le(handle) + le(1), to: index)
        default:
            throw .malformedPacket("the virtual controller got \(packet.count) bytes it cannot read")
        }
    }

    func command(_ opcode: UInt16, _ params: [UInt8], from index: Int) {
        let other = 1 - index
        switch opcode {
        case HCICommand.reset:
            controllers[index].advertising = false
            controllers[index].scanning = false
            controllers[index].connecting = nil
            complete(opcode, to: index)
        case HCICommand.leReadBufferSize:
            complete(opcode, returning: le(aclLength) + [credits], to: index)
        case HCICommand.leSetRandomAddress where params.count >= 6:
            controllers[index].address = Array(params[0..<6])
            complete(opcode, to: index)
        case HCICommand.leSetAdvertisingData where !params.isEmpty:
            controllers[index].advertisingData = Array(params.dropFirst().prefix(Int(params[0])))
            complete(opcode, to: index)
        case HCICommand.leSetAdvertisingEnable where !params.isEmpty:
            controllers[index].advertising = params[0] == 1 && controllers[index].connection == nil
            complete(opcode, to: index)
            if controllers[index].advertising {
                if controllers[other].scanning { report(from: index) }
                if controllers[other].connecting == controllers[index].address { connect(central: other) }
            }
        case HCICommand.leSetScanEnable where !params.isEmpty:
            controllers[index].scanning = params[0] == 1
            complete(opcode, to: index)
            if controllers[index].scanning, controllers[other].advertising { report(from: other) }
        case HCICommand.leCreateConnection where params.count >= 12:
            status(opcode, to: index)
            controllers[index].connecting = Array(params[6..<12])
            if controllers[other].advertising, controllers[other].address == controllers[index].connecting {
                connect(central: index)
            }
        case HCICommand.disconnect where params.count >= 3:
            status(opcode, to: index)
            let handle = (UInt16(params[0]) | UInt16(params[1]) << 8) & 0x0FFF
            guard controllers[index].connection == handle else { return }
            disconnect(handle, reasons: [index: 0x16, other: params[2]])
        case HCICommand.setEventMask, HCICommand.leSetEventMask, HCICommand.leSetAdvertisingParameters,
            HCICommand.leSetScanParameters:
            complete(opcode, to: index)
        default:
            complete(opcode, status: 0x01, to: index)  // Unknown HCI Command
        }
    }

    /// A connection between the central at `central` and the advertiser at the other end.
    func connect(central: Int) {
        let peripheral = 1 - central
        let handle = nextHandle
        nextHandle += 1
        connections += 1
        controllers[central].connecting = nil
        controllers[peripheral].advertising = false
        for (index, role) in [(central, UInt8(0)), (peripheral, UInt8(1))] {
            controllers[index].connection = handle
            // Status, handle, role, peer address type (random) and address, interval 40 × 1.25 ms,
            // latency 0, supervision timeout 2 s, clock accuracy.
            let peer = controllers[1 - index].address
            let parameters: [UInt8] = [0x28, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00]
            let complete = [HCIEvent.leConnectionComplete, 0] + le(handle) + [role, 1] + peer + parameters
            event(HCIEvent.leMeta, complete, to: index)
        }
    }

    func disconnect(_ handle: UInt16, reasons: [Int: UInt8]) {
        for index in 0..<2 where controllers[index].connection == handle {
            controllers[index].connection = nil
            event(HCIEvent.disconnectionComplete, [0] + le(handle) + [reasons[index] ?? 0x08], to: index)
        }
    }

    /// An Advertising Report of the advertiser at `index` to the scanner at the other end.
    func report(from index: Int) {
        let data = controllers[index].advertisingData
        // One report: ADV_IND, random address, the data, RSSI -59 dBm.
        let body: [UInt8] = [1, 0x00, 0x01] + controllers[index].address + [UInt8(data.count)] + data + [0xC5]
        event(HCIEvent.leMeta, [HCIEvent.leAdvertisingReport] + body, to: 1 - index)
    }

    func complete(_ opcode: UInt16, status: UInt8 = 0, returning: [UInt8] = [], to index: Int) {
        event(HCIEvent.commandComplete, [1] + le(opcode) + [status] + returning, to: index)
    }

    func status(_ opcode: UInt16, to index: Int) {
        event(HCIEvent.commandStatus, [0, 1] + le(opcode), to: index)
    }

    func event(_ code: UInt8, _ parameters: [UInt8], to index: Int) {
        deliver([HCIPacketType.event, code, UInt8(parameters.count)] + parameters, to: index)
    }

    func deliver(_ packet: [UInt8], to index: Int) {
        guard !controllers[index].closed else { return }
        controllers[index].inbox.append(packet)
    }

    func le(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    // MARK: Transports (take `lock` themselves)

    func next(for index: Int) throws(HCIError) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        while controllers[index].inbox.isEmpty {
            if controllers[index].closed { throw .closed }
            lock.wait()
        }
        return controllers[index].inbox.removeFirst()
    }

    /// Closes end `index`: its host is gone, so its connection ends by supervision timeout (0x08).
    func close(_ index: Int) {
        lock.lock()
        defer {
            lock.broadcast()
            lock.unlock()
        }
        controllers[index].closed = true
        if let handle = controllers[index].connection { disconnect(handle, reasons: [1 - index: 0x08]) }
        controllers[index].advertising = false
        controllers[index].scanning = false
    }
}
