import Foundation
import Judge
import SUTAdapter
import Traffic
import VitalSimCore

/// The runs `vitalsim shrink` makes against the SUT: the scenario as written, judged against its
/// golden file (else against what the oracle derives); each candidate the search tries, judged
/// against what the oracle derives for it; and the minimized scenario once more, judged against the
/// golden file written for it, as `vitalsim run` would judge it.
package enum ShrinkRuns {
    /// The golden file of the scenario at `path` (where `options` put golden files), when it has one.
    package static func referenceGolden(_ path: String, options: LiveOptions) throws(HarnessError) -> GoldenFile? {
        guard let scenario = try? TracedScenarioLoader.load(path: path) else { return nil }
        let goldenPath = LiveSuite(options: options).goldenPath(scenario)
        guard let text = try? String(contentsOfFile: goldenPath, encoding: .utf8) else { return nil }
        do throws(ScenarioLoadError) { return try GoldenFile.parse(text, file: goldenPath) } catch {
            throw .golden(error.description)
        }
    }

    /// The failed checks of the scenario at `path` as written: judged against `reference` when it
    /// has a golden file, else against what the oracle derives. A run that cannot be judged throws.
    /// - Parameter progress: receives what the run reports as it goes.
    package static func originalFailures(
        _ path: String,
        reference: GoldenFile?,
        options: LiveOptions,
        progress: (String) -> Void
    ) async throws(HarnessError) -> [FailureSignature] {
        let verdict: Verdict
        if reference != nil {
            guard let judged = try await LiveSuite(options: options).run([path], progress: progress).first else {
                return []
            }
            verdict = judged
        } else {
            progress("no golden file: judging against what the oracle derives")
            verdict = try await LiveSuite(options: options).judgeDerived(path, reference: nil).0
        }
        if let error = verdict.error { throw .infrastructure("\(verdict.scenario): \(error)") }
        return FailureSignature.failures(of: verdict)
    }

    /// One candidate of the search: `yaml` written to `path`, run and judged against what the oracle
    /// derives for it (in the windows of `reference`'s matching expectations).
    package static func evaluate(
        _ yaml: String,
        at path: String,
        reference: GoldenFile?,
        options: LiveOptions
    ) async -> Shrinker.Outcome {
        guard FileManager.default.createFile(atPath: path, contents: Data(yaml.utf8)) else {
            return .notRun("cannot write \(path)")
        }
        do throws(HarnessError) {
            let (verdict, _) = try await LiveSuite(options: candidateOptions(yaml, options)).judgeDerived(
                path,
                reference: reference
            )
            if let error = verdict.error { return .notRun(error) }
            return .judged(FailureSignature.failures(of: verdict))
        } catch {
            return .notRun(String(error.description.split(separator: "\n").first ?? ""))
        }
    }

    /// Each candidate is a run of its own: where the profile's ids take the run id, a SUT that keeps
    /// patients between runs sees fresh ones (the suffix is the candidate's hash, so a candidate
    /// keeps its ids).
    static func candidateOptions(_ yaml: String, _ options: LiveOptions) -> LiveOptions {
        var options = options
        if options.target.profile.lifecycle.usesRunID {
            var hash: UInt32 = 2_166_136_261
            for byte in yaml.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
            options.runID = String(options.runID.prefix(31)) + "-" + String(format: "%08x", hash)
        }
        return options
    }

    /// The golden file the minimized scenario at `scenarioPath` is judged against (what the oracle
    /// derives, in `reference`'s windows), written to `goldenPath`; then the scenario run once more
    /// against it as `vitalsim run` would. Returns whether that run failed `target` again.
    package static func confirm(
        _ scenarioPath: String,
        golden goldenPath: String,
        target: FailureSignature,
        reference: GoldenFile?,
        options: LiveOptions
    ) async throws(HarnessError) -> Bool {
        let golden = try await LiveSuite(options: options).judgeDerived(scenarioPath, reference: reference).1
        let text = golden.yaml(writtenBy: "`vitalsim shrink` (alerts from the oracle)")
        guard FileManager.default.createFile(atPath: goldenPath, contents: Data(text.utf8)) else {
            throw .usage("cannot write \(goldenPath)")
        }
        var again = options
        again.reports.goldenDirectory = (goldenPath as NSString).deletingLastPathComponent
        let verdict = try await LiveSuite(options: again).run([scenarioPath], progress: { _ in }).first
        return verdict.map { FailureSignature.failures(of: $0).contains(target) } ?? false
    }
}
