import Generation
import VitalSimCore
import XCTest

/// The equipment log: every item at its starting setting, the daily check, the weekly NG tube
/// change, oxygen turned up during a desaturation and back after it; exact settings.
final class EquipmentLogTests: XCTestCase {
    let hour: Int64 = 3_600_000

    func testEntriesFollowTheCareRoutineAndTheDesaturation() throws {
        let yaml = """
            name: t
            seed: 3
            duration: 9d
            start: 2024-11-07T00:00:00Z
            patients:
              - id: p
                profile: chd-infant
                devices:
                  - {id: kit, type: equipment-log, equipment: {oxygen: 0.5, ng-tube: 6, feeding-pump: 20}}
            timeline:
              - {at: 2d12h, patient: p, event: desaturation, duration: 4h}
            """
        let scenario = try ScenarioLoader.parse(yaml, file: "t.yaml")
        let patient = scenario.patients[0]
        let physiology = PatientPhysiology(
            patient: patient,
            events: scenario.events(for: patient.id),
            rng: SeededRandom(seed: 3).split("patient:p"),
            clock: DayClock(startUnixMilliseconds: scenario.startUnixMilliseconds)
        )
        var device = DeviceEmitter(
            spec: patient.devices[0],
            physiology: physiology,
            faults: [],
            duration: scenario.duration.milliseconds
        )
        var entries: [(Int64, EquipmentItem, Double, EquipmentAction)] = []
        while let reading = device.next() {
            guard case let .equipment(item, setting, action) = reading.measurement else {
                return XCTFail("\(reading.measurement)")
            }
            XCTAssertEqual(reading.measurement.unit, item.signal.ucum)
            entries.append((reading.measuredAt, item, setting, action))
        }
        XCTAssertEqual(
            entries.filter { $0.0 < 60_000 }.map(\.1),
            [.oxygen, .ngTube, .feedingPump],
            "each item at the start"
        )
        let daily = entries.filter { $0.3 == .inUse && $0.0 > 60_000 }
        XCTAssertEqual(daily.count, 2 * 9, "oxygen and pump at 08:00 on each of 9 days")
        XCTAssertTrue(daily.allSatisfy { $0.0 % (24 * hour) == 8 * hour })
        let changes = entries.filter { $0.1 == .ngTube && $0.3 == .replaced }
        XCTAssertEqual(changes.count, 1, "one weekly tube change in 9 days")
        XCTAssertTrue((7 * 24 * hour..<8 * 24 * hour).contains(changes[0].0))
        let adjusted = entries.filter { $0.3 == .adjusted }
        XCTAssertEqual(adjusted.map(\.2), [1.0, 0.5], "up 0.5 L/min, then back")
        XCTAssertTrue((60 * hour + 10 * 60_000...60 * hour + 30 * 60_000).contains(adjusted[0].0), "10–30 min into it")
        XCTAssertTrue((64 * hour + 10 * 60_000...65 * hour).contains(adjusted[1].0), "10–60 min after it")
        XCTAssertEqual(entries.filter { $0.1 == .oxygen && $0.3 == .inUse }.map(\.2), Array(repeating: 0.5, count: 10))
    }
}
