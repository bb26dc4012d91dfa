import ArgumentParser
import Judge
import SUTAdapter
import Traffic
import VitalSimCore

extension VitalSim {
    /// `vitalsim validate FILE…`
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check scenario files; print every problem as file:line:column: field: message.",
            discussion: "Exits 0 when all files are valid and 2 when any is not."
        )

        @Argument(help: "Scenario YAML files or folders of them.") var files: [String]

        func run() throws {
            var failed = false
            for path in try ScenarioFiles.expand(files) {
                do {
                    let scenario = try TracedScenarioLoader.load(path: path)
                    let traces = scenario.patients.flatMap(\.devices).compactMap(\.trace)
                    let traced = traces.reduce(0) {
                        $0 + ($1.readings?.count ?? 0) + ($1.electrocardiograms?.count ?? 0)
                    }
                    let recordings =
                        traces.isEmpty ? "" : ", \(traces.count) traced device(s) with \(traced) recorded reading(s)"
                    print(
                        "\(path): ok (\(scenario.patients.count) patient(s), \(scenario.patients.reduce(0) { $0 + $1.devices.count }) device(s), \(scenario.timeline.count) timeline entries, \(scenario.duration)\(recordings))"
                    )
                } catch {
                    failed = true
                    printError(error.description)
                }
            }
            if failed { throw ExitCodes.input }
        }
    }

    /// `vitalsim generate SCENARIO --out DIR`
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a scenario offline: btsnoop captures per BLE device and readings.jsonl.",
            discussion:
                "The same scenario and seed always give byte-identical output. A folder generates every scenario in it into OUT/<name>/."
        )

        @Argument(help: "A scenario file, or a folder of scenarios (a suite).") var scenario: String
        @Option(name: .long, help: "Output folder.") var out: String
        @Option(name: .long, help: "Seed overriding the scenario's own.") var seed: UInt64?
        @Option(
            name: .long,
            help:
                "A SUT profile: also write wire.jsonl, every request exactly as a run through it sends it (method, path or topic, headers, body, the corruption meant), for an independent validator."
        ) var sut: String?
        @Option(name: .customLong("run-id"), help: "The run id the profile's lifecycle ids use ({run}).")
        var runID = "run"

        func run() throws {
            let paths = try ScenarioFiles.expand([scenario])
            let suite = paths.count > 1 || ScenarioFiles.isDirectory(scenario)
            let wire = try loadProfile(sut).map { WireLog(profile: $0, runID: runID) }
            for path in paths {
                let s: Scenario
                do { s = try TracedScenarioLoader.load(path: path) } catch {
                    throw CommandFailure.input(error.description)
                }
                let dir = suite ? "\(out)/\(s.name)" : out
                do {
                    let summary = try CaptureGenerator(scenario: s, seed: seed).generate(into: dir)
                    print("\(s.name): \(summary.readings) readings, \(summary.captures.count) capture(s) in \(dir)")
                } catch {
                    throw CommandFailure.input("\(error)")
                }
                if let wire {
                    let requests = try wire.write(s, seed: seed, to: dir + "/wire.jsonl")
                    print(
                        "\(s.name): \(requests) request(s) as profile '\(wire.profile.name)' sends them in \(dir)/wire.jsonl"
                    )
                }
            }
        }
    }
}

/// Expands folders into their `*.yaml` files, sorted.
enum ScenarioFiles {
    static func expand(_ items: [String]) throws -> [String] {
        var out: [String] = []
        for item in items {
            if isDirectory(item) {
                let names = ((try? FileManagerShim.contents(item)) ?? []).filter {
                    $0.hasSuffix(".yaml") || $0.hasSuffix(".yml")
                }.sorted()
                if names.isEmpty {
                    throw CommandFailure.input("\(item): no .yaml scenario files in this folder")
                }
                out += names.map { item + "/" + $0 }
            } else {
                out.append(item)
            }
        }
        return out
    }

    static func isDirectory(_ path: String) -> Bool { FileManagerShim.isDirectory(path) }
}
