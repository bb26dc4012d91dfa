import Foundation

/// The measured latency distributions of a run, by scenario and path, as `vitalsim compare` reads
/// them: from a JSON verdict (`vitalsim run --json`, `vitalsim merge --json`) or a shard's result
/// file (`vitalsim run --result`).
package enum LatencyRecord {
    package typealias Distributions = [String: [LatencyPath: LatencyDistribution]]

    /// What a run measured: its distributions, and how finely it knew reading → alert latency.
    package struct Measured: Sendable {
        package var distributions: Distributions = [:]
        /// Each scenario's alert-poll cycle (ms, ``MergeInputs/alertPollCycle``), where the file records one.
        package var pollCycles: [String: Double] = [:]

        /// The longest cycle of the scenarios, or of `scenario` alone.
        package func pollCycle(of scenario: String? = nil) -> Double? {
            scenario.map { pollCycles[$0] } ?? pollCycles.values.max()
        }
    }

    /// The distributions of a file's bytes; an error names the file and what is wrong.
    package static func read(_ data: Data, file: String) throws(BaselineError) -> Measured {
        let top = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        if let format = top?["format"] as? String, format.hasPrefix("vitalsim-shard-result/") {
            guard format == ShardResult.currentFormat,
                let result = try? JSONDecoder().decode(ShardResult.self, from: data)
            else {
                throw BaselineError(
                    file: file,
                    message:
                        "a shard result of format \(format), not \(ShardResult.currentFormat): run both with this VitalSim"
                )
            }
            var out = Measured()
            for part in result.scenarios {
                guard let merging = part.verdict?.merging else { continue }
                out.distributions[part.scenario] = merging.histograms.mapValues(LatencyDistribution.init)
                out.pollCycles[part.scenario] = merging.alertPollCycle
            }
            return out
        }
        let baseline = try Baseline.parse(data, file: file)
        guard !baseline.latency.isEmpty else {
            throw BaselineError(
                file: file,
                message:
                    "holds no latency histograms (a verdict written before VitalSim kept them, or a run that measured nothing)"
            )
        }
        return Measured(distributions: baseline.latency, pollCycles: baseline.pollCycles)
    }

    /// Every scenario's distributions of each path added up.
    package static func pooled(_ distributions: Distributions) -> [LatencyPath: LatencyDistribution] {
        var out: [LatencyPath: LatencyDistribution] = [:]
        for scenario in distributions.keys.sorted() {
            for (path, d) in distributions[scenario] ?? [:] { out[path] = out[path].map { $0.adding(d) } ?? d }
        }
        return out
    }
}
