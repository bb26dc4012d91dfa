import Foundation
import RunRecord
import VitalSimCore

/// What one shard of a sharded run (`vitalsim run --shard I/N --result FILE`) writes, and
/// `vitalsim merge` reads back: every scenario of the suite with all its patients and the ones
/// this shard ran, the golden file it was judged against, and its verdict over those patients
/// with the tallies and histograms that merging needs.
package struct ShardResult: Sendable, Codable {
    /// The format of this file; a merge refuses any other.
    package static let currentFormat = "vitalsim-shard-result/5"

    package var format = ShardResult.currentFormat
    /// The vitalsim that wrote it: one shard's traffic digest speaks for every shard's traffic
    /// (``Part/digested``), so every shard must run the same one.
    package var version = VitalSimVersion.current
    /// This shard (1-based) of ``shards``.
    package var shard: Int
    package var shards: Int
    /// The suite as given to `vitalsim run` (a scenario file or a folder).
    package var suite: String
    /// The seed overriding each scenario's own (`--seed`), if any.
    package var seed: UInt64?
    /// The moment scenario time 0 was due (`--start-at`, Unix ms), if any.
    package var startAt: Int64?
    /// The SUT's base URL (`--target` or the profile's); nil: the embedded reference SUT.
    package var target: String?
    package var scenarios: [Part]

    /// One scenario of the suite, as this shard saw it.
    package struct Part: Sendable, Codable {
        package var scenario: String
        package var path: String
        /// Every patient of the scenario, in file order.
        package var patients: [String]
        /// The patients this shard ran (empty: none of them is this shard's).
        package var ran: [String]
        package var goldenPath: String
        /// The golden file's text: every shard must have judged against the same one.
        package var golden: String
        package var verdict: VerdictRecord?
        /// Whether this shard computed the whole scenario's traffic digest: the shard running the
        /// scenario's first patient does (its verdict has the digest's check when it differs), the
        /// others do not generate the other patients' traffic. A patient's traffic does not depend
        /// on the others', so one digest of the whole speaks for every shard's part.
        package var digested = false
        /// Every request this shard sent of the scenario, in plan order, with its outcome (absent when
        /// the scenario was not run or could not be judged).
        package var requests: [SentOutcome]?

        package init(
            scenario: String,
            path: String,
            patients: [String],
            ran: [String],
            goldenPath: String,
            golden: String
        ) {
            self.scenario = scenario
            self.path = path
            self.patients = patients
            self.ran = ran
            self.goldenPath = goldenPath
            self.golden = golden
        }
    }

    package init(shard: Int, shards: Int, suite: String, seed: UInt64?, startAt: Int64?, scenarios: [Part]) {
        self.shard = shard
        self.shards = shards
        self.suite = suite
        self.seed = seed
        self.startAt = startAt
        self.scenarios = scenarios
    }

    /// The result as JSON (keys sorted, so that equal results are equal bytes).
    package func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }
}

/// A ``Verdict`` as a shard's result file keeps it (without its chart, which a merge draws again).
package struct VerdictRecord: Sendable, Codable {
    package var checks: [Check]
    package var acknowledged: Int
    package var rejected: Int
    package var failed: Int
    package var httpVersions: [String: Int]
    package var alerts: [ObservedAlert]
    package var alertTraces: [String: [String]]?
    package var contract: SUTContract?
    package var error: String?
    package var merging: MergeInputs

    package init(_ verdict: Verdict) {
        checks = verdict.checks
        (acknowledged, rejected, failed) = (verdict.acknowledged, verdict.rejected, verdict.failed)
        httpVersions = verdict.httpVersions
        alerts = verdict.alerts
        alertTraces = verdict.alertTraces.isEmpty ? nil : verdict.alertTraces
        contract = verdict.contract
        error = verdict.error
        merging = verdict.merging
    }

    /// The verdict of scenario `scenario` (its latency summaries drawn from the histograms again).
    package func verdict(scenario: String) -> Verdict {
        var verdict =
            error.map { Verdict(scenario: scenario, error: $0, contract: contract) }
            ?? Verdict(scenario: scenario, checks: checks)
        (verdict.acknowledged, verdict.rejected, verdict.failed) = (acknowledged, rejected, failed)
        verdict.httpVersions = httpVersions
        verdict.alerts = alerts
        verdict.alertTraces = alertTraces ?? [:]
        verdict.contract = contract
        verdict.merging = merging
        for (path, h) in merging.histograms {
            verdict.latency[path] = h.summary
            if path != .schedulingLag { verdict.histograms[path] = h.buckets }
        }
        return verdict
    }
}
