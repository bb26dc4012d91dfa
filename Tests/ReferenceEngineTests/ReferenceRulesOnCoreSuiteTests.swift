import Bluetooth
import ReferenceEngine
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// The core scenarios, as bytes on the wire, decoded the way the reference SUT ingests raw GATT and
/// JSON, raise the alerts each scenario exists for, and not the ones it does not.
final class ReferenceRulesOnCoreSuiteTests: XCTestCase {
    func alerts(_ name: String) throws -> [String] {
        let scenario = try ScenarioLoader.load(path: Fixtures.repositoryRoot + "/scenarios/core/\(name).yaml")
        let engine = AlertEngine(
            rules: try RuleSetLoader.defaultRules(),
            profiles: Dictionary(uniqueKeysWithValues: scenario.patients.map { ($0.id, $0.profile) }),
            limits: Dictionary(uniqueKeysWithValues: scenario.patients.map { ($0.id, $0.thresholds) })
        )
        var run = ScenarioRun(scenario: scenario)
        let encoder = ReadingEncoder(startUnixMilliseconds: scenario.startUnixMilliseconds)
        var raised: [String] = []
        while let (reading, _) = run.next() {
            let received = scenario.startUnixMilliseconds + reading.deviceTime
            raised += engine.advance(to: received).map(\.rule)
            guard let payload = encoder.encode(reading).first else { continue }
            var observation: Observation?
            if let uuid = payload.characteristic {
                observation = try? GATTObservations.observation(
                    uuid: uuid,
                    bytes: payload.bytes,
                    patientID: reading.patientID,
                    deviceID: reading.deviceID,
                    readingID: reading.id,
                    receivedAt: received
                )
            } else if reading.deviceType != .phoneBridge, let json = payload.json,
                let input = JSONInput.parse(Array(json.serialized().utf8))
            {
                // Feeds and respiration rates: observation JSON, read by the SUT's own validation.
                observation = try? PayloadValidation.observation(input, now: received + 60_000)
            } else if case let .heartRate(bpm, _, _, _) = reading.measurement {
                observation = Observation(
                    readingID: reading.id,
                    patientID: reading.patientID,
                    deviceID: reading.deviceID,
                    time: received,
                    values: [.heartRate: Double(bpm)]
                )
            }
            if let observation { raised += engine.ingest(observation).map(\.rule) }
        }
        return raised
    }

    func testEachCoreScenarioRaisesItsAlerts() throws {
        let expectations: [(String, [String], [String])] = [
            ("adult-tachycardia-episode", ["hr.tachycardia"], ["hr.bradycardia", "hr.af-suspected"]),
            ("adult-bradycardia-night", ["hr.bradycardia"], ["hr.tachycardia", "spo2.low"]),
            ("atrial-fibrillation-onset", ["hr.af-suspected"], ["hr.bradycardia", "hr.fluctuation"]),
            (
                "t1d-nocturnal-hypoglycemia", ["glucose.level1-low", "glucose.level2-low", "glucose.urgent-low"],
                ["glucose.level2-high"]
            ),
            ("t2d-hyperglycemia", ["glucose.level2-high"], ["glucose.level1-low", "glucose.urgent-low"]),
            ("copd-desaturation", ["spo2.below-copd-target"], ["spo2.low"]),
            ("hypertensive-crisis", ["bp.hypertensive-crisis"], []),
            ("fever-spike", ["temp.fever"], []),
            (
                "chd-infant-interstage", ["infant.low-intake", "infant.weight-loss-24h", "infant.spo2-low"],
                ["temp.fever"]
            ),
            ("device-dropout-and-backfill", ["device.low-battery", "device.data-gap"], []),
            (
                "news2-deterioration", ["news2.urgent", "news2.emergency", "temp.fever", "spo2.low"],
                ["news2.urgent-copd"]
            ),
            ("hypertension-stage2-series", ["bp.stage2-sustained"], ["bp.hypertensive-crisis"]),
            ("heart-failure-fluid-gain", ["weight.hf-gain"], []),
            (
                "intouch-palpitations-af",
                ["hr.tachycardia", "ecg.af-classified", "hr.fluctuation", "symptom.escalation", "symptom.red-flag"],
                ["hr.bradycardia"]
            ),
        ]
        for (name, must, mustNot) in expectations {
            let raised = try alerts(name)
            for rule in must { XCTAssertTrue(raised.contains(rule), "\(name) should raise \(rule); raised \(raised)") }
            for rule in mustNot {
                XCTAssertFalse(raised.contains(rule), "\(name) should not raise \(rule); raised \(raised)")
            }
        }
    }
}
