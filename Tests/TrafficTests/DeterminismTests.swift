import Foundation
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// Same scenario and seed ⇒ byte-identical captures and JSONL; another seed ⇒ different output;
/// adding a patient never changes another patient's readings.
final class DeterminismTests: XCTestCase {
    func files(_ dir: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: dir)!
        while let file = enumerator.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + file, isDirectory: &isDir), !isDir.boolValue {
                out[file] = FileManager.default.contents(atPath: dir + "/" + file)
            }
        }
        return out
    }

    func generate(_ path: String, seed: UInt64? = nil) throws -> [String: Data] {
        let dir = Fixtures.temporaryDirectory("det")
        _ = try CaptureGenerator(scenario: try ScenarioLoader.load(path: path), seed: seed).generate(into: dir)
        return try files(dir)
    }

    func testSameSeedGivesByteIdenticalOutput() throws {
        for name in ["device-dropout-and-backfill", "corrupt-and-duplicate-payloads", "atrial-fibrillation-onset"] {
            let path = Fixtures.repositoryRoot + "/scenarios/core/\(name).yaml"
            let first = try generate(path)
            let second = try generate(path)
            XCTAssertGreaterThanOrEqual(first.count, 3, name)
            XCTAssertEqual(first.keys.sorted(), second.keys.sorted(), name)
            for (k, v) in first { XCTAssertEqual(v, second[k], "\(name)/\(k) differs between two runs") }
        }
    }

    func testAnotherSeedGivesDifferentOutput() throws {
        let path = Fixtures.repositoryRoot + "/scenarios/core/adult-tachycardia-episode.yaml"
        let first = try generate(path)
        let second = try generate(path, seed: 99)
        XCTAssertNotEqual(first["readings.jsonl"], second["readings.jsonl"])
        XCTAssertNotEqual(first["captures/501-hrm-501.btsnoop"], second["captures/501-hrm-501.btsnoop"])
    }

    func testAddingAPatientDoesNotChangeAnother() throws {
        let one = """
            name: split
            seed: 3
            duration: 30m
            patients:
              - id: a
                profile: adult
                devices: [{id: hrm-a, type: heart-rate-strap}, {id: cgm-a, type: cgm}]
            """
        let two =
            one + "\n  - id: b\n    profile: copd\n    devices: [{id: oxi-b, type: pulse-oximeter, mode: continuous}]\n"
        func readings(_ yaml: String) throws -> [Reading] {
            var run = ScenarioRun(scenario: try ScenarioLoader.parse(yaml, file: "x.yaml"))
            var out: [Reading] = []
            while let (reading, _) = run.next() { if reading.patientID == "a" { out.append(reading) } }
            return out
        }
        let a1 = try readings(one)
        let a2 = try readings(two)
        XCTAssertGreaterThan(a1.count, 1000)
        XCTAssertEqual(a1, a2, "patient a's readings changed when patient b was added")
    }

    /// A device's `phase` moves each of its measurements, and its battery reports, later by that
    /// much, cadence or schedule.
    func testAPhaseShiftsEveryMeasurement() throws {
        func times(phase: String) throws -> [String: [Int64]] {
            let yaml = """
                name: phased
                seed: 3
                adherence: exact
                start: 2024-11-07T06:30:00Z
                duration: 3h
                patients:
                  - id: a
                    profile: adult
                    devices: [{id: cgm-a, type: cgm, cadence: 5m\(phase)}, {id: cuff-a, type: bp-cuff, schedule: ["07:00", "08:45"]\(phase)}]
                """
            var run = ScenarioRun(scenario: try ScenarioLoader.parse(yaml, file: "x.yaml"))
            var out: [String: [Int64]] = [:]
            while let (reading, _) = run.next() {
                out[reading.deviceID + (reading.kind == .battery ? "/battery" : ""), default: []].append(
                    reading.measuredAt
                )
            }
            return out
        }
        let aligned = try times(phase: "")
        let phased = try times(phase: ", phase: 2m17s")
        XCTAssertEqual(aligned["cgm-a"]?.first, 300_000)
        XCTAssertEqual(aligned["cgm-a"]?.count, 35)
        XCTAssertEqual(phased["cgm-a"], aligned["cgm-a"]?.map { $0 + 137_000 })
        // A cuff's measurement brings its pressure indications over the minute before.
        XCTAssertEqual(aligned["cuff-a"]?.min(), 1_800_000)
        XCTAssertEqual(aligned["cuff-a"]?.filter { $0 >= 8_100_000 }.min(), 8_100_000)
        XCTAssertEqual(phased["cuff-a"]?.sorted(), aligned["cuff-a"]?.map { $0 + 137_000 }.sorted())
        // Battery reports, hourly from the start, move by the phase too.
        XCTAssertEqual(aligned["cgm-a/battery"], [0, 3_600_000, 7_200_000])
        XCTAssertEqual(phased["cgm-a/battery"], [137_000, 3_737_000, 7_337_000])
    }
}

/// A care team's escalation policy and actions are for the SUT and the judge: the readings and
/// requests a scenario sends are the same without them.
final class CareTeamTrafficTests: XCTestCase {
    func testEscalationAndActionsShapeNoTraffic() throws {
        let plain = """
            name: quiet
            seed: 7
            duration: 1h
            patients:
              - id: "731"
                profile: adult
                care-team: [{id: mia, role: caregiver}]
                devices: [{id: cuff-731, type: bp-cuff, cadence: 5m}]
            """
        let managed =
            plain.replacingOccurrences(
                of: "    devices:",
                with: "    escalation:\n      high: [{notify: mia}]\n    devices:"
            ) + "\ntimeline:\n  - {at: 30m, person: mia, patient: \"731\", action: acknowledge}\n"
        let a = try ScenarioLoader.parse(plain, file: "a.yaml")
        let b = try ScenarioLoader.parse(managed, file: "b.yaml")
        XCTAssertEqual(b.careActions.count, 1)
        XCTAssertFalse(b.patients[0].escalation.isEmpty)
        XCTAssertEqual(
            TrafficPlan.digest(TrafficPlan.requests(for: a)),
            TrafficPlan.digest(TrafficPlan.requests(for: b))
        )
    }
}
