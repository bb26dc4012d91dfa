import Bluetooth
import BluetoothHost
import Foundation
import Testing
import VitalSimCore

/// The BLE hosts — ``HCIPeripheral`` serving a device's GATT database and ``HCICentral`` as the
/// gateway uses it — talking through two controllers in memory (``VirtualLELink``): advertising and
/// scanning, connecting, discovery, subscriptions, notifications and indications with L2CAP
/// fragmentation and ACL flow control, the Record Access Control Point, disconnection and
/// reconnection, and the btsnoop capture of it all. (The same hosts against bumble's controllers
/// and centrals are `IntegrationTests.LiveBLETests`.)
@Suite struct HCIHostTests {
    static let peripheralAddress: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0xC0]
    static let centralAddress: [UInt8] = [0x11, 0x12, 0x13, 0x14, 0x15, 0xC1]

    /// Values the central received, in order, and a condition signalled on each.
    final class Received: @unchecked Sendable {
        let condition = NSCondition()
        var values: [(uuid: UInt16, value: [UInt8])] = []

        func append(_ uuid: UInt16, _ value: [UInt8]) {
            condition.lock()
            values.append((uuid, value))
            condition.broadcast()
            condition.unlock()
        }

        /// The values once there are `count` of them (or after `timeout` seconds, those there are).
        func wait(for count: Int, timeout: TimeInterval = 5) -> [(uuid: UInt16, value: [UInt8])] {
            let deadline = Date(timeIntervalSinceNow: timeout)
            condition.lock()
            defer { condition.unlock() }
            while values.count < count, condition.wait(until: deadline) {}
            return values
        }
    }

    /// Whether `condition` holds within `timeout` seconds: for a host's own state, which its reader
    /// thread updates after the controller has queued the event (checked every millisecond).
    static func eventually(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    /// A peripheral of `type` and a central on one virtual link, both started; the central collects values.
    struct Pair {
        let link: VirtualLELink
        let database: GATTDatabase
        let peripheral: HCIPeripheral
        let central: HCICentral
        let received = Received()

        init(_ type: DeviceType, link: VirtualLELink = VirtualLELink(), capture: BTSnoopWriter? = nil) throws {
            self.link = link
            database = GATTDatabase.forDevice(type, name: "VitalSim \(type.rawValue)")
            peripheral = HCIPeripheral(
                transport: link.end(0),
                database: database,
                name: "VitalSim \(type.rawValue)",
                address: HCIHostTests.peripheralAddress,
                capture: capture
            )
            central = HCICentral(transport: link.end(1), address: HCIHostTests.centralAddress, capture: nil)
            let received = received
            central.onValue = { uuid, value in received.append(uuid, value) }
            try peripheral.start()
            try central.start()
        }

        /// Connects, discovers and subscribes to every characteristic that notifies or indicates.
        func connectAndSubscribe() throws -> [DiscoveredCharacteristic] {
            try central.connect(to: HCIHostTests.peripheralAddress)
            let found = try central.discover()
            for c in found where c.cccdHandle != nil { _ = try central.subscribe(c.uuid) }
            return found
        }

        func stop() {
            central.stop()
            peripheral.stop()
        }
    }

    @Test(arguments: DeviceType.allCases.filter(\.isBluetooth))
    func aCentralFindsDiscoversAndReceivesEveryCharacteristic(_ type: DeviceType) throws {
        let pair = try Pair(type)
        defer { pair.stop() }
        let seen = try pair.central.scan(seconds: 0.05)
        let advertiser = try #require(seen.first { $0.address == Self.peripheralAddress })
        #expect(!advertiser.name.isEmpty && "VitalSim \(type.rawValue)".hasPrefix(advertiser.name))
        #expect(advertiser.services == pair.database.services.dropFirst().first.map { [$0.uuid] })

        let found = try pair.connectAndSubscribe()
        let served = pair.database.services.flatMap(\.characteristics)
        #expect(found.map(\.uuid) == served.map(\.uuid))
        #expect(found.map(\.valueHandle) == served.map(\.valueHandle))
        #expect(found.map(\.cccdHandle) == served.map(\.cccdHandle))
        #expect(found.map(\.properties) == served.map(\.properties))
        #expect(pair.peripheral.waitForSubscription(timeout: 5, settle: 0.2))
        #expect(pair.peripheral.isSubscribed)

        // One value per characteristic that notifies or indicates, each 20 bytes (the default MTU's most).
        var sent: [(UInt16, [UInt8])] = []
        for (n, c) in served.enumerated() where c.cccdHandle != nil {
            let value = (0..<20).map { UInt8((n * 20 + $0) & 0xFF) }
            #expect(try pair.peripheral.send(c.uuid, value, indicate: !c.properties.contains(.notify)))
            sent.append((c.uuid, value))
        }
        #expect(!sent.isEmpty)
        let received = pair.received.wait(for: sent.count)
        #expect(received.map(\.uuid) == sent.map(\.0))
        #expect(received.map(\.value) == sent.map(\.1))
    }

    @Test func pdusLongerThanTheControllersBuffersAreFragmentedAndReassembled() throws {
        // 8-byte ACL packets and two buffers: every PDU over 4 bytes is split, and credits run out.
        let link = VirtualLELink(aclLength: 8, credits: 2)
        let pair = try Pair(.glucometer, link: link)
        defer { pair.stop() }
        let found = try pair.connectAndSubscribe()
        #expect(found.map(\.uuid) == pair.database.services.flatMap(\.characteristics).map(\.uuid))
        let value = Array(UInt8(1)...UInt8(20))
        let before = link.controller(0).aclPackets
        #expect(try pair.peripheral.send(GlucoseMeasurement.uuid, value, indicate: false))
        #expect(pair.received.wait(for: 1).map(\.value) == [value])
        // 20 bytes of value, 3 of ATT header and 4 of L2CAP header: four 8-byte packets.
        #expect(link.controller(0).aclPackets - before == 4)
    }

    @Test func indicationsWaitForEachConfirmationAndArriveInOrder() throws {
        let pair = try Pair(.bpCuff)
        defer { pair.stop() }
        _ = try pair.connectAndSubscribe()
        #expect(pair.peripheral.waitForSubscription(timeout: 5, settle: 0.2))
        let before = pair.link.controller(1).aclPackets
        let values = (0..<5).map { n in [UInt8(n), 0x7B, 0x00, 0x50, 0x00, 0x5F, 0x00] }
        for value in values {
            #expect(try pair.peripheral.send(BloodPressureMeasurement.uuid, value, indicate: true))
        }
        pair.peripheral.drain()
        #expect(pair.received.wait(for: 5).map(\.value) == values)
        // Each indication was confirmed by the central (one Handle Value Confirmation apiece).
        #expect(pair.link.wait { $0[1].aclPackets - before >= 5 })
    }

    @Test func aRACPWriteReachesThePeripheral() throws {
        let pair = try Pair(.glucometer)
        defer { pair.stop() }
        let written = Received()
        pair.peripheral.onRACP = { value in written.append(RecordAccessControlPoint.uuid, value) }
        _ = try pair.connectAndSubscribe()
        // Report stored records: all records.
        #expect(try pair.central.write(RecordAccessControlPoint.uuid, [0x01, 0x01]))
        #expect(written.wait(for: 1).map(\.value) == [[0x01, 0x01]])
        // A characteristic that cannot be written is refused.
        #expect(try !pair.central.write(GlucoseMeasurement.uuid, [0x00]))
    }

    @Test func aDisconnectedPeripheralStaysOffTheAirUntilReconnectableThenServesAFreshConnection() throws {
        let pair = try Pair(.heartRateStrap)
        defer { pair.stop() }
        _ = try pair.connectAndSubscribe()
        #expect(pair.peripheral.waitForSubscription(timeout: 5, settle: 0.2))
        try pair.peripheral.disconnect()
        #expect(Self.eventually { !pair.central.isConnected })
        #expect(!pair.peripheral.isConnected)
        #expect(try !pair.peripheral.send(HeartRateMeasurement.uuid, [0x00, 72], indicate: false))
        #expect(!pair.link.controller(0).advertising, "a dropout keeps the device off the air")

        try pair.peripheral.reconnectable()
        #expect(pair.link.wait { $0[0].advertising })
        try pair.central.connect(to: Self.peripheralAddress)
        #expect(pair.link.connectionCount == 2)
        #expect(!pair.peripheral.isSubscribed, "a new connection starts unsubscribed")
        #expect(try pair.central.subscribe(HeartRateMeasurement.uuid))
        #expect(pair.peripheral.waitForSubscription(timeout: 5, settle: 0.2))
        #expect(try pair.peripheral.send(HeartRateMeasurement.uuid, [0x00, 72], indicate: false))
        #expect(pair.received.wait(for: 1).map(\.value) == [[0x00, 72]])
    }

    @Test func aCentralThatGoesAwayLeavesThePeripheralAdvertisingAgain() throws {
        let pair = try Pair(.pulseOximeter)
        defer { pair.peripheral.stop() }
        _ = try pair.connectAndSubscribe()
        #expect(pair.peripheral.isConnected)
        pair.central.stop()
        #expect(pair.link.wait { $0[0].connection == nil && $0[0].advertising })
        #expect(!pair.peripheral.isConnected)
        #expect(!pair.peripheral.isSubscribed)
    }

    @Test func aCentralConnectingBeforeThePeripheralAdvertisesWaitsForIt() throws {
        let link = VirtualLELink()
        let central = HCICentral(transport: link.end(1), address: Self.centralAddress, capture: nil)
        try central.start()
        defer { central.stop() }
        #expect(throws: HCIError.timeout("LE Connection Complete")) {
            try central.connect(to: Self.peripheralAddress, timeout: 0.1)
        }
        let database = GATTDatabase.forDevice(.thermometer, name: "VitalSim thermometer")
        let peripheral = HCIPeripheral(
            transport: link.end(0),
            database: database,
            name: "thermo",
            address: Self.peripheralAddress,
            capture: nil
        )
        defer { peripheral.stop() }
        try peripheral.start()
        // The pending LE Create Connection completes as soon as the address advertises.
        #expect(Self.eventually { central.isConnected })
        #expect(try central.discover().count == database.services.flatMap(\.characteristics).count)
    }

    @Test func everyPacketOfTheLinkIsCapturedInBTSnoop() throws {
        let path = NSTemporaryDirectory() + "hci-host-\(UInt64.random(in: 0...UInt64.max)).btsnoop"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let capture = try BTSnoopWriter(path: path)
        let pair = try Pair(.thermometer, capture: capture)
        _ = try pair.connectAndSubscribe()
        #expect(pair.peripheral.waitForSubscription(timeout: 5, settle: 0.2))
        #expect(try pair.peripheral.send(TemperatureMeasurement.uuid, [0x00, 0x6E, 0x01, 0x00, 0xFF], indicate: true))
        pair.peripheral.drain()
        // The peripheral first: once the central is gone it would advertise again, racing its own stop.
        pair.peripheral.stop()
        pair.central.stop()
        let records = try BTSnoopReader.read(path: path)
        let peripheral = pair.link.controller(0)
        // Sent: every command and ACL packet; received: an event per command and everything else.
        let commands = records.filter { $0.packet.first == HCIPacketType.command }
        #expect(commands.count == peripheral.commands.count)
        #expect(records.filter { $0.packet.first == HCIPacketType.aclData }.count >= peripheral.aclPackets + 2)
        #expect(records.contains { $0.packet.prefix(4) == [HCIPacketType.event, HCIEvent.leMeta, 19, 0x01] })
        #expect(capture.recordCount == records.count)
    }
}
