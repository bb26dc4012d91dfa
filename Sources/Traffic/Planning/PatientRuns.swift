import VitalSimCore

/// A scenario's run one patient at a time: for each patient asked for, in file order, a
/// ``ScenarioRun`` of the scenario cut to that patient and its timeline. It gives that patient the
/// readings the whole scenario's run gives it, in the same order (a patient's physiology, devices
/// and faults depend on that patient alone; docs/sharding.md), with only one patient's devices in
/// memory: what the judge regenerates after a run of a 100,000-device ward costs one patient's
/// emitters, not the ward's.
package struct PatientRuns: Sequence {
    let scenario: Scenario
    let seed: UInt64?
    let patients: Set<String>
    let timeline: TimelineIndex

    /// The runs of `patients` (ids; the scenario's others are skipped) with `seed` (nil: the file's).
    package init(_ scenario: Scenario, seed: UInt64?, patients: Set<String>) {
        self.scenario = scenario
        self.seed = seed
        self.patients = patients
        timeline = TimelineIndex(scenario.timeline)
    }

    /// The scenario with `patient` alone and the timeline entries that concern it.
    func cut(to patient: PatientSpec) -> Scenario {
        var one = scenario
        one.patients = [patient]
        one.timeline = timeline.entries(of: patient)
        return one
    }

    package struct Iterator: IteratorProtocol {
        let runs: PatientRuns
        var index = 0

        /// The next patient's id and run.
        package mutating func next() -> (patientID: String, run: ScenarioRun)? {
            let all = runs.scenario.patients
            while index < all.count {
                let patient = all[index]
                index += 1
                guard runs.patients.contains(patient.id) else { continue }
                return (patient.id, ScenarioRun(scenario: runs.cut(to: patient), seed: runs.seed))
            }
            return nil
        }
    }

    package func makeIterator() -> Iterator { Iterator(runs: self) }

    /// Hands `body` each reading of `wanted` (reading ids by patient id) once, in each patient's
    /// order, patients in file order: only the patients named are regenerated, each until its last
    /// wanted reading; ids the scenario does not generate are never found.
    package static func readings(
        _ wanted: [String: Set<String>],
        of scenario: Scenario,
        seed: UInt64?,
        _ body: (Reading) -> Void
    ) {
        for (patientID, var run) in PatientRuns(scenario, seed: seed, patients: Set(wanted.keys)) {
            var left = wanted[patientID] ?? []
            while !left.isEmpty, let (reading, _) = run.next() {
                if left.remove(reading.id) != nil { body(reading) }
            }
        }
    }
}
