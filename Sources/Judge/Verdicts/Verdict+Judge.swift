import Foundation
import Histogram
import RunRecord
import Traffic
import VitalSimCore

extension Verdict {
    /// Judges a run against its golden file: every conformance area's checks in the registry's
    /// order (``ConformanceRegistry``), each check stamped with its area, its requirement level and
    /// the requirement ids it verifies; the latency summaries, and what a merge of a sharded run
    /// needs. With `evidence`, the readings each alert cites are judged; with `stored` and what the
    /// run read back, the SUT's stored data. A `partial` verdict (one shard's patients) skips a
    /// budget it has no samples for: the merge judges it; a `nil` digest is left to another shard
    /// (the one running the scenario's first patient). A failed budget beside a stalled harness makes
    /// the verdict an error (``harnessStall(_:histograms:hiccups:allowance:)``).
    package init(
        scenario: String,
        golden: GoldenFile,
        plan: [SentRequest],
        digest: String?,
        result: RunObservation,
        evidence: EvidenceCatalog? = nil,
        stored: StoredDataExpectations? = nil,
        partial: Bool = false,
        registry: ConformanceRegistry = .standard
    ) {
        self.init(scenario: scenario, checks: [])
        let run = JudgedRun(
            scenario: scenario,
            golden: golden,
            plan: plan,
            digest: digest,
            observation: result,
            evidence: evidence,
            stored: stored,
            partial: partial
        )
        alertTraces = Verdict.alertTraces(
            result.alerts.observed,
            plan: plan,
            trace: result.traffic.trace,
            found: result.alerts.requests
        )
        for area in registry.areas {
            var made = area.checks(of: run, into: &self)
            for i in made.indices { made[i].area = area.name }
            checks += made
        }
        let measured = Verdict.histograms(result)
        alerts = result.alerts.observed
        expectedAlerts = golden.alerts
        for (path, histogram) in measured {
            latency[path] = histogram.summary
            histograms[path] = histogram.buckets
        }
        latency[.schedulingLag] = result.traffic.schedulingLag.summary
        keepMergeInputs(result, measured: measured)
        let allowance = result.traffic.network?.allowance ?? 0
        if let stall = Verdict.harnessStall(
            golden.budgets,
            histograms: measured,
            hiccups: result.hiccups,
            allowance: allowance
        ) {
            self = Verdict(scenario: scenario, error: stall, contract: nil)
            return
        }
        setLevels(golden)
        traceRequirements(plan: plan, registry: registry)
    }

    /// Each check's requirement level: the golden file's `levels:` for its kind's aspect, else SHALL.
    mutating func setLevels(_ golden: GoldenFile) {
        for i in checks.indices { checks[i].level = checks[i].kind.aspect.map(golden.level) ?? .shall }
    }

    /// What merging with the other parts of a sharded run needs of the run's measurements.
    mutating func keepMergeInputs(_ result: RunObservation, measured: [LatencyPath: Histogram<UInt64>]) {
        merging.histograms = measured
        merging.histograms[.schedulingLag] = result.traffic.schedulingLag
        merging.alertWait = result.alerts.wait
        if result.alerts.pollResolution > .zero {
            merging.alertPollCycle = result.alerts.pollResolution / .milliseconds(1)
        }
        merging.hiccups = result.hiccups
    }

    /// The measured latency distributions by path (the harness's own lag apart).
    static func histograms(_ result: RunObservation) -> [LatencyPath: Histogram<UInt64>] {
        var out: [LatencyPath: Histogram<UInt64>] = [
            .readingToAck: result.traffic.ackLatency, .readingToAlert: result.alerts.latency,
        ]
        for delivery in result.alerts.push { out[.alert(via: delivery.kind)] = delivery.latency }
        return out
    }
}
