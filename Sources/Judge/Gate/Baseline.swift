import Foundation

/// The failures of an earlier run (`--baseline verdict.json`, the JSON report of `vitalsim run` or
/// `merge`): a check that failed there is a known failure here; a new one fails the run.
package struct Baseline: Sendable, Equatable {
    /// Stable ids (`SCENARIO: CHECK NAME`) of the checks with a finding in the baseline, excused or not.
    package var failing: Set<String>
    /// Where it was read from.
    package var file: String
    /// The measured latency distributions of each scenario by path (verdicts written before they
    /// were kept have none).
    package var latency: [String: [LatencyPath: LatencyDistribution]] = [:]
    /// Each scenario's alert-poll cycle (ms, the verdict's `alertPollCycleMs`), where the verdict
    /// recorded one: the resolution of its reading → alert latency.
    package var pollCycles: [String: Double] = [:]

    package init(failing: Set<String>, file: String) {
        self.failing = failing
        self.file = file
    }

    /// Reads the failing checks of a JSON verdict; a file that is not one is an error naming it.
    package static func parse(_ data: Data, file: String) throws(BaselineError) -> Baseline {
        guard let top = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let scenarios = top["scenarios"] as? [[String: Any]]
        else {
            throw BaselineError(
                file: file,
                message: "not a VitalSim JSON verdict (expected an object with \"scenarios\"; write one with --json)"
            )
        }
        var baseline = Baseline(failing: [], file: file)
        for (i, scenario) in scenarios.enumerated() {
            guard let name = scenario["scenario"] as? String, let checks = scenario["checks"] as? [[String: Any]]?
            else {
                throw BaselineError(
                    file: file,
                    message: "scenarios[\(i)] has no \"scenario\" name or no \"checks\" list"
                )
            }
            if let histograms = scenario["latencyHistograms"] as? [String: Any] {
                for (key, value) in histograms {
                    guard let path = LatencyPath(rawValue: key), let distribution = LatencyDistribution(json: value)
                    else {
                        throw BaselineError(
                            file: file,
                            message:
                                "scenario \(name): latencyHistograms.\(key) is not a latency path with [[µs, count], …]"
                        )
                    }
                    baseline.latency[name, default: [:]][path] = distribution
                }
            }
            switch scenario["alertPollCycleMs"] {
            case nil, is NSNull: break
            case let cycle as NSNumber where cycle.doubleValue >= 0: baseline.pollCycles[name] = cycle.doubleValue
            default:
                throw BaselineError(
                    file: file,
                    message: "scenario \(name): alertPollCycleMs is not a number of milliseconds"
                )
            }
            for check in checks ?? [] where check["finding"] != nil {
                guard let checkName = check["name"] as? String else {
                    throw BaselineError(file: file, message: "a check of scenario \(name) has no \"name\"")
                }
                baseline.failing.insert("\(name): \(checkName)")
            }
        }
        return baseline
    }
}

/// A `--baseline` file that cannot be used.
package struct BaselineError: Error, CustomStringConvertible, Sendable {
    package var file: String
    package var message: String
    package var description: String { "\(file): \(message)" }
}
