import Bluetooth
import Testing
import VitalSimCore

/// The ATT server as bytes in, bytes out (Bluetooth Core 5.4, Vol 3, Part F and Part G): what a
/// central sees when it discovers, reads, subscribes and writes, checked PDU by PDU without a
/// controller or a socket.
struct ATTServerTests {
    static let bluetoothDevices = DeviceType.allCases.filter(\.isBluetooth)

    static func le(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    /// An Error Response for `request` at `handle` with `code`.
    static func error(_ request: UInt8, _ handle: UInt16, _ code: UInt8) -> [UInt8] {
        [ATTOpcode.errorResponse, request] + le(handle) + [code]
    }

    /// Primary service discovery as a central does it: Read By Group Type from the handle after the
    /// last service found, until Attribute Not Found.
    static func discoverServices(_ server: ATTServer) -> [(start: UInt16, end: UInt16, uuid: UInt16)] {
        var found: [(start: UInt16, end: UInt16, uuid: UInt16)] = []
        var start: UInt16 = 1
        for _ in 0..<100 {
            let answer = server.handle(
                [ATTOpcode.readByGroupTypeRequest] + le(start) + le(0xFFFF) + le(GATTAttributeType.primaryService)
            )
            guard let answer, answer.first == ATTOpcode.readByGroupTypeResponse, answer.count >= 2, answer[1] == 6
            else { break }
            for offset in stride(from: 2, to: answer.count, by: 6) {
                found.append((u16(answer, offset), u16(answer, offset + 2), u16(answer, offset + 4)))
            }
            guard let last = found.last, last.end < 0xFFFF else { break }
            start = last.end + 1
        }
        return found
    }

    @Test(arguments: bluetoothDevices)
    func testDiscoveryFindsEveryServiceOfTheDatabase(_ type: DeviceType) {
        let database = GATTDatabase.forDevice(type, name: "VitalSim \(type.rawValue)")
        let found = Self.discoverServices(ATTServer(database: database))
        #expect(found.map(\.uuid) == database.services.map(\.uuid))
        #expect(found.map(\.start) == database.services.map(\.startHandle))
        #expect(found.map(\.end) == database.services.map(\.endHandle))
        #expect(found.first?.uuid == GATTService.genericAccess && found.last?.uuid == GATTService.battery)
    }

    @Test(arguments: bluetoothDevices)
    func testFindInformationListsEveryAttributeWithinTheMTU(_ type: DeviceType) {
        let database = GATTDatabase.forDevice(type, name: "VitalSim")
        let server = ATTServer(database: database)
        var listed: [(UInt16, UInt16)] = []
        var start: UInt16 = 1
        while let answer = server.handle([ATTOpcode.findInformationRequest] + Self.le(start) + Self.le(0xFFFF)),
            answer.first == ATTOpcode.findInformationResponse
        {
            #expect(answer.count <= 23, "a response never exceeds the default MTU")
            #expect(answer[1] == 0x01, "format 1: 16-bit UUIDs")
            for offset in stride(from: 2, to: answer.count, by: 4) {
                listed.append((Self.u16(answer, offset), Self.u16(answer, offset + 2)))
            }
            start = (listed.last?.0 ?? 0xFFFE) + 1
        }
        #expect(listed.map(\.0) == database.attributes.map(\.handle))
        #expect(listed.map(\.1) == database.attributes.map(\.type))
        let end = server.handle([ATTOpcode.findInformationRequest] + Self.le(start) + Self.le(0xFFFF))
        #expect(end == Self.error(ATTOpcode.findInformationRequest, start, ATTErrorCode.attributeNotFound))
    }

    @Test func testExchangeMTUTakesTheSmallerMTUNeverBelow23() {
        let server = ATTServer(database: GATTDatabase.forDevice(.heartRateStrap, name: "strap"))
        #expect(
            server.handle([ATTOpcode.exchangeMTURequest] + Self.le(100)) == [ATTOpcode.exchangeMTUResponse]
                + Self.le(247)
        )
        #expect(server.mtu == 100)
        _ = server.handle([ATTOpcode.exchangeMTURequest] + Self.le(512))
        #expect(server.mtu == 247, "the server's receive MTU bounds it")
        _ = server.handle([ATTOpcode.exchangeMTURequest] + Self.le(10))
        #expect(server.mtu == 23, "never below the default")
        #expect(
            server.handle([ATTOpcode.exchangeMTURequest, 0x40])
                == Self.error(ATTOpcode.exchangeMTURequest, 0, ATTErrorCode.invalidPDU)
        )
    }

    @Test func testReadsAnswerReadableValuesAndRefuseTheRest() throws {
        let database = GATTDatabase.forDevice(.heartRateStrap, name: "strap")
        let server = ATTServer(database: database)
        let location = try #require(database.characteristic(BodySensorLocation.uuid))
        #expect(server.handle([ATTOpcode.readRequest] + Self.le(location.valueHandle)) == [ATTOpcode.readResponse, 1])
        let measurement = try #require(database.characteristic(HeartRateMeasurement.uuid))
        #expect(
            server.handle([ATTOpcode.readRequest] + Self.le(measurement.valueHandle))
                == Self.error(ATTOpcode.readRequest, measurement.valueHandle, ATTErrorCode.readNotPermitted),
            "Heart Rate Measurement is notify-only"
        )
        #expect(
            server.handle([ATTOpcode.readRequest] + Self.le(0x0FFF))
                == Self.error(ATTOpcode.readRequest, 0x0FFF, ATTErrorCode.invalidHandle)
        )
        #expect(
            server.handle([ATTOpcode.readBlobRequest] + Self.le(location.valueHandle) + Self.le(5))
                == Self.error(ATTOpcode.readBlobRequest, location.valueHandle, ATTErrorCode.invalidOffset)
        )
        server.setValue(BatteryLevel.uuid, [42])
        let battery = try #require(database.characteristic(BatteryLevel.uuid))
        #expect(server.handle([ATTOpcode.readRequest] + Self.le(battery.valueHandle)) == [ATTOpcode.readResponse, 42])
    }

    @Test func testSubscribingChecksTheCharacteristicsProperties() throws {
        let database = GATTDatabase.forDevice(.heartRateStrap, name: "strap")
        let server = ATTServer(database: database)
        let measurement = try #require(database.characteristic(HeartRateMeasurement.uuid))
        let cccd = try #require(measurement.cccdHandle)
        #expect(!server.subscribed(HeartRateMeasurement.uuid, indicate: false))
        #expect(
            server.handle([ATTOpcode.writeRequest] + Self.le(cccd) + [0x02, 0x00])
                == Self.error(ATTOpcode.writeRequest, cccd, ATTErrorCode.cccdImproperlyConfigured),
            "indications on a notify-only characteristic"
        )
        #expect(
            server.handle([ATTOpcode.writeRequest] + Self.le(cccd) + [0x01])
                == Self.error(ATTOpcode.writeRequest, cccd, ATTErrorCode.invalidAttributeValueLength)
        )
        #expect(server.handle([ATTOpcode.writeRequest] + Self.le(cccd) + [0x01, 0x00]) == [ATTOpcode.writeResponse])
        #expect(server.subscribed(HeartRateMeasurement.uuid, indicate: false))
        #expect(server.allSubscribed == false, "the battery level is not subscribed yet")
        server.reset()
        #expect(!server.subscribed(HeartRateMeasurement.uuid, indicate: false), "a new connection starts unsubscribed")
        #expect(server.mtu == 23)
    }

    @Test func testWritesNeedTheWritePropertyAndRACPNeedsIndications() throws {
        let database = GATTDatabase.forDevice(.glucometer, name: "meter")
        let server = ATTServer(database: database)
        let feature = try #require(database.characteristic(GlucoseFeature.uuid))
        #expect(
            server.handle([ATTOpcode.writeRequest] + Self.le(feature.valueHandle) + [0, 0])
                == Self.error(ATTOpcode.writeRequest, feature.valueHandle, ATTErrorCode.writeNotPermitted)
        )
        #expect(
            server.handle([ATTOpcode.writeCommand] + Self.le(feature.valueHandle) + [0, 0]) == nil,
            "a command gets no error"
        )
        let racp = try #require(database.characteristic(RecordAccessControlPoint.uuid))
        let reportAll: [UInt8] = [0x01, 0x01]
        #expect(
            server.handle([ATTOpcode.writeRequest] + Self.le(racp.valueHandle) + reportAll)
                == Self.error(ATTOpcode.writeRequest, racp.valueHandle, ATTErrorCode.cccdImproperlyConfigured),
            "a RACP request before indications are enabled"
        )
        let cccd = try #require(racp.cccdHandle)
        #expect(server.handle([ATTOpcode.writeRequest] + Self.le(cccd) + [0x02, 0x00]) == [ATTOpcode.writeResponse])
        #expect(
            server.handle([ATTOpcode.writeRequest] + Self.le(racp.valueHandle) + reportAll) == [ATTOpcode.writeResponse]
        )
    }

    @Test func testUnknownRequestsAreNotSupportedAndUnknownCommandsIgnored() {
        let server = ATTServer(database: GATTDatabase.forDevice(.thermometer, name: "thermo"))
        #expect(server.handle([0x20, 0x01, 0x00]) == Self.error(0x20, 0, ATTErrorCode.requestNotSupported))
        #expect(server.handle([0x7F]) == nil, "bit 6 set: a command, never answered")
        #expect(server.handle([]) == nil)
        #expect(
            server.handle(
                [ATTOpcode.readByGroupTypeRequest] + Self.le(0) + Self.le(0xFFFF)
                    + Self.le(GATTAttributeType.primaryService)
            )
                == Self.error(ATTOpcode.readByGroupTypeRequest, 0, ATTErrorCode.invalidHandle),
            "handle 0 is never valid"
        )
        #expect(
            server.handle([ATTOpcode.readByGroupTypeRequest] + Self.le(1) + Self.le(0xFFFF) + Self.le(0x2803))
                == Self.error(ATTOpcode.readByGroupTypeRequest, 1, ATTErrorCode.unsupportedGroupType)
        )
    }
}
