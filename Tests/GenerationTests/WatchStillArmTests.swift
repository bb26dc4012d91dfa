import Generation
import Testing
import Traffic
import VitalSimCore

/// A watch reads the heart rate with a still arm (the phone bridge's background readings): one due
/// while the patient walks about is taken when they stop, or skipped and the next taken regardless;
/// a workout (an exercise event) is read throughout.
@Suite struct WatchStillArmTests {
    /// An active adult (14,000 steps a day) with a 5-minute watch for `days` days, and `timeline`.
    static func scenario(days: Int, timeline: String = "") throws -> Scenario {
        try ScenarioLoader.parse(
            """
            name: watch
            seed: 21
            start: 2024-11-04T00:00:00Z
            duration: \(days)d
            patients:
              - id: a
                profile: adult
                baseline: {dailySteps: 14000}
                devices: [{id: phone-a, type: phone-bridge, cadence: 5m}]
            \(timeline)
            """,
            file: "watch.yaml"
        )
    }

    /// When each heart-rate reading was measured.
    static func heartRateTimes(_ scenario: Scenario) -> [Int64] {
        var run = ScenarioRun(scenario: scenario)
        var times: [Int64] = []
        while let (reading, _) = run.next() {
            if reading.kind == .heartRate { times.append(reading.measuredAt) }
        }
        return times
    }

    /// The app's switches (the VitalEdge SDS §5.1, §5.2): real-time monitoring off, no heart rate is sent;
    /// the daily summary off, no summary; each leaves the other as it was.
    @Test func eachSwitchOffSendsNothingOfItsKind() throws {
        func kinds(_ options: String) throws -> [VitalKind: Int] {
            let text = """
                name: switches
                seed: 21
                start: 2024-11-04T00:00:00Z
                duration: 2d1h
                patients:
                  - id: a
                    profile: adult
                    devices: [{id: phone-a, type: phone-bridge, cadence: 5m\(options)}]
                """
            var run = ScenarioRun(scenario: try ScenarioLoader.parse(text, file: "switches.yaml"))
            var counts: [VitalKind: Int] = [:]
            while let (reading, _) = run.next() { counts[reading.kind, default: 0] += 1 }
            return counts
        }
        let both = try kinds("")
        #expect(both[.dailySummary] == 2 && (both[.heartRate] ?? 0) > 500)
        #expect(try kinds(", real-time: off") == [.dailySummary: 2])
        #expect(try kinds(", daily-summary: off") == [.heartRate: both[.heartRate] ?? 0])
        #expect(try kinds(", real-time: off, daily-summary: off") == [:])
    }

    @Test func readingsWaitForAStillArmButNeverForLong() throws {
        let scenario = try Self.scenario(days: 7)
        let physiology = PatientPhysiology.firstPatient(of: scenario)
        let times = Self.heartRateTimes(scenario)
        let due = 7 * 288
        // A reading mid-walk only after a skipped one (a gap of more than one interval); never a gap
        // longer than two intervals.
        let gaps = zip(times, times.dropFirst()).map { ($1 - $0, $1) }
        let midWalk = gaps.filter { physiology.stepsPerMinute(at: $0.1) > 0 }
        #expect(midWalk.allSatisfy { $0.0 > 300_000 }, "a reading taken mid-walk on time")
        #expect(!midWalk.isEmpty, "a walk through a whole interval: the next reading is taken moving")
        #expect(gaps.allSatisfy { $0.0 <= 600_000 }, "\(gaps.map(\.0).max() ?? 0) ms without a reading")
        #expect(physiology.stepsPerMinute(at: times[0]) == 0 || times[0] == 0)
        // Walks of an active day delay some readings past their 5-minute tick and skip a few.
        let late = times.filter { $0 % 300_000 != 0 }
        #expect(late.count > 50, "\(late.count) readings waited for a still arm")
        #expect(times.count < due && times.count > due * 9 / 10, "\(times.count) of \(due) taken")
        // Each reading stays before the next is due, so they stay in order and never meet.
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        // The walks themselves are still there: the patient walked at some ticks a reading skipped.
        let walkingTicks = stride(from: Int64(0), to: 7 * 86_400_000, by: 300_000).filter {
            physiology.stepsPerMinute(at: $0) > 0
        }
        #expect(walkingTicks.count > 100)
    }

    @Test func aWorkoutIsReadThroughout() throws {
        let scenario = try Self.scenario(
            days: 1,
            timeline: "timeline:\n  - {at: 10h, patient: a, event: exercise, duration: 40m, target: 120}"
        )
        let physiology = PatientPhysiology.firstPatient(of: scenario)
        let times = Self.heartRateTimes(scenario)
        // 10:10 to 10:30, past the event's onset: every tick read on time, at a workout's cadence.
        let workout = Array(stride(from: Int64(36_600_000), through: 37_800_000, by: 300_000))
        #expect(workout.allSatisfy { times.contains($0) }, "every tick of the workout read on time")
        #expect(workout.allSatisfy { physiology.stepsPerMinute(at: $0) > 100 })
    }
}
