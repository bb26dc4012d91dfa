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
                and traced to the catalogue as a verdict's are. Exit status: 0 every SHALL requirement is exercised (and the \
                share is at least --fail-under), 1 one is not, 2 input error.
                """
        )
        @Argument(help: "Scenario files or folders (default: scenarios/core).") var suites: [String] = []
        @Option(name: .customLong("golden-dir"), help: "Folder of golden files (default: each scenario's golden path).")
        var goldenDirectory: String?
        @Option(name: .long, help: "Write the coverage as JSON to FILE.") var json: String?
        @Option(name: .long, help: "Write the matrix of requirements and scenarios as HTML to FILE.") var html: String?
        @Option(
            name: .customLong("fail-under"),
            help: "Fail when fewer than PERCENT of the SHALL requirements are exercised (default: 100)."
        ) var failUnder: Double = 100

        func validate() throws {
            guard (0...100).contains(failUnder) else { throw ValidationError("--fail-under: a percentage, 0 to 100") }
        }

        func run() throws {
            let catalogue = try RequirementsCatalogue.shipped()
            var coverage = SuiteCoverage(catalogue: catalogue)
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
            if coverage.percent(.shall) < failUnder { throw ExitCode(1) }
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
