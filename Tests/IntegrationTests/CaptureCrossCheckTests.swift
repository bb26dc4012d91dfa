import Bluetooth
import Foundation
import Traffic
import VitalSimCore
import XCTest

/// Generates captures for every BLE device type and has Wireshark's tshark (an independent decoder)
/// read them back: heart rate, RR, blood pressure, glucose, SpO2 and battery must equal readings.jsonl.
/// Fields tshark 4.0 decodes wrongly (FLOAT temperature, weight scaling, CGM) are checked with the
/// project's decoder against the payload bytes taken from the capture itself.
final class CaptureCrossCheckTests: XCTestCase {
    static let scenario = """
        name: all-ble
        seed: 5
        duration: 1h
        start: 2024-11-07T00:00:00Z
        adherence: exact
        patients:
          - id: "p1"
            profile: diabetic-cgm
            devices:
              - {id: hrm, type: heart-rate-strap}
              - {id: cuff, type: bp-cuff, schedule: ["00:10"]}
              - {id: meter, type: glucometer, schedule: ["00:05", "00:20", "00:40"]}
              - {id: cgm, type: cgm}
              - {id: oxi, type: pulse-oximeter, mode: continuous, cadence: 10s}
              - {id: spot, type: pulse-oximeter, schedule: ["00:12"]}
              - {id: therm, type: thermometer, cadence: 10m}
              - {id: scale, type: weight-scale, schedule: ["00:25"]}
        timeline:
          - {at: 15m, device: meter, fault: disconnect, duration: 15m}
          - {at: 20m, device: cgm, fault: disconnect, duration: 10m}
        """

    static let fields = [
        "btatt.opcode", "btatt.handle", "btatt.heart_rate_measurement.value.8",
        "btatt.heart_rate_measurement.rr_interval",
        "btatt.blood_pressure_measurement.compound_value.systolic.mmhg",
        "btatt.blood_pressure_measurement.compound_value.diastolic.mmhg",
        "btatt.blood_pressure_measurement.compound_value.arterial_pressure.mmhg",
        "btatt.blood_pressure_measurement.pulse_rate",
        "btatt.glucose_measurement.sequence_number", "btatt.glucose_measurement.glucose_concentration.kg_per_l",
        "btatt.plxs.spot_check_measurement.spo2", "btatt.plxs.spot_check_measurement.pulse_rate", "btatt.battery_level",
        "btatt.record_access_control_point.opcode",
    ]

    var output = ""

    override func setUpWithError() throws {
        let tshark = try TestSupport.run("tshark", ["--version"])
        guard tshark.status == 0 else {
            throw MissingTool(message: "tshark is required for this test: run ci/setup.sh (apt-get install tshark)")
        }
        output = TestSupport.temporaryDirectory("capture")
        let s = try ScenarioLoader.parse(Self.scenario, file: "all-ble.yaml")
        _ = try CaptureGenerator(scenario: s).generate(into: output)
    }

    func readings() throws -> [[String: Any]] {
        let text = try String(contentsOfFile: output + "/readings.jsonl", encoding: .utf8)
        return text.split(separator: "\n").map {
            try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    func tsharkRows(_ device: String) throws -> [[String]] {
        let args =
            [
                "-r", "\(output)/captures/p1-\(device).btsnoop", "-Y", "btatt.opcode == 0x1b || btatt.opcode == 0x1d",
                "-T", "fields",
                "-E", "separator=|", "-E", "occurrence=a",
            ] + Self.fields.flatMap { ["-e", $0] }
        let ran = try TestSupport.run("tshark", args)
        XCTAssertEqual(ran.status, 0, ran.err)
        return ran.out.split(separator: "\n").map {
            $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        }
    }

    func int(_ s: String) -> Int? { Int(s) ?? (s.hasPrefix("0x") ? Int(s.dropFirst(2), radix: 16) : nil) }

    func testTsharkDecodesTheSameValuesAsReadingsJSONL() throws {
        let all = try readings()
        var compared: [String: Int] = [:]
        for device in ["hrm", "cuff", "meter", "cgm", "oxi", "spot", "therm", "scale"] {
            let rows = try tsharkRows(device).filter { $0[13].isEmpty }  // RACP indications are checked separately
            var expected: [(reading: [String: Any], hex: String)] = []
            for r in all where r["device"] as? String == device {
                expected.append((r, r["payloadHex"] as! String))
                for extra in (r["extraPayloadsHex"] as? [String]) ?? [] { expected.append((r, extra)) }
            }
            XCTAssertEqual(
                rows.count,
                expected.count,
                "\(device): notifications/indications in the capture vs payloads in readings.jsonl"
            )
            for (row, (r, hex)) in zip(rows, expected) {
                let characteristic = r["characteristic"] as! String
                let isContext = hex != r["payloadHex"] as! String
                XCTAssertEqual(
                    row[0],
                    characteristic == "0x2A35" || characteristic == "0x2A5E" || characteristic == "0x2A1C"
                        || characteristic == "0x2A9D" ? "0x1d" : "0x1b",
                    "\(device) \(characteristic): notify vs indicate"
                )
                switch characteristic {
                case "0x2A19":
                    XCTAssertEqual(int(row[12]), r["batteryLevel"] as? Int)
                case "0x2A37":
                    XCTAssertEqual(int(row[2]), r["heartRate"] as? Int)
                    let rr = row[3].isEmpty ? [] : row[3].split(separator: ",").map { Int($0)! }
                    XCTAssertEqual(rr, r["rrIntervals"] as? [Int])
                case "0x2A35":
                    XCTAssertEqual(int(row[4]), r["systolic"] as? Int)
                    XCTAssertEqual(int(row[5]), r["diastolic"] as? Int)
                    XCTAssertEqual(int(row[6]), r["meanArterialPressure"] as? Int)
                    XCTAssertEqual(int(row[7]), r["pulseRate"] as? Int)
                case "0x2A36":
                    XCTAssertEqual(int(row[4]), r["cuffPressure"] as? Int)
                    XCTAssertEqual(row[5], "NaN")
                case "0x2A18" where !isContext:
                    XCTAssertEqual(int(row[8]), r["seq"] as? Int)
                    XCTAssertEqual((Double(row[9]) ?? -1) * 100_000, Double(r["glucose"] as! Int), accuracy: 1e-6)
                case "0x2A5E", "0x2A5F":
                    XCTAssertEqual(int(row[10]), r["spo2"] as? Int)
                    XCTAssertEqual(int(row[11]), r["pulseRate"] as? Int)
                default: break
                }
                compared[characteristic, default: 0] += 1
            }
        }
        for characteristic in [
            "0x2A19", "0x2A37", "0x2A35", "0x2A36", "0x2A18", "0x2A5E", "0x2A5F", "0x2A1C", "0x2A9D", "0x2AA7",
        ] {
            XCTAssertGreaterThan(compared[characteristic] ?? 0, 0, "no \(characteristic) payload was cross-checked")
        }
    }

    func testNoInvalidUsageOrMalformedPackets() throws {
        for device in ["hrm", "cuff", "meter", "cgm", "oxi", "spot", "therm", "scale"] {
            let ran = try TestSupport.run(
                "tshark",
                [
                    "-r", "\(output)/captures/p1-\(device).btsnoop", "-Y",
                    "btatt.invalid_usage || _ws.malformed || btl2cap.length != 0 && frame.len < 9",
                ]
            )
            XCTAssertEqual(ran.status, 0, ran.err)
            XCTAssertEqual(
                ran.out.trimmingCharacters(in: .whitespacesAndNewlines),
                "",
                "\(device): tshark flags invalid usage or malformed frames"
            )
        }
    }

    func testGlucoseBackfillUsesRACP() throws {
        let ran = try TestSupport.run(
            "tshark",
            [
                "-r", "\(output)/captures/p1-meter.btsnoop", "-Y", "btatt.record_access_control_point.opcode", "-T",
                "fields",
                "-e", "btatt.opcode", "-e", "btatt.record_access_control_point.opcode", "-e",
                "btatt.record_access_control_point.response_code",
            ]
        )
        let lines = ran.out.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        XCTAssertEqual(lines.count, 2, ran.out)
        XCTAssertEqual(lines.first?.first, "0x12", "the central writes a RACP request after reconnecting")
        XCTAssertEqual(lines.last?.first, "0x1d", "the meter ends the backfill with a RACP indication")
        XCTAssertEqual(lines.last?.last, "1", "RACP response code Success")
        let backfilled = try readings().filter {
            $0["device"] as? String == "meter" && (($0["delivery"] as? [String]) ?? []).contains("backfill")
        }
        XCTAssertEqual(backfilled.count, 1, "the 00:20 reading is stored during the disconnect and sent after it")
    }

    /// Temperature, weight and CGM: tshark 4.0 misdecodes them, so the bytes from the capture are
    /// decoded with VitalSim's decoders and compared with readings.jsonl.
    func testProjectDecoderReadsCaptureBytesForFieldsTsharkGetsWrong() throws {
        let all = try readings()
        for (device, uuid) in [("therm", "0x2A1C"), ("scale", "0x2A9D"), ("cgm", "0x2AA7")] {
            let records = try BTSnoopReader.read(path: "\(output)/captures/p1-\(device).btsnoop")
            let db = GATTDatabase.forDevice(
                device == "therm" ? .thermometer : device == "scale" ? .weightScale : .cgm,
                name: device
            )
            let handle = db.characteristic(UInt16(uuid.dropFirst(2), radix: 16)!)!.valueHandle
            // ACL(5) + L2CAP(4) + opcode(1) + handle(2): the value follows.
            let values = records.filter {
                $0.packet.count > 12 && $0.packet[0] == 2 && ($0.packet[9] == 0x1B || $0.packet[9] == 0x1D)
                    && UInt16($0.packet[10]) | UInt16($0.packet[11]) << 8 == handle
            }.map { Array($0.packet[12...]) }
            let expected = all.filter { $0["device"] as? String == device && $0["characteristic"] as? String == uuid }
            XCTAssertEqual(values.count, expected.count, device)
            for (v, r) in zip(values, expected) {
                XCTAssertEqual(Hex.encode(v), r["payloadHex"] as? String)
                switch device {
                case "therm":
                    XCTAssertEqual(
                        try TemperatureMeasurement.decode(v).record.value.value,
                        r["temperature"] as! Double,
                        accuracy: 1e-9
                    )
                case "scale":
                    XCTAssertEqual(try WeightMeasurement.decode(v).weight!, r["weight"] as! Double, accuracy: 0.0025)
                default:
                    XCTAssertEqual(try CGMMeasurement.decode(v).records[0].glucose.value, Double(r["glucose"] as! Int))
                }
            }
        }
    }
}

struct MissingTool: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
