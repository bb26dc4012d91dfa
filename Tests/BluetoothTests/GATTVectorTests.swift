import Bluetooth
import Testing
import VitalSimCore
import XCTest

/// Byte-exact vectors from the Bluetooth SIG layouts and the CGMS specification's own examples
/// (docs/gatt.md), decoded and re-encoded.
final class GATTVectorTests: XCTestCase {
    func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex)! }

    func roundTrip<T: GATTCharacteristic>(
        _ type: T.Type,
        _ hex: String,
        file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> T {
        let decoded = bytes(hex)
        let value = try T.decode(decoded)
        XCTAssertEqual(try value.encode(), decoded, "re-encoding \(T.name) changed the bytes", file: file, line: line)
        return value
    }

    func testHeartRateMeasurement() throws {
        let measurement = try roundTrip(HeartRateMeasurement.self, "16 48 52 03 5C 03")
        XCTAssertEqual(measurement.heartRate, 72)
        XCTAssertEqual(measurement.contact, .detected)
        XCTAssertEqual(measurement.rrIntervals, [850, 860])
        XCTAssertNil(measurement.energyExpended)
        let second = try roundTrip(HeartRateMeasurement.self, "0D 2C 01 D2 04")
        XCTAssertEqual(second.heartRate, 300)
        XCTAssertEqual(second.contact, .notDetected)
        XCTAssertEqual(second.energyExpended, 1234)
        XCTAssertEqual(
            try HeartRateMeasurement(heartRate: 72, contact: .detected, rrIntervals: [850, 860]).encode(),
            bytes("16 48 52 03 5C 03")
        )
    }

    func testBloodPressureMeasurement() throws {
        let measurement = try roundTrip(
            BloodPressureMeasurement.self,
            "1E 78 00 50 00 5D 00 E8 07 05 11 0A 1E 00 48 00 01 04 00"
        )
        XCTAssertEqual(measurement.record.systolic.value, 120)
        XCTAssertEqual(measurement.record.diastolic.value, 80)
        XCTAssertEqual(measurement.record.meanArterial.value, 93)
        XCTAssertEqual(
            measurement.record.timestamp,
            DateTime(year: 2024, month: 5, day: 17, hours: 10, minutes: 30, seconds: 0)
        )
        XCTAssertEqual(measurement.record.pulseRate?.value, 72)
        XCTAssertEqual(measurement.record.userID, 1)
        XCTAssertEqual(measurement.record.status, 0x0004)
        let icp = try roundTrip(IntermediateCuffPressure.self, "00 8C 00 FF 07 FF 07")
        XCTAssertEqual(icp.record.systolic.value, 140)
        XCTAssertEqual(icp.record.diastolic.special, .nan)
        XCTAssertEqual(try IntermediateCuffPressure(cuffPressure: 140)!.encode(), bytes("00 8C 00 FF 07 FF 07"))
    }

    func testGlucoseMeasurementAndContext() throws {
        let glucose = try roundTrip(GlucoseMeasurement.self, "1F 02 00 E8 07 05 11 0A 1E 00 FB FF 37 C0 12 01 00")
        XCTAssertEqual(glucose.sequenceNumber, 2)
        XCTAssertEqual(glucose.timeOffset, -5)
        XCTAssertEqual(glucose.concentration?.description, "0.0055")
        XCTAssertTrue(glucose.unitsMolPerL)
        XCTAssertEqual(glucose.type, 2)
        XCTAssertEqual(glucose.sampleLocation, 1)
        XCTAssertEqual(glucose.status, 1)
        XCTAssertTrue(glucose.contextFollows)
        XCTAssertEqual(glucose.milligramsPerDeciliter!, 99.088, accuracy: 0.01)
        let context = try roundTrip(GlucoseMeasurementContext.self, "5F 02 00 01 32 D0 01 51 58 02 32 01 0A A0 41 F0")
        XCTAssertEqual(context.sequenceNumber, 2)
        XCTAssertEqual(context.carbohydrate?.id, 1)
        XCTAssertEqual(context.carbohydrate?.kg.description, "0.050")
        XCTAssertEqual(context.meal, 1)
        XCTAssertEqual(
            context.testerHealth?.tester,
            1,
            "Tester is the low nibble (SIG XML, Nordic); Wireshark 4.0 swaps them"
        )
        XCTAssertEqual(context.testerHealth?.health, 5)
        XCTAssertEqual(context.exercise?.seconds, 600)
        XCTAssertEqual(context.exercise?.intensity, 50)
        XCTAssertEqual(context.medication?.id, 1)
        XCTAssertEqual(context.hbA1c?.description, "6.5")
    }

    func testCGMMeasurementSpecExampleAndCRC() throws {
        let measurement = try roundTrip(CGMMeasurement.self, "0C 03 5F 00 0A 00 F1 FF 62 00 86 CE")
        XCTAssertEqual(measurement.records.count, 1)
        XCTAssertEqual(measurement.records[0].glucose.value, 95)
        XCTAssertEqual(measurement.records[0].timeOffset, 10)
        XCTAssertEqual(measurement.records[0].trend?.description, "-1.5")
        XCTAssertEqual(measurement.records[0].quality?.value, 98)
        XCTAssertTrue(measurement.records[0].hasCRC)
        XCTAssertEqual(CRC16.mcrf4xx(Array("123456789".utf8)), 0x6F91)
        XCTAssertEqual(CRC16.mcrf4xx(bytes("3E 01 02 03 04 05 06 07 08 09")), 0x2F01)
        XCTAssertThrowsError(try CGMMeasurement.decode(bytes("0C 03 5F 00 0A 00 F1 FF 62 00 86 CF"))) { e in
            XCTAssertEqual(
                e as? GATTError,
                .crcMismatch(characteristic: "cgm-measurement", offset: 10, expected: 0xCE86, found: 0xCF86)
            )
        }
        // Two records in one value, the second without CRC and with a status octet.
        let two = try roundTrip(CGMMeasurement.self, "0C 03 5F 00 0A 00 F1 FF 62 00 86 CE 07 80 64 00 0F 00 02")
        XCTAssertEqual(two.records.count, 2)
        XCTAssertEqual(two.records[1].status, 0x02)
        XCTAssertFalse(two.records[1].hasCRC)
    }

    func testPulseOximeter() throws {
        let spotCheck = try roundTrip(PLXSpotCheckMeasurement.self, "03 62 00 48 00 E8 07 05 11 0A 1E 00 00 01")
        XCTAssertEqual(spotCheck.spo2.value, 98)
        XCTAssertEqual(spotCheck.pulseRate.value, 72)
        XCTAssertEqual(spotCheck.measurementStatus, 0x0100)
        let continuous = try roundTrip(PLXContinuousMeasurement.self, "01 61 00 46 00 60 00 47 00")
        XCTAssertEqual(continuous.spo2.value, 97)
        XCTAssertEqual(continuous.pulseRate.value, 70)
        XCTAssertEqual(continuous.fast?.spo2.value, 96)
        XCTAssertEqual(continuous.fast?.pulseRate.value, 71)
    }

    func testTemperatureWeightBattery() throws {
        let temperature = try roundTrip(TemperatureMeasurement.self, "04 72 01 00 FF 02")
        XCTAssertEqual(temperature.record.value.description, "37.0")
        XCTAssertEqual(temperature.record.type, 2)
        let fahrenheit = try roundTrip(TemperatureMeasurement.self, "03 DA 03 00 FF E8 07 05 11 0A 1E 00")
        XCTAssertTrue(fahrenheit.record.fahrenheit)
        XCTAssertEqual(fahrenheit.record.value.description, "98.6")
        XCTAssertEqual(try WeightMeasurement(kilograms: 70.5)!.encode(), bytes("00 14 37"))
        XCTAssertEqual(try roundTrip(WeightMeasurement.self, "00 14 37").weight!, 70.5, accuracy: 1e-9)
        XCTAssertEqual(try roundTrip(BatteryLevel.self, "5F").value, 95)
        XCTAssertThrowsError(try BatteryLevel.decode([101]))
    }

    func testRACP() throws {
        XCTAssertEqual(try RecordAccessControlPoint.reportAll.encode(), bytes("01 01"))
        XCTAssertEqual(
            try RecordAccessControlPoint.response(to: .reportStoredRecords, .success).encode(),
            bytes("06 00 01 01")
        )
        XCTAssertEqual(try RecordAccessControlPoint.numberOfRecords(3).encode(), bytes("05 00 03 00"))
        XCTAssertEqual(try RecordAccessControlPoint.report(fromSequence: 0x0102).encode(), bytes("01 03 01 02 01"))
        XCTAssertEqual(try roundTrip(RecordAccessControlPoint.self, "01 03 01 02 01").sequenceFilter, 0x0102)
        XCTAssertThrowsError(try RecordAccessControlPoint.decode(bytes("07 00")))
        XCTAssertThrowsError(try RecordAccessControlPoint.decode(bytes("06 00 01")))
    }

    /// No characteristic value is longer than ATT's 512 bytes: every decoder refuses one before
    /// reading a field (a 32 MB heart-rate value once held 16.7 M RR intervals in the SUT).
    func testValuesLongerThanAnAttributeAreRefused() throws {
        for type in CharacteristicRegistry.all {
            let long = [UInt8](repeating: 0, count: 513)
            do throws(GATTError) {
                _ = try type.decode(long)
                XCTFail("\(type.name) decoded 513 bytes")
            } catch {
                XCTAssertEqual(error, .tooLong(characteristic: type.name, length: 513, limit: 512))
            }
        }
        // The longest heart-rate value that fits: flags, 8-bit rate and 255 RR intervals.
        let rr: [UInt8] = (0..<510).map { $0 % 2 == 0 ? 0x00 : 0x04 }
        let longest = try HeartRateMeasurement.decode([0x10, 0x48] + rr)
        XCTAssertEqual(longest.rrIntervals.count, 255)
        XCTAssertTrue(GATTError.tooLong(characteristic: "x", length: 600, limit: 512).description.contains("600 bytes"))
    }

    /// The round trips: the contact bits 1 and the exponent of a FLOAT survive the JSON.
    func testDecodedJSONNamesWhatTheBytesCarry() throws {
        let j0 = try CharacteristicRegistry.decodeToJSON(HeartRateMeasurement.self, bytes("0008")).serialized()
        let j1 = try CharacteristicRegistry.decodeToJSON(HeartRateMeasurement.self, bytes("0208")).serialized()
        XCTAssertNotEqual(j0, j1)
        XCTAssertTrue(j1.contains(#""sensorContactBits":1"#), j1)
        let json = try CharacteristicRegistry.decodeToJSON(TemperatureMeasurement.self, bytes("00f600ff07"))
            .serialized()
        XCTAssertTrue(json.contains(#""temperature":-65290E7,"temperatureExponent":7"#), json)
        let fields = ["temperature": "-652900000000.0", "temperatureExponent": "7", "unit": "Celsius"]
        XCTAssertEqual(
            try CharacteristicRegistry.encode(TemperatureMeasurement.self, fields: fields),
            bytes("00f600ff07")
        )
        XCTAssertThrowsError(
            try CharacteristicRegistry.encode(
                TemperatureMeasurement.self,
                fields: ["temperature": "36.65", "temperatureExponent": "-1"]
            ),
            "36.65 is not a multiple of 0.1"
        )
    }

    func testSFloatTable() {
        let rows: [(Int, Int, UInt16)] = [
            (120, 0, 0x0078), (160, -1, 0xF0A0), (55, -4, 0xC037), (70, -4, 0xC046), (100, -5, 0xB064),
            (120, -5, 0xB078),
            (-15, -1, 0xFFF1),
        ]
        for (m, e, raw) in rows {
            let float = SFloat(mantissa: m, exponent: e)!
            XCTAssertEqual(float.raw, raw, "\(m)e\(e)")
            XCTAssertEqual(SFloat(raw: raw).mantissa, m)
            XCTAssertEqual(SFloat(raw: raw).exponent, e)
        }
        XCTAssertEqual(MedFloat(mantissa: 370, exponent: -1)!.raw, 0xFF00_0172)
        XCTAssertEqual(MedFloat(mantissa: 986, exponent: -1)!.raw, 0xFF00_03DA)
        XCTAssertEqual(MedFloat(mantissa: -400, exponent: -1)!.raw, 0xFFFF_FE70)
        XCTAssertEqual(SFloat(raw: 0x07FF).special, .nan)
        XCTAssertEqual(SFloat(raw: 0x0800).special, .nres)
        XCTAssertEqual(SFloat(raw: 0x07FE).value, .infinity)
        XCTAssertEqual(SFloat(raw: 0x0802).value, -.infinity)
        XCTAssertEqual(SFloat(raw: 0x0801).special, .reserved)
        XCTAssertEqual(MedFloat(raw: 0x007F_FFFF).special, .nan)
        XCTAssertEqual(MedFloat(raw: 0x0080_0000).special, .nres)
        XCTAssertEqual(MedFloat(raw: 0x007F_FFFE).value, .infinity)
        XCTAssertEqual(MedFloat(raw: 0x0080_0002).value, -.infinity)
        XCTAssertNil(SFloat(mantissa: 2046, exponent: 0), "mantissas that collide with special values are not emitted")
        XCTAssertEqual(SFloat(decimal: "0.0055")?.raw, 0xC037)
        XCTAssertEqual(SFloat(decimal: "12000")?.description, "1200E1")
        XCTAssertEqual(SFloat(123.456, exponent: -1)?.description, "123.5")
    }

    func testRegistryLookup() throws {
        XCTAssertTrue(try CharacteristicRegistry.lookup("0x2A37") == HeartRateMeasurement.self)
        XCTAssertTrue(try CharacteristicRegistry.lookup("2a35") == BloodPressureMeasurement.self)
        XCTAssertTrue(try CharacteristicRegistry.lookup("weight-measurement") == WeightMeasurement.self)
        XCTAssertTrue(try CharacteristicRegistry.lookup("00002a19-0000-1000-8000-00805f9b34fb") == BatteryLevel.self)
        XCTAssertTrue(
            try CharacteristicRegistry.lookup("org.bluetooth.characteristic.heart_rate_measurement")
                == HeartRateMeasurement.self
        )
        XCTAssertTrue(try CharacteristicRegistry.lookup("Blood Pressure Measurement") == BloodPressureMeasurement.self)
        XCTAssertThrowsError(try CharacteristicRegistry.lookup("0x2A99"))
        let json = try CharacteristicRegistry.decodeToJSON(HeartRateMeasurement.self, bytes("16 48 52 03 5C 03"))
        XCTAssertEqual(json["heartRate"], .int(72))
        XCTAssertEqual(json["rrIntervals"], .array([.int(850), .int(860)]))
        XCTAssertEqual(
            try CharacteristicRegistry.encode(
                HeartRateMeasurement.self,
                fields: ["heart-rate": "72", "sensor-contact": "detected", "rr-intervals": "850,860"]
            ),
            bytes("16 48 52 03 5C 03")
        )
        XCTAssertThrowsError(
            try CharacteristicRegistry.encode(HeartRateMeasurement.self, fields: ["heart-rate": "72", "colour": "red"])
        )
    }
}

/// Bytes a decoder refuses, one test case each: the error names the characteristic, the byte
/// offset and the field, and says what is wrong (truncated, reserved bits, trailing bytes, a value
/// out of its range).
struct GATTDecoderErrorTests {
    /// The characteristic decoders by their registry name.
    static func decoder(_ name: String) -> any GATTCharacteristic.Type {
        switch name {
        case "heart-rate-measurement": HeartRateMeasurement.self
        case "blood-pressure-measurement": BloodPressureMeasurement.self
        case "glucose-measurement": GlucoseMeasurement.self
        default: CGMMeasurement.self
        }
    }

    /// (characteristic, bytes in hex, the error).
    static let refusals: [(String, String, GATTError)] = [
        (
            "heart-rate-measurement", "16",
            .truncated(
                characteristic: "heart-rate-measurement",
                offset: 1,
                field: "Heart Rate Measurement Value (uint8)",
                needed: 1,
                available: 0
            )
        ),
        (
            "heart-rate-measurement", "16 48 52",
            .truncated(
                characteristic: "heart-rate-measurement",
                offset: 2,
                field: "RR-Interval",
                needed: 2,
                available: 1
            )
        ),
        (
            "heart-rate-measurement", "96 48",
            .reservedBits(characteristic: "heart-rate-measurement", offset: 0, field: "Flags", value: 0x80)
        ),
        (
            "heart-rate-measurement", "06 48 00",
            .trailingBytes(characteristic: "heart-rate-measurement", offset: 2, count: 1)
        ),
        (
            "blood-pressure-measurement", "02 78 00 50 00 5D 00 E8 07 0D 11 0A 1E 00",
            .invalidValue(
                characteristic: "blood-pressure-measurement",
                offset: 7,
                field: "Time Stamp",
                reason: "month 13 outside 0...12"
            )
        ),
        (
            "glucose-measurement", "02 02 00 E8 07 05 11 0A 1E 00 37 C0 0B",
            .invalidValue(
                characteristic: "glucose-measurement",
                offset: 12,
                field: "Type",
                reason: "11 is reserved; valid 1...10"
            )
        ),
        (
            "cgm-measurement", "05 00 5F 00 0A",
            .invalidValue(
                characteristic: "cgm-measurement",
                offset: 0,
                field: "Size",
                reason: "5 is below the minimum record size 6"
            )
        ),
    ]

    @Test(arguments: refusals)
    func refusedBytesNameCharacteristicOffsetAndField(_ name: String, _ hex: String, _ expected: GATTError) {
        let bytes = hex.split(separator: " ").map { UInt8($0, radix: 16)! }
        #expect(throws: expected) { _ = try Self.decoder(name).decode(bytes) }
    }

    @Test func theMessageSaysWhichCharacteristicAndByte() {
        do {
            _ = try HeartRateMeasurement.decode([0x16])
            Issue.record("decoded")
        } catch {
            #expect(error.description.contains("heart-rate-measurement") && error.description.contains("byte 1"))
        }
    }
}
