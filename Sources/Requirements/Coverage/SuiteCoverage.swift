import Judge
import VitalSimCore

/// Which of the catalogue's requirements a suite exercises, and how (`vitalsim coverage`): each
/// requirement with the scenarios and checks that exercise it, and the ones none does.
package struct SuiteCoverage: Sendable {
    /// One scenario's check (or traffic) exercising a requirement.
    package struct Exercise: Sendable, Equatable {
        package var scenario: String
        package var how: String

        package init(scenario: String, how: String) {
            self.scenario = scenario
            self.how = how
        }
    }

    package let catalogue: RequirementCatalogue
    /// The modes the suite is run in beside the plain one (``Requirement/Applicability``): a
    /// requirement of another mode cannot be exercised by it, and is listed apart, not counted.
    package let modes: Set<Requirement.Applicability>
    /// The scenarios read, in order.
    package private(set) var scenarios: [String] = []
    /// Requirement id → what exercises it, in scenario order.
    package private(set) var exercised: [String: [Exercise]] = [:]

    package init(catalogue: RequirementCatalogue, modes: Set<Requirement.Applicability> = []) {
        self.catalogue = catalogue
        self.modes = modes.union([.always])
    }

    /// Adds what `scenario` exercises, judged against `golden` (nil: a scenario without a golden
    /// file exercises only what its traffic does and the checks every run makes).
    package mutating func add(_ scenario: Scenario, golden: GoldenFile?) {
        scenarios.append(scenario.name)
        for (id, how) in ScenarioExercise(scenario, golden: golden, modes: modes).exercised {
            let exercise = Exercise(scenario: scenario.name, how: how)
            if exercised[id]?.contains(exercise) != true { exercised[id, default: []].append(exercise) }
        }
    }

    /// The counted requirements of `level` (``Requirement/isCounted``) that the suite's modes can
    /// exercise, in catalogue order.
    package func counted(_ level: RequirementLevel) -> [Requirement] {
        catalogue.requirements.filter { $0.level == level && $0.isCounted && modes.contains($0.applies) }
    }

    /// The counted requirements of `level` that only another mode of run can exercise.
    package func inapplicable(_ level: RequirementLevel) -> [Requirement] {
        catalogue.requirements.filter { $0.level == level && $0.isCounted && !modes.contains($0.applies) }
    }

    /// The counted requirements of `level` no scenario exercises, in catalogue order.
    package func uncovered(_ level: RequirementLevel) -> [Requirement] {
        counted(level).filter { exercised[$0.id] == nil }
    }

    /// The share (0...100) of the counted requirements of `level` exercised.
    package func percent(_ level: RequirementLevel) -> Double {
        let all = counted(level)
        guard !all.isEmpty else { return 100 }
        return Double(all.count - uncovered(level).count) * 100 / Double(all.count)
    }

    /// Ids a check names that the catalogue lacks (none, unless the trace and the catalogue disagree).
    package var unknownIDs: [String] { exercised.keys.filter { catalogue.requirement($0) == nil }.sorted() }
}
