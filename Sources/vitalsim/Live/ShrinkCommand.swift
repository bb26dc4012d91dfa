import ArgumentParser
import Foundation
import Judge
import LiveHarness
import SUTAdapter
import Traffic
import VitalSimCore

extension VitalSim {
    /// `vitalsim shrink SCENARIO …`
    struct Shrink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find the smallest part of a failing scenario that still fails the same check (delta debugging).",
            discussion: """
                Runs the scenario against the SUT (the same options as vitalsim run) and picks a failed check (--check, else the first). \
                Then Zeller's ddmin removes patients, devices and timeline entries, and a binary search shortens the duration, \
                keeping each removal after which the run still fails that check (same finding, rule and patient). Candidates are \
                judged against what the oracle derives for them (vitalsim expect), in the windows of the golden file's matching \
                expectations. Writes OUTPUT/NAME-min.yaml and its golden file, then runs them once more to confirm. \
                Exit status: 0 shrunk (or nothing fails), 1 the minimized scenario did not fail as confirmed, 2 input error, \
                3 SUT unreachable or infrastructure failure.
                """
        )
        @OptionGroup var live: LiveFlags
        @Option(
            name: .long,
            help:
                "The failed check to keep, as the console prints it or part of it (e.g. 'missed alert glucose.level2-low')."
        )
        var check: String?
        @Option(name: .long, help: "At most this many candidate runs (1...10000).") var maxRuns = 300
        @Option(name: .long, help: "At most this many seconds of searching (the best scenario so far is kept).")
        var maxTime = 1800.0
        @Option(name: .long, help: "Folder for the minimized scenario and its golden file.") var output = "shrunk"

        func validate() throws {
            if !(1...10_000).contains(maxRuns) { throw ValidationError("--max-runs must be 1...10000") }
            if !(1...86_400).contains(maxTime) { throw ValidationError("--max-time must be 1...86400 seconds") }
            if LiveSuite.scenarioFiles(live.path) != [live.path] {
                throw ValidationError("shrink takes one scenario file, not a folder")
            }
        }

        func run() async throws {
            let options = try live.options()
            let text: String
            let document: ScenarioDocument
            do {
                text = try FileText.read(live.path)
                document = try ScenarioDocument(text: text, file: live.path)
            } catch {
                throw CommandFailure.input("\(error)")
            }
            let reference = try referenceGolden(options)
            let failures = try await originalFailures(options, reference: reference)
            guard !failures.isEmpty else {
                print("\(document.name): every check passes; nothing to shrink")
                return
            }
            printError("\(document.name) fails: " + failures.map(\.description).joined(separator: "; "))
            let target = try chooseTarget(failures)
            printError("shrinking \(document.name) for: \(target)")
            let work = NSTemporaryDirectory() + "vitalsim-shrink-\(getpid())"
            try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: work) }
            let candidatePath = work + "/candidate.yaml"
            let started = ContinuousClock.now
            let shrinker = Shrinker(
                document: document,
                target: target,
                budget: .init(runs: maxRuns, seconds: maxTime),
                evaluate: { yaml in
                    await ShrinkRuns.evaluate(yaml, at: candidatePath, reference: reference, options: options)
                },
                progress: { printError($0) },
                elapsed: { ContinuousClock.now - started }
            )
            guard let result = await shrinker.run() else {
                throw CommandFailure.input(
                    "\(document.name): judged against what the oracle derives, the scenario does not fail '\(target)'; shrink needs a failure the oracle's expectations reproduce"
                )
            }
            let elapsed = ContinuousClock.now - started
            try await write(document, result, target: target, reference: reference, options: options, elapsed: elapsed)
        }

        /// The scenario's golden file, when there is one.
        func referenceGolden(_ options: LiveOptions) throws -> GoldenFile? {
            do throws(HarnessError) { return try ShrinkRuns.referenceGolden(live.path, options: options) } catch {
                throw CommandFailure.input(error.description)
            }
        }

        /// The failures of the scenario as written, judged against its golden file (else what the oracle derives).
        func originalFailures(_ options: LiveOptions, reference: GoldenFile?) async throws -> [FailureSignature] {
            do throws(HarnessError) {
                return try await ShrinkRuns.originalFailures(
                    live.path,
                    reference: reference,
                    options: options,
                    progress: { printError($0) }
                )
            } catch {
                printError("vitalsim shrink: \(error)")
                throw error.isInputError ? ExitCodes.input : ExitCodes.infrastructure
            }
        }

        func chooseTarget(_ failures: [FailureSignature]) throws -> FailureSignature {
            guard let check else { return failures[0] }
            if let match = failures.first(where: { $0.description.contains(check) }) { return match }
            printError("no failed check matches --check '\(check)'; the failed checks are:")
            for f in failures { printError("  \(f)") }
            throw ExitCodes.input
        }
    }
}
