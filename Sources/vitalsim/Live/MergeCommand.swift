import ArgumentParser
import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import VitalSimCore

extension VitalSim {
    /// `vitalsim merge RESULT…`
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Merge the result files of a sharded run (vitalsim run --shard I/N --result FILE) into one verdict.",
            discussion: """
                Every shard's result is needed once: a missing, duplicate or foreign shard (another suite, seed, \
                start instant or golden file) is an error. The merged verdict has the checks and counts of the \
                unsharded run, its latency percentiles drawn from the shards' merged histograms. \
                Exit status: 0 every check passed or was excused (as vitalsim run), 1 a check failed, 2 unusable \
                result, waivers or baseline files, 3 a scenario could not be judged.
                """
        )
        @Argument(help: "The shards' result files.") var results: [String]
        @OptionGroup(title: "Reports") var reports: ReportFlags
        @Option(
            name: .long,
            help:
                "The run's SUT profile, for its conformance statement (what the SUT claims; the rest is not-applicable)."
        ) var sut: String?
        @Option(
            name: .long,
            help:
                "Write every request of the run with its outcome here, one JSON object per line (scenario, patient, device, due time, reading ids, status), in the unsharded run's order."
        ) var requests: String?

        func run() throws {
            let started = Date()
            let profile = try loadProfile(sut)
            let gate = try reports.gate(conformance: profile?.conformance ?? ConformanceStatement())
            var verdicts: [Verdict]
            var read: [(file: String, result: ShardResult)] = []
            do throws(MergeError) {
                for file in results { read.append((file, try ShardMerge.read(file))) }
                verdicts = try ShardMerge.merge(read)
            } catch {
                throw CommandFailure.input("vitalsim merge: \(error)")
            }
            if let requests { try ReportFlags.write(try Self.lines(ShardMerge.requests(read)), to: requests) }
            let first = read[0].result
            if reports.html != nil { verdicts = withCharts(verdicts, first) }
            // The run's start is the shards' shared origin when they had one, else the merge's.
            let about = RunDescription(
                sut: profile?.name ?? "as the shards' results say",
                profile: sut,
                target: Self.target(of: read.map(\.result)),
                suite: first.suite,
                seed: first.seed,
                runID: "merged from \(Set(results).count) shard result(s)",
                started: first.startAt ?? Int64(started.timeIntervalSince1970 * 1000),
                duration: Date().timeIntervalSince(started),
                gate: reports.gateSettings
            )
            try emit(verdicts, gate: gate, about: about, suite: first.suite, sources: first.scenarios)
        }

        /// The SUT the shards reached: their base URL when they share one, nil when each started the
        /// embedded reference SUT.
        static func target(of results: [ShardResult]) -> String? {
            let targets = results.map(\.target).reduce(into: [String?]()) { if !$0.contains($1) { $0.append($1) } }
            guard targets.count > 1 else { return targets.first ?? nil }
            return "each shard its own: " + targets.map { $0 ?? "the embedded reference SUT" }.joined(separator: ", ")
        }

        /// The merged requests as JSON lines, each with its scenario's name.
        static func lines(_ scenarios: [(scenario: String, requests: [SentOutcome])]) throws -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var out = Data()
            for (scenario, requests) in scenarios {
                for r in requests {
                    out.append(try encoder.encode(Line(scenario: scenario, request: r)))
                    out.append(0x0A)
                }
            }
            return out
        }

        /// One line of `--requests`: a request and its scenario.
        struct Line: Encodable {
            let scenario: String
            let request: SentOutcome

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(scenario, forKey: Key("scenario"))
                try request.encode(to: encoder)
            }

            struct Key: CodingKey {
                let stringValue: String
                var intValue: Int? { nil }
                init(_ s: String) { stringValue = s }
                init?(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
        }

        func emit(
            _ verdicts: [Verdict],
            gate: GatePolicy,
            about: RunDescription,
            suite: String,
            sources: [ShardResult.Part]
        ) throws {
            let colour = isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            let shards = Set(results).count
            try reports.emit(
                verdicts,
                gate: gate,
                about: about,
                title: "VitalSim run of \(suite) (\(shards) shards merged)",
                colour: colour,
                command: "merge",
                sources: sources
            )
        }

        /// The verdicts with their scenarios' vitals charts, drawn again from the scenario files (a
        /// scenario file that is not there any more leaves its verdict without a chart, said once).
        func withCharts(_ verdicts: [Verdict], _ result: ShardResult) -> [Verdict] {
            var out = verdicts
            for (i, part) in result.scenarios.enumerated() where i < out.count {
                guard let scenario = try? TracedScenarioLoader.load(path: part.path) else {
                    printError(
                        "vitalsim merge: \(part.path): cannot read the scenario, so its report has no vitals chart"
                    )
                    continue
                }
                out[i].chart = ScenarioChart.make(scenario, seed: result.seed)
            }
            return out
        }
    }
}
