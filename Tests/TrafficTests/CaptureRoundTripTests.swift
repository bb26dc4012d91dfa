import Foundation
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// A device's capture (btsnoop, as `vitalsim generate` writes it with the link's characteristic
/// discovery) and its `readings.jsonl` lines, each replayed as a trace, give back the values and
/// times the device measured.
final class CaptureRoundTripTests: XCTestCase {
    func testACaptureAndItsReadingsReplayAsMeasured() throws {
        let dir = Fixtures.temporaryDirectory("roundtrip")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = """
            name: source
            seed: 77
            duration: 40m
            start: 2024-11-07T06:00:00Z
            patients:
              - id: "p"
                profile: adult
                devices:
                  - {id: strap, type: heart-rate-strap, cadence: 2s}
                  - {id: cuff, type: bp-cuff, cadence: 10m}
            timeline:
              - {at: 10m, patient: "p", event: tachycardia, duration: 20m, target: 128}
            """
        try source.write(toFile: dir + "/source.yaml", atomically: true, encoding: .utf8)
        _ = try CaptureGenerator(scenario: ScenarioLoader.load(path: dir + "/source.yaml")).generate(into: dir + "/out")
        let lines = try String(contentsOfFile: dir + "/out/readings.jsonl", encoding: .utf8).split(separator: "\n")
        let measured = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["device"] as? String == "strap" && $0["kind"] as? String == "heart-rate" }
        let replay = """
            name: replay
            duration: 2h
            start: 2024-11-07T00:00:00Z
            patients:
              - id: "q"
                profile: adult
                devices:
                  - {id: from-capture, type: heart-rate-strap, trace: {file: out/captures/p-strap.btsnoop, at: 1h}}
                  - {id: from-jsonl, type: heart-rate-strap, trace: {file: out/readings.jsonl, from-device: strap, at: 1h}}
                  - {id: cuff-capture, type: bp-cuff, trace: {file: out/captures/p-cuff.btsnoop}}
            """
        try replay.write(toFile: dir + "/replay.yaml", atomically: true, encoding: .utf8)
        let scenario = try TracedScenarioLoader.load(path: dir + "/replay.yaml")
        let devices = scenario.patients[0].devices
        let capture = try XCTUnwrap(devices[0].trace?.readings)
        let jsonl = try XCTUnwrap(devices[1].trace?.readings)
        XCTAssertGreaterThan(measured.count, 1000)
        XCTAssertEqual(capture.count, measured.count, "every notification")
        XCTAssertEqual(
            capture.map { $0.values["heart-rate"] },
            measured.map { ($0["heartRate"] as? NSNumber)?.doubleValue }
        )
        XCTAssertEqual(jsonl.map(\.values), capture.map(\.values))
        XCTAssertEqual(
            jsonl.map(\.start),
            capture.map(\.start),
            "notified as measured: capture and readings agree on time"
        )
        XCTAssertGreaterThan(capture.map { $0.values["heart-rate"]! }.max()!, 115, "the tachycardia is in the capture")
        let cuffMeasured = lines.filter {
            $0.contains("\"device\":\"cuff\"") && $0.contains("\"kind\":\"blood-pressure\"")
        }.count
        XCTAssertEqual(
            devices[2].trace?.readings?.count,
            cuffMeasured,
            "indications decoded, at the cuff's own time stamps"
        )
    }

    /// A capture without characteristic discovery (recording started after the connection) is read
    /// through the trace's `handle`; without it, the capture holds nothing the device sends.
    func testACaptureWithoutDiscoveryIsReadThroughItsHandle() throws {
        let dir = Fixtures.temporaryDirectory("handle")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((v >> $0) & 0xFF) } }
        var file: [UInt8] = Array("btsnoop".utf8) + [0] + be32(1) + be32(1002)
        for (i, bpm) in [72, 75].enumerated() {
            // H4 ACL, handle 0x0040 (start), L2CAP CID 4, ATT notification of handle 0x0010: HR flags 0, bpm.
            let att: [UInt8] = [0x1B, 0x10, 0x00, 0x00, UInt8(bpm)]
            let l2cap: [UInt8] = [UInt8(att.count), 0, 0x04, 0x00] + att
            let packet: [UInt8] = [0x02, 0x40, 0x20, UInt8(l2cap.count), 0] + l2cap
            let micros = (1_730_966_400_000 + i * 1000) * 1000 + 0x00DC_DDB3_0F2F_8000
            file += be32(packet.count) + be32(packet.count) + be32(1) + be32(0)
            file += [56, 48, 40, 32, 24, 16, 8, 0].map { UInt8((micros >> $0) & 0xFF) } + packet
        }
        try Data(file).write(to: URL(fileURLWithPath: dir + "/late.btsnoop"))
        func yaml(_ trace: String) -> String {
            "name: t\nduration: 1h\npatients:\n  - id: p\n    profile: adult\n    devices:\n      - {id: s, type: heart-rate-strap, trace: \(trace)}\n"
        }
        try yaml("{file: late.btsnoop, handle: 16}").write(toFile: dir + "/t.yaml", atomically: true, encoding: .utf8)
        let readings = try XCTUnwrap(
            TracedScenarioLoader.load(path: dir + "/t.yaml").patients[0].devices[0].trace?.readings
        )
        XCTAssertEqual(readings.map(\.values), [["heart-rate": 72], ["heart-rate": 75]])
        XCTAssertEqual(readings.map(\.start), [0, 1000])
        try yaml("{file: late.btsnoop}").write(toFile: dir + "/t.yaml", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try TracedScenarioLoader.load(path: dir + "/t.yaml")) { error in
            XCTAssertTrue("\(error)".contains("holds no readings a heart-rate-strap sends"), "\(error)")
        }
    }
}
