import ArgumentParser
import Foundation
import Judge
import Traffic
import VitalSimCore

extension VitalSim {
    /// `vitalsim expect SCENARIO`
    struct Expect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Derive the alerts a scenario must raise from its readings and the clinical rules (docs/clinical.md, docs/alert-rules.md), without the reference SUT, and check the golden file against them.",
            discussion: """
                Covers every rule of docs/alert-rules.md: thresholds (with persistence and re-arm), rates, forecast, weight change, daily intake, \
                rhythm (AF), NEWS2 and data gaps. \
                Exit status: 0 the golden file agrees (or there is none), 1 it contradicts the oracle, 2 input error.
                """
        )
        @Argument(help: "A scenario file.") var path: String
        @Option(
            name: .long,
            help: "Seed overriding the scenario's own (default: the golden file's seed, else the scenario's)."
        ) var seed: UInt64?
        @Option(name: .long, help: "Golden file to check (default: the scenario's golden path, when it exists).")
        var golden: String?
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() throws {
            let scenario: Scenario
            do throws(ScenarioLoadError) { scenario = try TracedScenarioLoader.load(path: path) } catch {
                throw CommandFailure.input(error.description)
            }
            let goldenPath = golden ?? scenario.golden
            var file: GoldenFile?
            if let text = try? String(contentsOfFile: goldenPath, encoding: .utf8) {
                do throws(ScenarioLoadError) { file = try GoldenFile.parse(text, file: goldenPath) } catch {
                    throw CommandFailure.input(error.description)
                }
            } else if golden != nil {
                throw CommandFailure.input("cannot read golden file \(goldenPath)")
            }
            let derived = Oracle.expect(scenario, seed: seed ?? file?.seed)
            let lastDeviceTime = RecipientOracle.lastDeviceTimes(scenario, seed: seed ?? file?.seed)
            let contradictions =
                file.map {
                    Oracle.compare(derived, $0)
                        + RecipientOracle.compare(derived, $0, scenario: scenario, lastDeviceTime: lastDeviceTime)
                } ?? []
            if json {
                let alerts: [JSONValue] = derived.map {
                    .object([
                        ("patientId", .string($0.patientID)), ("rule", .string($0.rule)),
                        ("severity", .string($0.severity.rawValue)),
                        ("raisedAt", .string(CivilTime(unixMilliseconds: $0.raisedAt).iso8601(fractional: true))),
                        ("evidence", .string($0.evidence)),
                    ])
                }
                var fields: [(String, JSONValue)] = [
                    ("scenario", .string(scenario.name)), ("alerts", .array(alerts)),
                    ("derivedRules", .array(Oracle.derivedRuleIDs.map { .string($0) })),
                ]
                if file != nil {
                    fields.append(("golden", .string(goldenPath)))
                    fields.append(("contradictions", .array(contradictions.map { .string($0) })))
                }
                print(JSONValue.object(fields).serialized())
            } else {
                print("\(scenario.name): \(derived.count) alert(s) derived")
                for a in derived {
                    print(
                        "  \(CivilTime(unixMilliseconds: a.raisedAt).iso8601(fractional: true))  patient \(a.patientID)  \(a.rule) (\(a.severity))  evidence \(a.evidence)"
                    )
                }
                if file != nil {
                    print(
                        contradictions.isEmpty
                            ? "\(goldenPath) agrees with the oracle" : "\(goldenPath) contradicts the oracle:"
                    )
                    for c in contradictions { print("  " + c) }
                }
            }
            if !contradictions.isEmpty { throw ExitCode(1) }
        }
    }
}
