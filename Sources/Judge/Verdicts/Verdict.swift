import Foundation
import Histogram
import RunRecord
import Traffic
import VitalSimCore

/// One bar of a latency histogram: readings whose latency fell in the bucket.
package struct LatencyBucket: Sendable, Equatable {
    package var label: String
    package var count: UInt64
}

/// One checked expectation: passed, or failed with its classification.
package struct Check: Sendable, Codable {
    /// What the check is about.
    package var kind: CheckKind
    /// A stable name (one JUnit test case each), e.g. `alert hr.tachycardia patient 501`: it holds
    /// no run id, wall-clock or device time, so the same failure has the same name run after run.
    package var name: String
    /// The clinical rule id, when the check is about one.
    package var rule: String?
    /// The name of the conformance area that made the check (``ConformanceArea/name``), nil for
    /// the gate's own (an expired waiver).
    package var area: String?
    package var finding: Finding?
    package var detail: String
    /// A check that could not be carried out (its reason in ``detail``): it passes, and reports
    /// show it as skipped (JUnit `<skipped>`), never as a pass.
    package var skipped = false
    /// SHALL (a finding fails the run) or SHOULD (a finding warns, unless `--strict`).
    package var level = RequirementLevel.shall
    /// The ids of the catalogue's requirements the check verifies (docs/requirements.md), set by the
    /// judge (``ConformanceRegistry/requirements(of:kinds:)``).
    package var requirements: [String] = []
    /// Why a finding does not fail the run (set by ``GatePolicy``): a SHOULD warning, a check the
    /// conformance statement does not claim, a waiver, a failure already in the baseline.
    package var excuse: Excuse?
    /// The line of the golden or scenario file that states what the check expects (set for reports
    /// by ``CheckLocator``).
    package var location: SourceLocation?
    /// For a refusal check: the kind of invalidity refused (structure, terminology, plausibility).
    package var refusalLevel: RefusalLevel?
    /// True when the check fails nothing: no finding, or an excused one.
    package var passed: Bool { finding == nil || excuse != nil }

    package init(
        kind: CheckKind,
        name: String,
        rule: String?,
        finding: Finding?,
        detail: String,
        skipped: Bool = false,
        level: RequirementLevel = .shall
    ) {
        self.kind = kind
        self.name = name
        self.rule = rule
        self.finding = finding
        self.detail = detail
        self.skipped = skipped
        self.level = level
    }

    /// The check's identity across runs within its scenario's: `SCENARIO: NAME`, as waivers and
    /// baselines name it.
    package func id(in scenario: String) -> String { "\(scenario): \(name)" }
}

/// A scenario's verdict: every check, the latency summaries and the delivery counts.
package struct Verdict: Sendable {
    package var scenario: String
    package var checks: [Check]
    /// Readings acknowledged, rejected (with a status), failed (no response).
    package var acknowledged = 0, rejected = 0, failed = 0
    /// Latency summaries per path: `count` and the percentiles of ``reported``, in ms.
    package var latency: [LatencyPath: [String: Double]] = [:]
    /// HTTP requests answered per protocol version (`1.1`, `2`).
    package var httpVersions: [String: Int] = [:]
    /// Latency distributions per path, in logarithmic buckets (for the HTML report).
    package var histograms: [LatencyPath: [LatencyBucket]] = [:]
    /// The alerts the SUT raised and the golden file's expectations (for charts and audits).
    package var alerts: [ObservedAlert] = []
    /// The W3C trace ids of the requests that carried each alert's evidence, by alert id.
    package var alertTraces: [String: [String]] = [:]
    package var expectedAlerts: [GoldenFile.ExpectedAlert] = []
    /// Vital signs and events to draw, when an HTML report was asked for.
    package var chart: ScenarioChart?
    /// What the run saw of the SUT's interface (endpoints and statuses, alerts read and mapped).
    package var contract: SUTContract?
    /// Why the scenario could not be judged (a misconfiguration or an infrastructure failure, exit
    /// 3): its checks are then empty, and reports show it as an error, never as a clinical failure.
    package var error: String?
    /// What merging this verdict with those of the other parts of a sharded run needs beside its checks.
    package var merging = MergeInputs()
    package var passed: Bool { error == nil && checks.allSatisfy(\.passed) }

    /// A scenario that could not be judged: `error` says why, `contract` what the SUT answered meanwhile.
    package init(scenario: String, error: String, contract: SUTContract?) {
        self.scenario = scenario
        checks = []
        self.error = error
        self.contract = contract
    }

    /// A judged scenario's checks.
    package init(scenario: String, checks: [Check]) {
        self.scenario = scenario
        self.checks = checks
    }

    /// The latency paths of the verdict in report order: acknowledgement, alert (API, then each push
    /// channel), scheduling lag.
    package var latencyPaths: [LatencyPath] {
        Set(latency.keys).union([.readingToAck, .readingToAlert, .schedulingLag]).sorted()
    }

    /// ISO-8601 UTC text, with milliseconds, of a Unix time in ms.
    package static func iso(_ ms: Int64) -> String { CivilTime(unixMilliseconds: ms).iso8601(fractional: true) }
}

extension Histogram where Count == UInt64 {
    /// Upper bounds (ms) of the report's buckets; the last bucket is open.
    static var bucketBounds: [Double] { [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] }

    /// The distribution (µs) in the report's logarithmic buckets.
    package var buckets: [LatencyBucket] {
        var out: [LatencyBucket] = []
        var lower: UInt64 = 0
        func label(_ ms: Double) -> String { ms >= 1000 ? "\(Int(ms / 1000))s" : ms < 1 ? "\(ms)" : "\(Int(ms))" }
        for bound in Self.bucketBounds {
            let upper = UInt64(bound * 1000)
            out.append(
                LatencyBucket(
                    label: "≤" + label(bound),
                    count: totalCount == 0 || upper < lower ? 0 : count(within: lower...upper)
                )
            )
            lower = upper + 1
        }
        out.append(
            LatencyBucket(
                label: ">" + label(Self.bucketBounds.last!),
                count: totalCount == 0 ? 0 : count(within: lower...UInt64.max / 2)
            )
        )
        return out
    }

    /// `count` and the reported percentiles (p50, p90, p99, p99.9, max) in ms.
    package var summary: [String: Double] {
        var out: [String: Double] = ["count": Double(totalCount)]
        guard totalCount > 0 else { return out }
        for (name, percentile) in [("p50", 50.0), ("p90", 90), ("p99", 99), ("p99.9", 99.9), ("max", 100)] {
            out[name] = milliseconds(at: percentile)
        }
        return out
    }

    /// The value (µs) at `percentile`, in ms; 100 and above is the maximum.
    package func milliseconds(at percentile: Double) -> Double {
        Double(percentile >= 100 ? max : valueAtPercentile(percentile)) / 1000
    }
}
