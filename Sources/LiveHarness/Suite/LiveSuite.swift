import Foundation
import Histogram
import Judge
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// Runs scenarios live against a SUT and judges them against their golden files, or records golden
/// files: each scenario is a ``ScenarioSession`` (prepared, run, judged), one after another.
package struct LiveSuite: Sendable {
    /// How every scenario of the suite is run.
    package let options: LiveOptions

    package init(options: LiveOptions) { self.options = options }

    /// Where a scenario's golden file lives.
    package func goldenPath(_ scenario: Scenario) -> String {
        if let dir = options.reports.goldenDirectory { return dir + "/\(scenario.name).golden.yaml" }
        return scenario.golden
    }

    /// Runs and judges each scenario. A scenario that cannot be judged (a misconfiguration, an
    /// unreachable SUT) is a verdict with an ``Verdict/error`` and the others still run; input
    /// errors throw.
    package func run(_ paths: [String], progress: (String) -> Void) async throws(HarnessError) -> [Verdict] {
        try await runSuite(paths, progress: progress).verdicts
    }

    /// Runs one scenario (or, in a shard, its patients of this shard: `scenario` and `golden`
    /// restricted to them, `whole` what it knows of the scenario they are of) with `options` (this
    /// suite's, narrowed to the shard) and judges it.
    func runScenario(
        _ path: String,
        _ scenario: Scenario,
        golden: GoldenFile,
        goldenPath: String,
        whole: WholeScenario?,
        options: LiveOptions
    ) async throws(HarnessError) -> (verdict: Verdict, requests: [SentOutcome]) {
        var awaiting = AlertWait(golden: golden, grace: options.pacing.alertWait)
        awaiting.names = options.names
        // An alert of a rule the SUT does not claim (its conformance statement) is not waited for.
        if let claimed = options.target.profile.conformance.rules {
            awaiting.expected = awaiting.expected.filter { claimed.contains($0.rule) }
        }
        let contract = ContractLog()
        var prepared: ScenarioSession?
        let session: ScenarioSession
        let outcome: ScenarioSession.Outcome
        do throws(HarnessError) {
            session = try await ScenarioSession.prepare(
                path,
                scenario,
                options: options,
                contract: contract,
                whole: whole
            )
            prepared = session
            defer { session.stop() }
            // A shard sends only its patients' traffic; the digest is of the whole scenario's, as recorded.
            outcome = try await session.run(awaiting: awaiting)
        } catch {
            // A scenario that cannot be judged is an error with what the SUT answered; the suite
            // goes on and exits 3 at its end.
            if error.isInputError { throw error }
            let message = error.description
            let reason =
                message.hasPrefix(scenario.name + ": ") ? String(message.dropFirst(scenario.name.count + 2)) : message
            let verdict = Verdict(scenario: scenario.name, error: reason, contract: contract.summary())
            prepared?.writeUnjudgedEvidence(verdict, goldenPath: goldenPath)
            return (verdict, [])
        }
        let verdict = try session.judge(outcome, against: golden, goldenPath: goldenPath, contract: contract.summary())
        guard options.reports.listsRequests else { return (verdict, []) }
        return (verdict, zip(outcome.record.traffic.requests, outcome.record.traffic.outcomes).map(SentOutcome.init))
    }

    /// Runs each scenario and writes its golden file from what the SUT did; returns the paths written
    /// and warnings (a deliberately corrupted payload the SUT accepted, a rejection naming an unexpected field).
    package func record(
        _ paths: [String],
        progress: (String) -> Void
    ) async throws(HarnessError) -> [(String, [String])] {
        var written: [(String, [String])] = []
        for path in paths {
            let scenario: Scenario
            do throws(ScenarioLoadError) { scenario = try TracedScenarioLoader.load(path: path) } catch {
                throw .golden(error.description)
            }
            progress("recording \(scenario.name) (\(path))")
            let derived = Oracle.expect(scenario, seed: options.pacing.seed)
            var awaiting = AlertWait(oracle: derived, grace: options.pacing.alertWait)
            awaiting.names = options.names
            let session = try await ScenarioSession.prepare(path, scenario, options: options)
            defer { session.stop() }
            let outcome = try await session.run(awaiting: awaiting)
            let (golden, warnings) = GoldenFile.recorded(
                scenario: scenario.name,
                seed: options.pacing.seed ?? scenario.seed,
                digest: outcome.digest ?? "",  // (an unsharded run always digests)
                plan: outcome.record.traffic.requests,
                result: outcome.record,
                oracle: derived,
                scenario: scenario
            )
            let target = goldenPath(scenario)
            try? FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            guard FileManager.default.createFile(atPath: target, contents: Data(golden.yaml().utf8)) else {
                throw .golden("cannot write \(target)")
            }
            written.append((target, warnings))
        }
        return written
    }

    /// Scenario files of a path: the file itself, or a folder's `*.yaml` files in name order.
    package static func scenarioFiles(_ path: String) -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map { path + "/" + $0 }
    }
}
