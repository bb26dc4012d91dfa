import Foundation
import XCTest

/// Recordings from the field (`scenarios/traces/field-recordings.yaml`: a Dexcom Clarity export,
/// an Apple Health export, a btsnoop capture, a CSV and VitalSim's readings.jsonl) replayed live
/// beside generated devices: the reference SUT passes and the evidence bundle carries the recordings,
/// so that replay regenerates the traffic.
final class TraceRunTests: XCTestCase {
    var directory = ""
    let root = TestSupport.repositoryRoot
    var scenario: String { root + "/scenarios/traces/field-recordings.yaml" }

    override func setUpWithError() throws { directory = TestSupport.temporaryDirectory("traces") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testARealWorldExportReplaysAndItsLowIsJudged() throws {
        let validate = try TestSupport.vitalsim(["validate", scenario], in: directory)
        XCTAssertTrue(validate.out.contains("7 traced device(s) with 1547 recorded reading(s)"), validate.out)
        let evidence = directory + "/evidence"
        let good = try TestSupport.vitalsim(
            ["run", scenario, "--golden-dir", root + "/golden", "--evidence", evidence],
            in: directory
        )
        XCTAssertEqual(good.status, 0, good.out + good.err)
        XCTAssertTrue(good.out.contains("PASS field-recordings"), good.out)
        let bundle = evidence + "/field-recordings"
        let files = [
            "clarity-export.csv", "export.xml", "strap-capture.btsnoop", "electrocardiograms/ecg_2024-11-08_1.csv",
        ]
        for file in files.map({ "recordings/" + $0 }) {
            XCTAssertTrue(FileManager.default.fileExists(atPath: bundle + "/" + file), file)
        }
        let replay = try TestSupport.vitalsim(["replay", bundle], in: directory)
        XCTAssertEqual(replay.status, 0, replay.out + replay.err)
        // A SUT that misses the export's low is caught in-process (`LiveHarnessTests.InProcessFaultTests`).
    }

    func testTracedDevicesTravelOverMQTTAsRawGATT() throws {
        // The second patient's recordings (a capture, a CSV, readings.jsonl) relayed as raw GATT
        // values over MQTT. (All of one patient's devices: the reference SUT reads a patient's time
        // from its readings in arrival order, which two transports at full speed do not keep.)
        var text = try String(contentsOfFile: scenario, encoding: .utf8)
        for type in ["heart-rate-strap", "pulse-oximeter", "thermometer"] {
            text = text.replacingOccurrences(
                of: "        type: \(type)\n",
                with: "        type: \(type)\n        transport: mqtt\n"
            )
        }
        text = text.replacingOccurrences(
            of: "      - id: cuff-rec-2\n        type: bp-cuff\n",
            with: "      - id: cuff-rec-2\n        type: bp-cuff\n        transport: mqtt\n"
        )
        text = text.replacingOccurrences(of: "recordings/", with: root + "/scenarios/traces/recordings/")
        XCTAssertEqual(text.components(separatedBy: "transport: mqtt").count, 5, text)
        try text.write(toFile: directory + "/mqtt.yaml", atomically: true, encoding: .utf8)
        let expect = try TestSupport.vitalsim(["expect", directory + "/mqtt.yaml"], in: directory)
        XCTAssertEqual(expect.status, 0, expect.out + expect.err)
        XCTAssertTrue(expect.out.contains("hr.tachycardia (medium)  evidence rec-2/strap-rec-2/"), expect.out)
        let record = try TestSupport.vitalsim(
            ["record", directory + "/mqtt.yaml", "--golden-dir", directory],
            in: directory,
            environment: ["CI": nil]
        )
        XCTAssertEqual(record.status, 0, record.out + record.err)
        XCTAssertFalse(record.err.contains("disagrees"), "the SUT raised what the oracle derives:\n" + record.err)
        let run = try TestSupport.vitalsim(["run", directory + "/mqtt.yaml", "--golden-dir", directory], in: directory)
        XCTAssertEqual(run.status, 0, run.out + run.err)
        XCTAssertTrue(run.out.contains("MQTT"), run.out)
    }
}
