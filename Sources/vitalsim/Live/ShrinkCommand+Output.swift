import ArgumentParser
import Foundation
import Judge
import LiveHarness
import VitalSimCore

extension VitalSim.Shrink {
    /// Writes the minimized scenario (`NAME-min`) and the golden file it was judged against, runs
    /// them once more as `vitalsim run` would, and prints what was removed.
    func write(
        _ document: ScenarioDocument,
        _ result: Shrinker.Result,
        target: FailureSignature,
        reference: GoldenFile?,
        options: LiveOptions,
        elapsed: Duration
    ) async throws {
        let name = document.name + "-min"
        let selection = result.selection
        let description = """
            Minimized by vitalsim shrink from \(live.path) (\(document.name)): the smallest part of it found to still fail \
            "\(target)" (\(result.runs) runs\(result.exhausted ? "; the budget ran out, so it may shrink further" : "")).
            """
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure.input("cannot create \(output): \(error.localizedDescription)")
        }
        let scenarioPath = output + "/\(name).yaml"
        let goldenPath = output + "/\(name).golden.yaml"
        try save(document.text(selection, name: name, description: description), to: scenarioPath)
        let confirmed = try await confirm(
            scenarioPath,
            goldenPath,
            target: target,
            reference: reference,
            options: options
        )
        let whole = document.whole
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            """
            \(document.name): \(whole.patients.count) → \(selection.patients.count) patient(s), \(whole.devices.count) → \(selection.devices.count) device(s), \
            \(whole.timeline.count) → \(document.applicableTimeline(selection).count) timeline entries, \(whole.duration) → \(selection.duration) \
            in \(result.runs) runs (\(String(format: "%.0f", seconds)) s)\(result.exhausted ? ", budget spent" : "")
            wrote \(scenarioPath)
            wrote \(goldenPath)
            """
        )
        guard confirmed else {
            printError(
                "vitalsim run \(scenarioPath) --golden-dir \(output) did not fail '\(target)' again: the SUT is not deterministic for it"
            )
            throw ExitCode(1)
        }
        print("confirmed: vitalsim run \(scenarioPath) --golden-dir \(output) fails \(target)")
    }

    /// Writes the golden file the minimized scenario is judged against, then runs both as `vitalsim run` would.
    func confirm(
        _ scenarioPath: String,
        _ goldenPath: String,
        target: FailureSignature,
        reference: GoldenFile?,
        options: LiveOptions
    ) async throws -> Bool {
        do throws(HarnessError) {
            return try await ShrinkRuns.confirm(
                scenarioPath,
                golden: goldenPath,
                target: target,
                reference: reference,
                options: options
            )
        } catch {
            printError("vitalsim shrink: \(error)")
            throw error.isInputError ? ExitCodes.input : ExitCodes.infrastructure
        }
    }

    func save(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw CommandFailure.input("cannot write \(path)")
        }
    }
}
