import ArgumentParser
import Foundation
import Judge
import VitalSimCore

/// The thresholds of a latency regression, shared by `compare` and `run --baseline`.
struct RegressionFlags: ParsableArguments {
    @Option(name: .long, help: "Significance level of the one-sided Mann–Whitney U test.")
    var regressionAlpha = 0.01
    @Option(
        name: .long,
        help: "Smallest Vargha–Delaney A (P(new slower)) that counts: 0.56 small, 0.64 medium, 0.71 large."
    ) var regressionEffect = 0.71
    @Option(name: .long, help: "Smallest Hodges–Lehmann shift (ms) that counts as slower.")
    var regressionShift = 10.0
    @Option(name: .long, help: "Smallest shift as a share of the baseline's median that counts as slower.")
    var regressionRatio = 0.25

    func validate() throws {
        guard regressionAlpha > 0, regressionAlpha < 1 else {
            throw ValidationError("--regression-alpha must lie between 0 and 1")
        }
        guard regressionEffect >= 0.5, regressionEffect <= 1 else {
            throw ValidationError("--regression-effect must lie between 0.5 and 1")
        }
        guard regressionShift >= 0, regressionRatio >= 0 else {
            throw ValidationError("--regression-shift and --regression-ratio must not be negative")
        }
    }

    var settings: LatencyComparison.Settings {
        var s = LatencyComparison.Settings()
        (s.alpha, s.minimumEffect, s.minimumShift, s.minimumRatio) = (
            regressionAlpha, regressionEffect, regressionShift, regressionRatio
        )
        return s
    }
}

extension VitalSim {
    /// `vitalsim compare BASE NEW`
    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say, per latency path, whether a run is slower than a baseline run beyond noise.",
            discussion: """
                BASE and NEW are JSON verdicts (vitalsim run --json, vitalsim merge --json) or shard result files \
                (vitalsim run --result). Each path's whole distribution (the HdrHistogram the run measured) is \
                compared, not a percentile: the one-sided Mann–Whitney U test, the effect as Vargha–Delaney A, the \
                size as the Hodges–Lehmann shift. Slower means all three: p below --regression-alpha, A at least \
                --regression-effect, and a shift of at least --regression-shift ms and --regression-ratio of the \
                baseline's median, beyond the path's resolution (a polled alert's poll cycle: 50 ms, or the longer \
                one either run recorded when its alert list was slow to read; docs/live-runs.md). Exit status: 0 nothing slower, 1 a path slower, 2 an \
                unreadable file or no path measured in both.
                """
        )
        @Argument(help: "The baseline run's JSON verdict or shard result.") var base: String
        @Argument(help: "The run to judge, likewise.") var new: String
        @OptionGroup(title: "Regression") var regression: RegressionFlags
        @Flag(name: .long, help: "Compare each scenario's paths, not the paths pooled over the suite.")
        var perScenario = false
        @Option(name: .long, help: "Write the comparison as JSON here.") var json: String?

        func run() throws {
            let baseRuns = try Self.read(base)
            let newRuns = try Self.read(new)
            var rows: [(scope: String, path: LatencyPath, comparison: LatencyComparison)] = []
            if perScenario {
                for scenario in baseRuns.distributions.keys.sorted() {
                    guard let newPaths = newRuns.distributions[scenario],
                        let basePaths = baseRuns.distributions[scenario]
                    else { continue }
                    let cycles = (baseRuns.pollCycle(of: scenario), newRuns.pollCycle(of: scenario))
                    rows += Self.compare(basePaths, newPaths, scope: scenario, regression.settings, pollCycles: cycles)
                }
            } else {
                rows = Self.compare(
                    LatencyRecord.pooled(baseRuns.distributions),
                    LatencyRecord.pooled(newRuns.distributions),
                    scope: "suite",
                    regression.settings,
                    pollCycles: (baseRuns.pollCycle(), newRuns.pollCycle())
                )
            }
            guard !rows.isEmpty else {
                throw CommandFailure.input("vitalsim compare: no latency path was measured in both \(base) and \(new)")
            }
            for row in rows {
                let word = row.comparison.outcome == .slower ? "SLOWER" : row.comparison.outcome.rawValue
                print("\(word) \(row.scope) \(row.path.rawValue): \(row.comparison.summary(baseline: base))")
            }
            if let json { try ReportFlags.write(Self.json(rows), to: json) }
            // The harness's own lag says whether the machine, not the SUT, got slower: a note, not a failure.
            let slower = rows.filter { $0.comparison.outcome == .slower && $0.path != .schedulingLag }.count
            if rows.contains(where: { $0.comparison.outcome == .slower && $0.path == .schedulingLag }) {
                print(
                    "note: the harness itself dispatched later than in \(base) (scheduling-lag): the machine was busier; "
                        + "a slower path above may be the machine's, not the SUT's"
                )
            }
            print(
                slower == 0
                    ? "PASS no latency path slower than \(base)"
                    : "FAIL \(slower) of \(rows.count) latency path(s) slower than \(base)"
            )
            if slower > 0 { throw ExitCode(1) }
        }

        static func read(_ path: String) throws -> LatencyRecord.Measured {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure.input("vitalsim compare: cannot read \(path)")
            }
            do { return try LatencyRecord.read(data, file: path) } catch {
                throw CommandFailure.input("vitalsim compare: \(error)")
            }
        }

        /// Each path measured on both sides, the harness's own scheduling lag included (it tells
        /// whether the machine, not the SUT, got slower); reading → alert at the resolution of the
        /// two runs' longest alert-poll cycles (ms; nil where a file does not record one).
        static func compare(
            _ base: [LatencyPath: LatencyDistribution],
            _ new: [LatencyPath: LatencyDistribution],
            scope: String,
            _ settings: LatencyComparison.Settings,
            pollCycles: (base: Double?, new: Double?)
        ) -> [(scope: String, path: LatencyPath, comparison: LatencyComparison)] {
            base.keys.sorted().compactMap { path in
                guard let baseline = base[path], let measured = new[path] else { return nil }
                let comparison = LatencyComparison.compare(
                    base: baseline,
                    new: measured,
                    settings: settings,
                    resolution: path.resolution(pollCycles: pollCycles.base, pollCycles.new)
                )
                return (scope, path, comparison)
            }
        }

        static func json(_ rows: [(scope: String, path: LatencyPath, comparison: LatencyComparison)]) -> Data {
            let items: [JSONValue] = rows.map { row in
                let comparison = row.comparison
                return .object([
                    ("scope", .string(row.scope)), ("path", .string(row.path.rawValue)),
                    ("outcome", .string(comparison.outcome.rawValue)),
                    ("baseSamples", .int(Int64(comparison.baseCount))),
                    ("newSamples", .int(Int64(comparison.newCount))), ("baseMedianMs", .double(comparison.baseMedian)),
                    ("newMedianMs", .double(comparison.newMedian)), ("baseP99Ms", .double(comparison.baseP99)),
                    ("newP99Ms", .double(comparison.newP99)), ("shiftMs", .double(comparison.shift)),
                    ("effectA", .double(comparison.effect)),
                    ("pSlower", .double(comparison.pSlower)), ("pFaster", .double(comparison.pFaster)),
                    ("resolutionMs", .double(comparison.resolution)),
                ])
            }
            return Data((JSONValue.array(items).serialized() + "\n").utf8)
        }
    }
}
