import Foundation
import Judge
import TestFixtures
import Testing
import VitalSimCore

/// `vitalsim shrink`'s search without running anything: a candidate "fails" when a stand-in for a
/// run says so, and the search must end at the smallest such scenario, within its budget of runs
/// and of time (the caller's clock, here a counter).
struct ShrinkerTests {
    let path = Fixtures.repositoryRoot + "/scenarios/boundaries/cgm-thresholds.yaml"
    let target = FailureSignature(finding: "missed-alert", subject: "cgm.urgent-low level2")

    /// Fails when the level 2 patient is in the scenario and it lasts at least 90 minutes.
    func standIn(_ yaml: String) -> Shrinker.Outcome {
        guard let scenario = try? ScenarioLoader.parse(yaml, file: "candidate") else { return .notRun("unloadable") }
        let fails = scenario.patients.contains { $0.id == "level2" } && scenario.duration >= .minutes(90)
        return .judged(fails ? [target] : [])
    }

    @Test func theSearchEndsAtTheSmallestFailingScenario() async throws {
        let document = try ScenarioDocument(text: String(contentsOfFile: path, encoding: .utf8), file: path)
        let shrinker = Shrinker(
            document: document,
            target: target,
            budget: .init(runs: 500, seconds: 3_600),
            evaluate: { standIn($0) },
            progress: { _ in },
            elapsed: { .zero }
        )
        let result = try #require(await shrinker.run())
        #expect(result.selection.patients == [2])
        #expect(result.selection.devices.map(\.patient) == [2])
        #expect(result.selection.timeline.isEmpty)
        #expect(result.selection.duration == .minutes(90))
        #expect(!result.exhausted)
        #expect(result.runs < 60)
    }

    /// A patient is kept whole: the shrunk scenario still holds the personal limits the failure
    /// needs (a backend ignoring patient 602's crisis limit misses the crisis below the standard one).
    @Test func aKeptPatientKeepsTheirOwnLimits() async throws {
        let limits = Fixtures.repositoryRoot + "/scenarios/limits/personal-alert-limits.yaml"
        let document = try ScenarioDocument(text: String(contentsOfFile: limits, encoding: .utf8), file: limits)
        let crisis = FailureSignature(finding: "missed-alert", subject: "bp.hypertensive-crisis 602")
        let shrinker = Shrinker(
            document: document,
            target: crisis,
            budget: .init(runs: 500, seconds: 3_600),
            evaluate: { yaml in
                guard let scenario = try? ScenarioLoader.parse(yaml, file: "candidate") else {
                    return .notRun("unloadable")
                }
                let limited = scenario.patients.contains { $0.id == "602" && !$0.thresholds.isEmpty }
                return .judged(limited && !scenario.timeline.isEmpty ? [crisis] : [])
            },
            progress: { _ in },
            elapsed: { .zero }
        )
        let result = try #require(await shrinker.run())
        let shrunk = try ScenarioLoader.parse(
            document.text(result.selection, name: "kept", description: "d"),
            file: "shrunk"
        )
        #expect(shrunk.patients.map(\.id) == ["602"])
        #expect(!shrunk.patients[0].thresholds.isEmpty)
        #expect(shrunk.timeline.count == 1)
    }

    @Test func aScenarioThatDoesNotFailIsNotShrunk() async throws {
        let document = try ScenarioDocument(text: String(contentsOfFile: path, encoding: .utf8), file: path)
        let shrinker = Shrinker(
            document: document,
            target: FailureSignature(finding: "missed-alert", subject: "other"),
            budget: .init(runs: 500, seconds: 3_600),
            evaluate: { standIn($0) },
            progress: { _ in },
            elapsed: { .zero }
        )
        #expect(await shrinker.run() == nil)
    }

    @Test(arguments: [(runs: 4, secondsPerRun: 0), (runs: 500, secondsPerRun: 60)])
    func theBudgetStopsTheSearchKeepingTheSmallestFound(runs: Int, secondsPerRun: Int) async throws {
        let document = try ScenarioDocument(text: String(contentsOfFile: path, encoding: .utf8), file: path)
        let spent = Counter()
        let shrinker = Shrinker(
            document: document,
            target: target,
            budget: .init(runs: runs, seconds: 300),
            evaluate: { yaml in
                spent.seconds += secondsPerRun
                return standIn(yaml)
            },
            progress: { _ in },
            elapsed: { .seconds(spent.seconds) }
        )
        let result = try #require(await shrinker.run())
        #expect(result.exhausted)
        #expect(result.runs == (secondsPerRun == 0 ? runs : 5))
        // What was kept still fails: the level 2 patient is in it and it is at least 90 minutes long.
        let kept = try ScenarioLoader.parse(
            document.text(result.selection, name: "kept", description: "d"),
            file: "kept"
        )
        #expect(kept.patients.contains { $0.id == "level2" })
        #expect(kept.duration >= .minutes(90))
    }
}

/// Seconds spent by the stand-in runs (the tests run one search at a time on one task).
final class Counter: @unchecked Sendable {
    var seconds = 0
}
