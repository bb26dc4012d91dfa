import ArgumentParser
import Foundation
import Judge
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
    @Flag(name: .long, help: "Fail on SHOULD findings too (naming the refused field, citing evidence), not only SHALL.")
    var strict = false
    @Option(
        name: .long,
        help:
            "Waivers file (YAML: waivers: [{check: 'SCENARIO: CHECK', reason, ticket, expires: YYYY-MM-DD}]): those known failures do not fail the run; an expired waiver does."
    ) var waivers: String?
    @Option(
        name: .long,
        help: "A earlier run's --json verdict: checks that failed there are known failures; only new ones fail the run."
    ) var baseline: String?

    /// The CI gate from these flags and the SUT's conformance statement; a waivers or baseline file
    /// that cannot be read exits 2.
    func gate(conformance: ConformanceStatement) throws -> GatePolicy {
        let now = CivilTime(unixMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        var policy = GatePolicy(today: String(now.iso8601(fractional: false).prefix(10)))
        policy.conformance = conformance
        policy.strict = strict
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
        command: String = "run"
    ) throws {
        let outcome = gate.apply(judged)
        let verdicts = outcome.verdicts
        // A scenario that could not be judged is reported (as an error, with the SUT contract) and exits 3.
        let errors = verdicts.filter { $0.error != nil }
        for v in errors { printError("vitalsim \(command): \(v.scenario): \(v.error ?? "")") }
        if let junit { try Self.write(Data(RunReport.junit(verdicts, about: about).utf8), to: junit) }
        if let json {
            try Self.write(Data(RunReport.json(verdicts, notes: outcome.notes, about: about).utf8), to: json)
        }
        if let html { try Self.write(Data(HTMLReport.render(verdicts, title: title, about: about).utf8), to: html) }
        print(RunReport.console(verdicts, colour: colour, notes: outcome.notes, about: about), terminator: "")
        if !errors.isEmpty { throw ExitCodes.infrastructure }
        if !verdicts.allSatisfy(\.passed) { throw ExitCode(1) }
    }

    /// Writes a file, or says it cannot and exits 2.
    static func write(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            throw CommandFailure.input("cannot write \(path)")
        }
    }
}
