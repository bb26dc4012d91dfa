import Generation
import Testing
import Traffic
import VitalSimCore

/// People keep their home devices' schedules as people do (`adherence:`): some measurements are
/// missed, the rest taken around their time; `exact` keeps every one on time, and a cuff's patient
/// sits still for the reading when it is actually taken.
@Suite struct AdherenceTests {
    static let day: Int64 = 86_400_000
    static let seven = 7 * 3_600_000 as Int64

    /// When each of the cuff's measurements over `days` days starts (the cuff reports 35 s later,
    /// and takes a second reading a minute after the first).
    static func cuffTimes(_ adherence: String, device: String = "", days: Int = 60) throws -> [Int64] {
        let scenario = try ScenarioLoader.parse(
            """
            name: adherence
            seed: 9
            start: 2024-11-04T00:00:00Z
            duration: \(days)d
            \(adherence.isEmpty ? "" : "adherence: \(adherence)")
            patients:
              - id: a
                profile: adult
                devices: [{id: cuff-a, type: bp-cuff, schedule: ["07:00", "19:00"]\(device)}]
            """,
            file: "adherence.yaml"
        )
        var run = ScenarioRun(scenario: scenario)
        var out: [Int64] = []
        while let (reading, _) = run.next() {
            if reading.kind == .bloodPressure { out.append(reading.measuredAt) }
        }
        return Self.sessions(out)
    }

    /// When each measurement started: the first of each run of readings less than five minutes
    /// apart, less the 35 s the cuff takes to read.
    static func sessions(_ times: [Int64]) -> [Int64] {
        zip(times.indices, times).filter { i, t in i == 0 || t - times[i - 1] >= 5 * 60_000 }.map { $0.1 - 35_000 }
    }

    /// How far each reading is from its nearest scheduled time (ms; negative: early).
    static func offsets(_ times: [Int64]) -> [Int64] {
        times.map { t in
            let timeOfDay = t % day
            let nearest = [seven, seven + 12 * 3_600_000, seven + day].min {
                abs(timeOfDay - $0) < abs(timeOfDay - $1)
            }!
            return timeOfDay - nearest
        }
    }

    @Test func usualAdherenceMissesSomeMeasurementsAndMovesTheRest() throws {
        let times = try Self.cuffTimes("")
        let offsets = Self.offsets(times)
        // 120 scheduled readings: about one in ten missed.
        #expect((95...115).contains(times.count), "\(times.count) of 120 taken")
        #expect(offsets.allSatisfy { $0 >= -15 * 60_000 && $0 <= 90 * 60_000 }, "\(offsets.map { $0 / 60_000 })")
        #expect(offsets.filter { $0 == 0 }.count <= 2, "readings on the dot: \(offsets.filter { $0 == 0 }.count)")
        let sorted = offsets.map { abs($0) }.sorted()
        #expect(sorted[sorted.count / 2] < 20 * 60_000, "median distance \(sorted[sorted.count / 2] / 60_000) min")
        #expect(offsets.contains { $0 > 30 * 60_000 }, "someone is sometimes half an hour late")
        #expect(times == times.sorted(), "readings stay in order")
    }

    @Test func exactAdherenceKeepsEveryMeasurementOnTime() throws {
        let times = try Self.cuffTimes("exact")
        #expect(times.count == 120)
        #expect(Self.offsets(times).allSatisfy { $0 == 0 })
        // A device's own adherence overrides the scenario's.
        let own = try Self.cuffTimes("exact", device: ", adherence: {missed: 0.5, spread: 0m}")
        #expect((45...75).contains(own.count), "\(own.count) of 120 taken")
        #expect(Self.offsets(own).allSatisfy { $0 == 0 })
    }

    /// The patient sits still from 5 minutes before the reading actually taken to 3 minutes after,
    /// wherever adherence moved it (a walk under the cuff read a crisis).
    @Test func aCuffsPatientSitsStillWhenTheReadingIsTaken() throws {
        let scenario = try ScenarioLoader.parse(
            """
            name: seated
            seed: 4
            start: 2024-11-04T00:00:00Z
            duration: 30d
            patients:
              - id: a
                profile: adult
                baseline: {dailySteps: 14000}
                devices: [{id: cuff-a, type: bp-cuff, schedule: ["07:00", "12:00", "19:00"]}]
            """,
            file: "seated.yaml"
        )
        let physiology = PatientPhysiology.firstPatient(of: scenario)
        var run = ScenarioRun(scenario: scenario)
        var times: [Int64] = []
        while let (reading, _) = run.next() {
            if reading.kind == .bloodPressure { times.append(reading.measuredAt) }
        }
        let taken = Self.sessions(times)
        for first in taken {
            for minute in stride(from: -5, through: 3, by: 1) {
                let time = first + Int64(minute) * 60_000
                #expect(
                    physiology.stepsPerMinute(at: time) == 0,
                    "walking \(minute) min from a measurement at \(first)"
                )
            }
        }
        #expect(taken.count > 60)
        #expect(taken.contains { $0 % 3_600_000 != 0 }, "adherence moved the readings off the hour")
    }
}
