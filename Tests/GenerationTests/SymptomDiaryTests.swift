import Generation
import VitalSimCore
import XCTest

/// The symptom diary reports what the scenario's events make the patient feel: each symptom with
/// its event's chance, beginning during the event and logged minutes later, plus spontaneous
/// reports at their Poisson rate; the same seed gives the same reports.
final class SymptomDiaryTests: XCTestCase {
    let hour: Int64 = 3_600_000

    func reports(_ yaml: String, seed: UInt64 = 1) throws -> [Reading] {
        let scenario = try ScenarioLoader.parse(yaml, file: "test.yaml")
        let patient = scenario.patients[0]
        let physiology = PatientPhysiology(
            patient: patient,
            events: scenario.events(for: patient.id),
            rng: SeededRandom(seed: seed).split("patient:" + patient.id),
            clock: DayClock(startUnixMilliseconds: scenario.startUnixMilliseconds)
        )
        var device = DeviceEmitter(
            spec: patient.devices[0],
            physiology: physiology,
            faults: [],
            duration: scenario.duration.milliseconds
        )
        var out: [Reading] = []
        while let reading = device.next() { out.append(reading) }
        return out
    }

    func scenario(duration: String = "12h", spontaneous: String = "0", timeline: String) -> String {
        """
        name: t
        seed: 1
        duration: \(duration)
        start: 2024-11-07T08:00:00Z
        patients:
          - id: p
            profile: adult
            devices:
              - {id: diary, type: symptom-diary, spontaneous: \(spontaneous)}
        timeline:
        \(timeline)
        """
    }

    func testAnEventCertainToCauseSymptomsCausesThemDuringIt() throws {
        let yaml = scenario(
            timeline: """
                  - {at: 2h, patient: p, event: atrial-fibrillation, duration: 6h, target: 120, symptoms: {palpitations: 1, dizziness: 1}}
                """
        )
        let readings = try reports(yaml)
        let symptoms = readings.compactMap(\.measurement.symptom)
        XCTAssertEqual(Set(symptoms), [.palpitations, .dizziness])
        // First reports and, in an event of 6 h, a later report of each: four in all.
        XCTAssertEqual(symptoms.count, 4)
        for r in readings {
            XCTAssertTrue((2 * hour..<8 * hour).contains(r.measuredAt), "onset \(r.measuredAt) inside the event")
            let delay = r.intendedEmitTime - r.measuredAt
            XCTAssertTrue(
                (2 * 60_000...31 * 60_000).contains(delay),
                "logged 2–30 min after onset, sent at the next sync: \(delay)"
            )
            XCTAssertEqual(r.deviceType, .symptomDiary)
            XCTAssertEqual(r.measurement.unit, "{severity}")
        }
        XCTAssertEqual(try reports(yaml).map(\.measurement), readings.map(\.measurement), "same seed, same reports")
        XCTAssertNotEqual(
            try reports(yaml, seed: 2).map(\.measuredAt),
            readings.map(\.measuredAt),
            "another seed, other times"
        )
    }

    func testAChanceOfZeroAndEventsWithoutSymptomsReportNothing() throws {
        let none = scenario(
            timeline: """
                  - {at: 1h, patient: p, event: atrial-fibrillation, duration: 3h, symptoms: {palpitations: 0}}
                  - {at: 5h, patient: p, event: fever, duration: 4h}
                """
        )
        XCTAssertEqual(try reports(none).count, 0)
    }

    func testDefaultChancesAreThoseOfTheEventKind() throws {
        // Over 200 tachycardia episodes, palpitations are reported in about half (default 0.5).
        var entries = ""
        for i in 0..<200 { entries += "  - {at: \(i * 3)h, patient: p, event: tachycardia, duration: 1h}\n" }
        let readings = try reports(scenario(duration: "600h", timeline: entries))
        let palpitations = readings.filter { $0.measurement.symptom == .palpitations }.count
        let dizziness = readings.filter { $0.measurement.symptom == .dizziness }.count
        XCTAssertTrue((75...125).contains(palpitations), "palpitations in \(palpitations) of 200 (p 0.5)")
        XCTAssertTrue((8...35).contains(dizziness), "dizziness in \(dizziness) of 200 (p 0.1)")
        XCTAssertFalse(
            readings.contains { $0.measurement.symptom == .chestPain },
            "not a symptom of tachycardia by default"
        )
    }

    func testSpontaneousReportsArriveAtTheirRate() throws {
        let readings = try reports(scenario(duration: "2400h", spontaneous: "1", timeline: "  []"))
        // 100 days at 1 per day: Poisson, SD 10.
        XCTAssertTrue((70...130).contains(readings.count), "\(readings.count) spontaneous reports in 100 days")
        let severe = readings.filter { if case .symptom(_, .severe) = $0.measurement { true } else { false } }
        XCTAssertEqual(severe.count, 0, "spontaneous symptoms are mild or moderate")
        XCTAssertTrue(readings.contains { $0.measurement.symptom == .chestPain }, "chest pain among them (10 %)")
    }
}
