import Generation
import Testing
import Traffic
import VitalSimCore

/// A device used by hand every few hours (a thermometer on a 4-hour cadence) is not read while its
/// user sleeps: the one due in the night is taken after waking, or left for the next; an infant's
/// carers keep the cadence through the night, and an ambulatory cuff measures by itself.
@Suite struct CadenceByHandTests {
    /// The scenario: one patient of `profile` with `device` for a week from a Monday.
    static func scenario(_ device: String, profile: String = "adult", adherence: String = "") throws -> Scenario {
        try ScenarioLoader.parse(
            """
            name: cadence
            seed: 31
            start: 2024-11-04T00:00:00Z
            duration: 7d
            \(adherence.isEmpty ? "" : "adherence: \(adherence)")
            patients:
              - id: a
                profile: \(profile)
                devices: [\(device)]
            """,
            file: "cadence.yaml"
        )
    }

    /// When each of the device's primary readings was measured, and how asleep the patient was then.
    static func readings(_ scenario: Scenario, kind: VitalKind) -> [(at: Int64, sleepiness: Double)] {
        let physiology = PatientPhysiology.firstPatient(of: scenario)
        var run = ScenarioRun(scenario: scenario)
        var out: [(Int64, Double)] = []
        while let (reading, _) = run.next() {
            if reading.kind == kind { out.append((reading.measuredAt, physiology.sleepiness(at: reading.measuredAt))) }
        }
        return out
    }

    static let thermometer = "{id: therm-a, type: thermometer, cadence: 4h}"

    @Test func aThermometerEveryFourHoursIsNotReadAsleep() throws {
        let scenario = try Self.scenario(Self.thermometer)
        let physiology = PatientPhysiology.firstPatient(of: scenario)
        let readings = Self.readings(scenario, kind: .temperature)
        let times = readings.map(\.at)
        // 41 ticks in a week; about a third fall in the night, a tenth of the rest are missed.
        #expect((18...34).contains(readings.count), "\(readings.count) of 41 taken")
        #expect(readings.allSatisfy { $0.sleepiness < 0.5 }, "read asleep: \(readings.filter { $0.sleepiness >= 0.5 })")
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        // Not on the clock: taken around each tick, and some in the first half hour after waking.
        #expect(times.filter { $0 % 3_600_000 != 0 }.count > readings.count / 2)
        let onWaking = times.filter { t in physiology.sleepiness(at: t - 30 * 60_000) >= 0.5 }
        #expect(!onWaking.isEmpty, "no reading taken on waking")
        // Every day has readings.
        let days = Set(times.map { $0 / 86_400_000 })
        #expect(days.count == 7, "days with a reading: \(days.sorted())")
    }

    @Test func exactAdherenceReadsAtEveryTickDayAndNight() throws {
        let readings = Self.readings(try Self.scenario(Self.thermometer, adherence: "exact"), kind: .temperature)
        #expect(readings.count == 41, "the ticks from 4h to 164h")
        #expect(readings.allSatisfy { $0.at % (4 * 3_600_000) == 0 })
        #expect(readings.filter { $0.sleepiness >= 0.5 }.count >= 10, "the week's nights are read")
    }

    @Test func anInfantsCarersAndAnAmbulatoryCuffReadTheNight() throws {
        let infant = Self.readings(try Self.scenario(Self.thermometer, profile: "chd-infant"), kind: .temperature)
        #expect(infant.filter { $0.sleepiness >= 0.5 }.count >= 5, "an infant's night readings")
        let cuff = Self.readings(
            try Self.scenario("{id: abpm-a, type: bp-cuff, cadence: 1h}"),
            kind: .bloodPressure
        )
        #expect(cuff.filter { $0.sleepiness >= 0.5 }.count >= 40, "an ambulatory cuff's night readings")
    }

    @Test func aDevicesOwnAdherenceHoldsOnACadenceOfHours() throws {
        let readings = Self.readings(
            try Self.scenario("{id: therm-a, type: thermometer, cadence: 2h, adherence: {missed: 0.5}}"),
            kind: .temperature
        )
        // 83 ticks, about half of them at night; half of the rest missed.
        #expect((15...40).contains(readings.count), "\(readings.count) of 83 taken")
    }
}
