import Foundation
import InProcessSUT
import Judge
import LiveHarness
import SUTAdapter
import TestFixtures
import Testing
import VitalSimCore

/// `vitalsim shrink`'s search against the reference SUT in-process in a faulty mode: the scenario
/// as written fails a check, each candidate is a run of its own (the shared-SUT lifecycle enrols
/// its patients under a run id of their own and resets them after), the search ends at the few
/// parts that still fail that check, and the minimized scenario with the golden file written for it
/// fails it again when run. (The command itself, through a backend written without our code, is
/// `IntegrationTests.ForeignBackendTests`; its usage errors, `IntegrationTests.ShrinkTests`.)
final class InProcessShrinkTests {
    let directory = Fixtures.temporaryDirectory("in-process-shrink")

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// What a shrink found and wrote: the scenario document, the search's result, the written
    /// minimized scenario, and whether it failed the target again.
    struct Shrunk: Sendable {
        var result: Shrinker.Result
        var target: FailureSignature
        var scenario: Scenario
        var confirmed: Bool
        /// The scenario as written.
        var document: ScenarioDocument {
            get throws { try ScenarioDocument(text: text, file: "original.yaml") }
        }
        var text: String
    }

    /// Shrinks the scenario at `path` against one long-lived reference SUT with `faults`, for the
    /// first failed check containing `check`.
    func shrink(_ path: String, faults: [String], check: String) async throws -> Shrunk {
        let sharedPath = Fixtures.repositoryRoot + "/profiles/vitalsim-shared.yaml"
        let shared = try SUTProfileLoader.load(path: sharedPath, environment: [:])
        var sut = try InProcessSUT()
        try sut.add(faults: faults)
        let directory = directory
        return try await sut.test { client in
            var options = InProcessRun.options(client)
            options.target.profile = shared
            options.runID = "shrink"
            let reference = try ShrinkRuns.referenceGolden(path, options: options)
            let failures = try await ShrinkRuns.originalFailures(
                path,
                reference: reference,
                options: options,
                progress: { _ in }
            )
            let target = try #require(failures.first { $0.description.contains(check) }, "\(failures)")
            let original = try String(contentsOfFile: path, encoding: .utf8)
            let document = try ScenarioDocument(text: original, file: path)
            let candidate = directory + "/candidate.yaml"
            let started = ContinuousClock.now
            let shrinker = Shrinker(
                document: document,
                target: target,
                budget: .init(runs: 300, seconds: 600),
                evaluate: { yaml in
                    await ShrinkRuns.evaluate(yaml, at: candidate, reference: reference, options: options)
                },
                progress: { _ in },
                elapsed: { ContinuousClock.now - started }
            )
            let result = try #require(await shrinker.run())
            let name = document.name + "-min"
            let scenarioPath = directory + "/\(name).yaml"
            let text = document.text(result.selection, name: name, description: "minimized in a test")
            try text.write(toFile: scenarioPath, atomically: true, encoding: .utf8)
            let confirmed = try await ShrinkRuns.confirm(
                scenarioPath,
                golden: directory + "/\(name).golden.yaml",
                target: target,
                reference: reference,
                options: options
            )
            return Shrunk(
                result: result,
                target: target,
                scenario: try ScenarioLoader.load(path: scenarioPath),
                confirmed: confirmed,
                text: original
            )
        }
    }

    @Test func theBoundarySuiteShrinksToTheOnePatientAtTheLevelTwoBoundary() async throws {
        let shrunk = try await shrink(
            InProcessRun.path("boundaries", "cgm-thresholds"),
            faults: ["off-by-one"],
            check: "level2-low"
        )
        #expect(shrunk.target.description == "early alert glucose.level2-low patient level2")
        #expect(shrunk.confirmed)
        #expect(!shrunk.result.exhausted)
        #expect(shrunk.scenario.patients.map(\.id) == ["level2"])
        #expect(shrunk.scenario.patients[0].devices.count == 1)
        #expect(try shrunk.document.timeline.count == 24)
        #expect(shrunk.scenario.timeline.count <= 3, "from 24 timeline entries")
        #expect(shrunk.scenario.duration < .hours(6))

        // The written pair is an ordinary scenario: the reference SUT without the fault passes it.
        let pass = try await InProcessRun.verdict(
            directory + "/cgm-thresholds-min.yaml",
            options: { [directory] in
                $0.reports.goldenDirectory = directory
            }
        )
        #expect(pass.error == nil && InProcessRun.failures(pass, latency: false) == [])
        let golden = try String(contentsOfFile: directory + "/cgm-thresholds-min.golden.yaml", encoding: .utf8)
        #expect(golden.contains("rule: \"glucose.level2-low\""), "\(golden)")
    }

    @Test func aCoreScenarioShrinksToTheOneCorruptionTheSUTAccepts() async throws {
        let shrunk = try await shrink(
            InProcessRun.path("core", "corrupt-and-duplicate-payloads"),
            faults: ["accept-invalid"],
            check: "validation-mismatch rejects 511/"
        )
        #expect(shrunk.confirmed)
        let document = try shrunk.document
        #expect(document.whole.devices.count == 3)
        #expect(shrunk.result.selection.devices.count == 1, "from 3 devices")
        #expect(document.timeline.count == 6)
        #expect(document.applicableTimeline(shrunk.result.selection).count == 1, "the one corruption")
    }
}
