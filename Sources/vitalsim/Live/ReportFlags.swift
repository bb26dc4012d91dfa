import ArgumentParser
import Foundation
import Judge
import RunRecord
import VitalSimCore

/// The reports of `run` and `merge`: JUnit XML, JSON and HTML files, and the console summary.
struct ReportFlags: ParsableArguments {
    @Option(name: .long, help: "Write JUnit XML here.") var junit: String?
    @Option(name: .long, help: "Write the verdicts as JSON here.") var json: String?
    @Option(
        name: .long,
        help:
            "Write a self-contained HTML report here (vitals charts with events and alerts, latency histograms, verdict table)."
    ) var html: String?
    @Option(
        name: .long,
        help:
            "Write a Markdown job summary here (outcome, scenarios, findings with their golden/scenario line, latency); also appended to $GITHUB_STEP_SUMMARY when that is set."
    ) var summary: String?
    @Option(name: .long, help: "Write the verdicts as a CTRF JSON test report (https://ctrf.io) here.")
    var ctrf: String?
    @Option(
        name: .long,
        help: "Write GitLab's code quality report (JSON) here: each finding on its golden or scenario file's line."
    ) var codeQuality: String?
    @Flag(
        name: .long,
        inversion: .prefixedNo,
        help:
            "Print GitHub Actions error/warning annotations on the golden or scenario file line of each finding (default: when GITHUB_ACTIONS=true)."
    ) var annotations: Bool?
    @Flag(name: .long, help: "Fail on SHOULD findings too (naming the refused field, citing evidence), not only SHALL.")
    var strict = false
    @Option(
        name: .long,
        help:
            "Waivers file (YAML: waivers: [{check: 'SCENARIO: CHECK', reason, ticket, expires: YYYY-MM-DD}]): those known failures do not fail the run; an expired waiver does."
    ) var waivers: String?
    @Option(
        name: .long,
        help:
            "An earlier run's --json verdict: checks that failed there are known failures, only new ones fail the run; each latency path is also compared with its histogram there (vitalsim compare): slower beyond noise fails."
    ) var baseline: String?
    @OptionGroup(title: "Latency regression (with --baseline)") var regression: RegressionFlags

    /// The CI gate from these flags and the SUT's conformance statement; a waivers or baseline file
    /// that cannot be read exits 2.
    func gate(conformance: ConformanceStatement) throws -> GatePolicy {
        let now = CivilTime(unixMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        var policy = GatePolicy(today: String(now.iso8601(fractional: false).prefix(10)))
        policy.conformance = conformance
        policy.strict = strict
        policy.latencySettings = regression.settings
        if let waivers {
            do { policy.waivers = try Waiver.parse(try FileText.read(waivers), file: waivers) } catch let error
                as ScenarioLoadError
            {
                throw CommandFailure.input("\(error)")
            } catch {
                throw CommandFailure.input("\(waivers): \(error)")
            }
        }
        if let baseline {
            guard let data = FileManager.default.contents(atPath: baseline) else {
                throw CommandFailure.input("--baseline: cannot read \(baseline)")
            }
            do { policy.baseline = try Baseline.parse(data, file: baseline) } catch {
                throw CommandFailure.input("--baseline: \(error)")
            }
        }
        return policy
    }

    /// The gate's settings in words, for the reports.
    var gateSettings: [String] {
        (strict ? ["strict"] : []) + (waivers.map { ["waivers \($0)"] } ?? [])
            + (baseline.map { ["baseline \($0)"] } ?? [])
    }

    /// Applies the gate, writes the reports and prints the console summary; exits 3 when a scenario
    /// could not be judged, 1 when a check failed that the gate does not excuse (docs/live-runs.md).
    func emit(
        _ judged: [Verdict],
        gate: GatePolicy,
        about: RunDescription? = nil,
        title: String,
        colour: Bool,
        command: String = "run",
        sources: [ShardResult.Part] = []
    ) throws {
        let outcome = gate.apply(judged)
        let verdicts = CheckLocator.locate(outcome.verdicts, with: Self.locators(sources))
        // A scenario that could not be judged is reported (as an error, with the SUT contract) and exits 3.
        let errors = verdicts.filter { $0.error != nil }
        for v in errors { printError("vitalsim \(command): \(v.scenario): \(v.error ?? "")") }
        if let junit { try Self.write(Data(RunReport(verdicts, about: about).junit.utf8), to: junit) }
        if let json {
            try Self.write(Data(RunReport(verdicts, notes: outcome.notes, about: about).json.utf8), to: json)
        }
        if let html {
            let page: String
            do throws(HTMLReport.TemplateProblem) {
                page = try HTMLReport(verdicts, title: title, about: about).render()
            } catch {
                throw CommandFailure.infrastructure("--html \(html): \(error)")
            }
            try Self.write(Data(page.utf8), to: html)
        }
        try emitCI(verdicts, notes: outcome.notes, about: about, title: title, sources: sources)
        print(RunReport(verdicts, notes: outcome.notes, about: about).console(colour: colour), terminator: "")
        if !errors.isEmpty { throw ExitCodes.infrastructure }
        if !verdicts.allSatisfy(\.passed) { throw ExitCode(1) }
    }

    /// The CI reports: job summary (and `$GITHUB_STEP_SUMMARY`), CTRF, GitLab code quality, and
    /// GitHub annotations on standard output.
    func emitCI(
        _ verdicts: [Verdict],
        notes: [String],
        about: RunDescription?,
        title: String,
        sources: [ShardResult.Part]
    ) throws {
        let environment = ProcessInfo.processInfo.environment
        let stepSummary = environment["GITHUB_STEP_SUMMARY"].flatMap { $0.isEmpty ? nil : $0 }
        if summary != nil || stepSummary != nil {
            let markdown = Data(JobSummary(verdicts, notes: notes, about: about).markdown.utf8)
            if let summary { try Self.write(markdown, to: summary) }
            if let stepSummary { try Self.append(markdown, to: stepSummary) }
        }
        if let ctrf { try Self.write(Data(CTRFReport(verdicts, about: about, title: title).json.utf8), to: ctrf) }
        let files = Dictionary(sources.map { ($0.scenario, $0.path) }, uniquingKeysWith: { a, _ in a })
        let found = CIAnnotations(verdicts, scenarioFiles: files)
        if let codeQuality { try Self.write(Data(found.codeQuality.utf8), to: codeQuality) }
        if annotations ?? (environment["GITHUB_ACTIONS"] == "true") {
            print(found.workflowCommands, terminator: "")
        }
    }

    /// A locator per scenario of the run, from its golden file's text and its scenario file (one
    /// that cannot be read any more locates checks on its golden file only).
    static func locators(_ parts: [ShardResult.Part]) -> [String: CheckLocator] {
        var out: [String: CheckLocator] = [:]
        for part in parts where out[part.scenario] == nil {
            out[part.scenario] = CheckLocator(
                goldenPath: relative(part.goldenPath),
                goldenText: part.golden,
                scenarioPath: relative(part.path),
                scenarioText: (try? FileText.read(part.path)) ?? ""
            )
        }
        return out
    }

    /// A path as CI annotations name files: relative to the repository checkout (`$GITHUB_WORKSPACE`,
    /// `$CI_PROJECT_DIR`) or else the working directory, when it lies inside it; as given otherwise.
    static func relative(_ path: String) -> String {
        let environment = ProcessInfo.processInfo.environment
        let cwd = FileManager.default.currentDirectoryPath
        let absolute = path.hasPrefix("/") ? path : cwd + "/" + path
        let standard = URL(fileURLWithPath: absolute).standardizedFileURL.path
        for root in [environment["GITHUB_WORKSPACE"], environment["CI_PROJECT_DIR"], cwd].compactMap({ $0 })
        where !root.isEmpty {
            let base = URL(fileURLWithPath: root).standardizedFileURL.path
            if standard.hasPrefix(base + "/") { return String(standard.dropFirst(base.count + 1)) }
        }
        return path
    }

    /// Adds to the end of a file (creating it), or says it cannot and exits 2.
    static func append(_ data: Data, to path: String) throws {
        if !FileManager.default.fileExists(atPath: path) { return try write(data, to: path) }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CommandFailure.input("cannot write \(path)")
        }
        defer { try? handle.close() }
        do {
            try handle.seekToEnd()
            try handle.write(contentsOf: data)
        } catch {
            throw CommandFailure.input("cannot write \(path): \(error)")
        }
    }

    /// Writes a file, or says it cannot and exits 2.
    static func write(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            throw CommandFailure.input("cannot write \(path)")
        }
    }
}
