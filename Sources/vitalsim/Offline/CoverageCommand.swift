import ArgumentParser
import Foundation
import Judge
import LiveHarness
import Requirements
import Traffic
import VitalSimCore

extension VitalSim {
    /// `vitalsim coverage [SUITE…]`
    struct Coverage: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Which requirements of the catalogue (docs/requirements.md) a suite exercises, by which scenarios and checks, and which none does.",
            discussion: """
                Offline: each scenario's checks are read from its golden file and its traffic (as the reference contract sends it) \
                and traced to the catalogue as a verdict's are. Requirements only a run over a BLE link or one observing push \
                channels can exercise are counted when --ble or --observe says the suite is run so, else listed apart. \
                Exit status: 0 every SHALL requirement is exercised but those --allow-uncovered names (and the share is at \
                least --fail-under), 1 one is not, 2 input error.
                """
        )
        @Argument(help: "Scenario files or folders (default: scenarios/core).") var suites: [String] = []
        @Option(name: .customLong("golden-dir"), help: "Folder of golden files (default: each scenario's golden path).")
        var goldenDirectory: String?
        @Option(name: .long, help: "Write the coverage as JSON to FILE.") var json: String?
        @Option(name: .long, help: "Write the matrix of requirements and scenarios as HTML to FILE.") var html: String?
        @Option(
            name: .customLong("fail-under"),
            help:
                "Fail when fewer than PERCENT of the SHALL requirements are exercised (default: any uncovered SHALL fails)."
        ) var failUnder: Double?
        @Option(
            name: .customLong("allow-uncovered"),
            help: ArgumentHelp(
                "A SHALL requirement whose want of coverage does not fail (repeatable): for one no check of VitalSim verifies yet. It stays listed and counted.",
                valueName: "ID"
            )
        ) var allowUncovered: [String] = []
        @Flag(
            name: .long,
            help: "The suite is also run over a BLE link (vitalsim run --ble hci): count what only that exercises."
        )
        var ble = false
        @Flag(
            name: .long,
            help:
                "The suite is also run observing push channels (vitalsim run --observe): count what only that exercises."
        ) var observe = false

        func validate() throws {
            if let failUnder, !(0...100).contains(failUnder) {
                throw ValidationError("--fail-under: a percentage, 0 to 100")
            }
        }

        func run() throws {
            let catalogue = try RequirementsCatalogue.shipped()
            for id in allowUncovered where catalogue.requirement(id) == nil {
                throw CommandFailure.input("--allow-uncovered \(id): no requirement of the catalogue has that id")
            }
            var modes: Set<Requirement.Applicability> = []
            if ble { modes.insert(.bleLink) }
            if observe { modes.insert(.pushChannels) }
            var coverage = SuiteCoverage(catalogue: catalogue, modes: modes)
            let paths = suites.isEmpty ? ["scenarios/core"] : suites
            for path in paths {
                let files = LiveSuite.scenarioFiles(path)
                for file in files {
                    let scenario: Scenario
                    do throws(ScenarioLoadError) { scenario = try TracedScenarioLoader.load(path: file) } catch {
                        throw CommandFailure.input(error.description)
                    }
                    coverage.add(scenario, golden: try golden(of: scenario))
                }
            }
            print(CoverageDocument.text(coverage, suites: paths), terminator: "")
            if let json { try write(CoverageDocument.json(coverage, suites: paths), to: json) }
            if let html {
                let page: String
                do throws(CatalogueDocument.Problem) { page = try CoverageDocument.html(coverage) } catch {
                    throw CommandFailure.input(error.description)
                }
                try write(page, to: html)
            }
            let unknown = coverage.unknownIDs
            if !unknown.isEmpty { throw CommandFailure.input("checks name ids the catalogue lacks: \(unknown)") }
            let failing = coverage.uncovered(.shall).map(\.id).filter { !allowUncovered.contains($0) }
            let allowed = coverage.uncovered(.shall).map(\.id).filter { allowUncovered.contains($0) }
            if !allowed.isEmpty {
                print("allowed uncovered (--allow-uncovered): \(allowed.joined(separator: ", "))")
            }
            let stale = allowUncovered.filter { id in !coverage.uncovered(.shall).contains { $0.id == id } }
            if !stale.isEmpty { print("no longer uncovered, drop --allow-uncovered: \(stale.joined(separator: ", "))") }
            if !failing.isEmpty || coverage.percent(.shall) < (failUnder ?? 0) { throw ExitCode(1) }
        }

        /// The scenario's golden file, nil when it has none.
        func golden(of scenario: Scenario) throws -> GoldenFile? {
            let path = goldenDirectory.map { $0 + "/\(scenario.name).golden.yaml" } ?? scenario.golden
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            do throws(ScenarioLoadError) { return try GoldenFile.parse(text, file: path) } catch {
                throw CommandFailure.input(error.description)
            }
        }

        func write(_ text: String, to path: String) throws {
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
                throw CommandFailure.input("cannot write \(path)")
            }
        }
    }
}
