import ArgumentParser
import Foundation
import Judge
import ReferenceEngine
import Requirements
import VitalSimCore

extension VitalSim {
    /// `vitalsim requirements`
    struct RequirementsCatalogue: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "requirements",
            abstract:
                "Print the requirements catalogue: every requirement a backend is tested against, with its id, level and source.",
            discussion: """
                The source documents' requirements and VitalSim's contract (Sources/Requirements/Catalogue/requirements.yaml), \
                one per shipped alert rule, two per reading kind and one per GATT characteristic. Checks name these ids. \
                `--markdown` writes docs/requirements.md. Exit status: 0, or 2 when the catalogue's sources disagree.
                """
        )
        @Flag(name: .long, help: "Print the catalogue as Markdown (docs/requirements.md).") var markdown = false
        @Flag(name: .long, help: "Print the catalogue as JSON.") var json = false

        func validate() throws {
            if markdown && json { throw ValidationError("--markdown and --json: give one") }
        }

        func run() throws {
            let catalogue = try Self.shipped()
            if markdown {
                do throws(CatalogueDocument.Problem) {
                    print(try CatalogueDocument.markdown(catalogue), terminator: "")
                } catch {
                    throw CommandFailure.input(error.description)
                }
            } else if json {
                print(CatalogueDocument.json(catalogue), terminator: "")
            } else {
                for r in catalogue.requirements { print("\(r.id)\t\(r.level.rawValue)\t\(r.text)") }
                print("\(catalogue.requirements.count) requirements, catalogue version \(catalogue.version)")
            }
        }

        /// The shipped catalogue with the shipped alert rules.
        static func shipped() throws -> RequirementCatalogue {
            let rules: [AlertRule]
            do throws(ScenarioLoadError) { rules = try RuleSetLoader.defaultRules() } catch {
                throw CommandFailure.input(error.description)
            }
            do throws(RequirementCatalogue.Problem) {
                return try RequirementCatalogue.shipped(rules: rules.map(\.catalogueDescription))
            } catch { throw CommandFailure.input(error.description) }
        }
    }
}
