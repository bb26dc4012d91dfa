import Foundation
import InProcessSUT
import Judge
import LiveHarness
import SUTAdapter
import TestFixtures
import Traffic

/// `vitalsim run` without a process: each scenario's traffic generated and sent by the runner to
/// the reference SUT's routes in-process (``RouterExchange``, a fresh SQLite database per scenario,
/// configured from the scenario as `vitalsim serve --scenario` is), its alerts polled, its stored
/// readings read back, and the run judged against the scenario's reviewed golden file.
enum InProcessRun {
    /// A scenario file of the repository (`scenarios/SUITE/NAME.yaml`).
    static func path(_ suite: String, _ name: String) -> String {
        Fixtures.repositoryRoot + "/scenarios/\(suite)/\(name).yaml"
    }

    /// The scenarios of a suite folder, by name, without those listed in `except`.
    static func names(_ suite: String, except: Set<String> = []) -> [String] {
        let files =
            (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.repositoryRoot + "/scenarios/" + suite))
            ?? []
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.filter { !except.contains($0) }
            .sorted()
    }

    /// Runs the scenario at `path` against the in-process reference SUT, with `faults` (as
    /// `--sut-fault`) and `configure` applied to the SUT and the options, and returns its verdict.
    static func verdict(
        _ path: String,
        faults: [String] = [],
        sut configureSUT: (inout InProcessSUT) throws -> Void = { _ in },
        options configure: @Sendable (inout LiveOptions) -> Void = { _ in }
    ) async throws -> Verdict {
        var sut = try InProcessSUT(scenario: TracedScenarioLoader.load(path: path))
        try sut.add(faults: faults)
        try configureSUT(&sut)
        return try await sut.test { client in
            guard let verdict = try await verdicts([path], on: client, options: configure).first else {
                throw Missing.verdict(path)
            }
            return verdict
        }
    }

    /// Runs the scenarios at `paths` one after the other, as one `vitalsim run`, against the SUT
    /// `client` reaches (one long-lived SUT: several runs may share it), with `configure` applied.
    static func verdicts(
        _ paths: [String],
        on client: SUTTestClient,
        options configure: (inout LiveOptions) -> Void = { _ in }
    ) async throws -> [Verdict] {
        var options = options(client)
        configure(&options)
        return try await LiveSuite(options: options).run(paths, progress: { _ in })
    }

    /// The options of a run (or a recording) against the SUT `client` reaches, as CI runs.
    static func options(_ client: SUTTestClient) -> LiveOptions {
        var options = LiveOptions(executable: "/nonexistent/vitalsim")
        options.target.url = RouterExchange.base
        options.target.exchange = RouterExchange(client)
        options.reports.ci = true
        // Alerts are raised as each reading is stored: nothing is pending once the list is quiet,
        // and an alert that is missing will not come.
        options.pacing.settle = .milliseconds(100)
        options.pacing.alertWait = .milliseconds(100)
        // Many runs at once in this process stall the harness for seconds: their latency is not
        // judged here (``failures(_:latency:)``), so their stalls must not make them not judged.
        options.pacing.meterHiccups = false
        return options
    }

    /// Writes a SUT profile (and the files it names) into `directory` and loads it.
    static func profile(
        _ text: String,
        name: String,
        in directory: String,
        files: [String: String] = [:]
    ) throws -> SUTProfile {
        for (file, content) in files {
            try content.write(toFile: directory + "/" + file, atomically: true, encoding: .utf8)
        }
        try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        return try SUTProfileLoader.load(path: directory + "/" + name, environment: [:])
    }

    enum Missing: Error { case verdict(String) }

    /// Why the scenario at `path` could not be judged: its verdict's error, or the error the run
    /// threw (`HarnessError`: the command exits 3 either way); nil when it was judged.
    static func unjudged(
        _ path: String,
        faults: [String] = [],
        options configure: @Sendable (inout LiveOptions) -> Void = { _ in }
    ) async throws -> String? {
        do {
            return try await verdict(path, faults: faults, options: configure).error
        } catch let error as HarnessError {
            return error.description
        }
    }

    /// The findings of a verdict's failed checks; without `latency`, those of its latency budgets
    /// left out: in-process the run shares the cores with every other test, so its latencies are
    /// the machine's, not the SUT's (budgets are judged in `JudgeTests` on constructed results, and
    /// live in `IntegrationTests`).
    static func findings(_ verdict: Verdict, latency: Bool = true) -> Set<Finding> {
        Set(verdict.checks.filter { latency || $0.kind != .budget }.compactMap(\.finding))
    }

    /// The failed checks as the console names them (`FINDING CHECK-NAME`); without `latency`, those
    /// of the latency budgets left out.
    static func failures(_ verdict: Verdict, latency: Bool = true) -> [String] {
        verdict.checks.filter { latency || $0.kind != .budget }.compactMap { c in
            c.finding.map { "\($0.rawValue) \(c.name)" }
        }
    }
}
