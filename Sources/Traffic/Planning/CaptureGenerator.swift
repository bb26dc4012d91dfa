import Bluetooth
import Foundation
import VitalSimCore

/// `vitalsim generate`: runs a scenario offline and writes, per BLE device, a btsnoop capture
/// (controller set-up, connection, GATT discovery, then the notifications and indications at the
/// scenario's times) and one `readings.jsonl` with ground truth, payload hex, ids and times, and
/// `patients.json` (each patient's id and profile).
package struct CaptureGenerator {
    package struct Summary: Sendable {
        package var readings = 0
        package var captures: [String] = []
        package var jsonlPath = ""
    }

    package let scenario: Scenario
    package let seed: UInt64?

    package init(scenario: Scenario, seed: UInt64? = nil) {
        self.scenario = scenario
        self.seed = seed
    }

    /// Generates into `directory` (created if needed).
    package func generate(into directory: String) throws -> Summary {
        let fm = FileManager.default
        do { try fm.createDirectory(atPath: directory + "/captures", withIntermediateDirectories: true) } catch {
            throw FileText.Failure.unwritable(path: directory)
        }
        var run = ScenarioRun(scenario: scenario, seed: seed)
        let encoder = ReadingEncoder(startUnixMilliseconds: scenario.startUnixMilliseconds)
        var summary = Summary()
        var links: [LinkSession?] = []
        for (patientID, spec) in run.devices {
            guard spec.type.isBluetooth, spec.transport == .ble else {
                links.append(nil)
                continue
            }
            let path = "\(directory)/captures/\(patientID)-\(spec.id).btsnoop"
            links.append(try LinkSession(path: path, spec: spec, scenario: scenario, patientID: patientID))
            summary.captures.append(path)
        }
        // Who each patient is, for `vitalsim stats` to judge their readings by their profile, and
        // the baseline each one was generated with.
        let patients = JSONValue.object([("patients", .array(run.baselines.map(Self.patientJSON)))])
        do {
            try (patients.pretty() + "\n").write(
                toFile: directory + "/patients.json",
                atomically: true,
                encoding: .utf8
            )
        } catch {
            throw FileText.Failure.unwritable(path: directory + "/patients.json")
        }
        summary.jsonlPath = directory + "/readings.jsonl"
        let jsonl = try JSONLWriter(path: summary.jsonlPath)
        while let (reading, index) = run.next() {
            let payloads = encoder.encode(reading)
            links[index]?.record(reading, payloads)
            jsonl.write(ReadingRecord.json(reading, payloads: payloads, scenario: scenario))
            summary.readings += 1
        }
        for l in links { try l?.finish() }
        try jsonl.close()
        return summary
    }

    /// A patient's id, profile, baseline values and which of them were drawn from the population.
    static func patientJSON(_ entry: (patient: PatientSpec, baseline: Baseline)) -> JSONValue {
        let b = entry.baseline
        let baseline = BaselineField.allCases.map { field in
            (
                field.rawValue,
                b.value(of: field).map { JSONValue.double(($0 * 1000).rounded() / 1000) }
                    ?? .string(b.diabetes.rawValue)
            )
        }
        let drawn = BaselineField.allCases.filter { entry.patient.drawn.contains($0) }.map {
            JSONValue.string($0.rawValue)
        }
        return .object([
            ("id", .string(entry.patient.id)), ("profile", .string(entry.patient.profile.rawValue)),
            ("baseline", .object(baseline)), ("drawn", .array(drawn)),
        ])
    }
}

/// One BLE device's simulated connection, driving a ``LinkRecorder`` from the device's faults.
final class LinkSession {
    let recorder: LinkRecorder
    let start: Int64
    let disconnects: [DeviceFault]
    var downDone: Set<Int64> = []
    var upDone: Set<Int64> = []
    var inBackfill = false
    let storesRecords: Bool

    init(path: String, spec: DeviceSpec, scenario: Scenario, patientID: String) throws {
        start = scenario.startUnixMilliseconds
        recorder = LinkRecorder(
            database: GATTDatabase.forDevice(spec.type, name: "VitalSim \(spec.type.rawValue)"),
            writer: try BTSnoopWriter(path: path)
        )
        disconnects = scenario.faults(for: spec.id).filter { $0.kind == .disconnect }
        storesRecords = spec.type == .glucometer || spec.type == .cgm
        let t0 = start * 1000
        let address = StaticRandomAddress.derive(seed: scenario.seed, label: "\(patientID)/\(spec.id)")
        recorder.powerOn(at: t0 - 2_000_000, name: spec.id, address: address)
        recorder.connect(at: t0 - 1_000_000, central: [0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0])
        recorder.discovery(at: t0 - 900_000)
        recorder.subscribeAll(at: t0 - 500_000)
    }

    func record(_ r: Reading, _ payloads: [EncodedPayload]) {
        let microseconds = (start + r.intendedEmitTime) * 1000
        // Link state changes that happened before this reading.
        for d in disconnects {
            let down = (start + d.start) * 1000
            let up = (start + d.end) * 1000
            if microseconds >= down, !downDone.contains(d.start) {
                downDone.insert(d.start)
                if recorder.connected { recorder.disconnect(at: down) }
            }
            if microseconds >= up, !upDone.contains(d.start) {
                upDone.insert(d.start)
                recorder.connect(at: up, central: [0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0])
                recorder.subscribeAll(at: up + 50_000)
                if storesRecords, r.delivery.backfill {
                    recorder.racpRequest(
                        r.deviceType == .glucometer
                            ? .report(fromSequence: UInt16(truncatingIfNeeded: r.seq)) : .reportAll,
                        at: up + 80_000
                    )
                    inBackfill = true
                }
            }
        }
        guard recorder.connected else { return }
        if inBackfill, !r.delivery.backfill, r.kind != .battery {
            recorder.racpDone(.reportStoredRecords, at: microseconds - 1000)
            inBackfill = false
        }
        for (i, p) in payloads.enumerated() {
            guard let uuid = p.characteristic else { continue }
            recorder.send(
                characteristic: uuid,
                value: p.bytes,
                indicate: p.indicate,
                at: microseconds + Int64(i) * 1000
            )
        }
    }

    func finish() throws {
        if inBackfill { recorder.racpDone(.reportStoredRecords, at: recorder.lastTimestamp + 1000) }
        try recorder.finish()
    }
}
