import Foundation
import Histogram
import RunRecord
import VitalSimCore

/// The golden file's latency budgets: each percentile of reading → acknowledgement and reading →
/// alert (on the alert list and each push channel) within its limit, the network's allowance added.
/// Judged again over every shard's merged histograms.
package struct BudgetsArea: ConformanceArea {
    package var name: String { "budgets" }
    package var title: String { "latency budgets" }
    package var kinds: Set<CheckKind> { [.budget] }
    package var observedBy: ObservationSource { .runner }
    package var requirementIDs: [String] { ["ingest.ack-latency", "alerts.latency", "alerts.pushed"] }

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] {
        budgetChecks(
            run.golden.budgets,
            histograms: Verdict.histograms(run.observation),
            partial: run.partial,
            alertsMissed: verdict.checks.contains { $0.kind == .alert && $0.finding == .missed },
            network: run.observation.traffic.network
        )
    }

    /// Judged again on the shards' histograms added up.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        var measured = verdict.merging.histograms
        measured[.schedulingLag] = nil
        return budgetChecks(
            golden.budgets,
            histograms: measured,
            alertsMissed: verdict.checks.contains { $0.kind == .alert && $0.finding == .missed }
        )
    }

    /// `budget PATH pNN ≤ LIMIT ms`: acknowledgement or alert latency.
    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] {
        let path = check.name.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        guard let latency = LatencyPath(rawValue: path) else { return ["ingest.ack-latency"] }
        switch latency {
        case .readingToAck, .schedulingLag: return ["ingest.ack-latency"]
        case .readingToAlert: return ["alerts.latency"]
        case .readingToAlertMQTT, .readingToAlertSSE, .readingToAlertWebhook:
            return ["alerts.latency", "alerts.pushed"]
        }
    }

    package func exercised(by plan: ExercisePlan) -> [Check] {
        (plan.golden?.budgets ?? []).flatMap { budget in
            budget.limits.map { percentile, limit in
                plan.check(
                    .budget,
                    "budget \(budget.path.rawValue) \(GoldenFile.percentileName(percentile)) ≤ \(GoldenFile.ms(limit)) ms"
                )
            }
        }
    }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation {
        sources.budget(path: check.name.split(separator: " ").dropFirst().first.map(String.init) ?? "")
    }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        AreaRow(self, checks, about: "")
    }

    /// Latency budgets; a budget with no samples fails, unless it is a reading → alert path and
    /// `alertsMissed` (expected alerts already reported `missed`): nothing came to be measured, and
    /// that is the missed alerts' failure, not a second one. Under a `network`, each budget allows
    /// its allowance more (the check keeps its name, so waivers and baselines still match it).
    package func budgetChecks(
        _ budgets: [GoldenFile.Budget],
        histograms: [LatencyPath: Histogram<UInt64>],
        partial: Bool = false,
        alertsMissed: Bool = false,
        network: (summary: String, allowance: Double)? = nil
    ) -> [Check] {
        var checks: [Check] = []
        for b in budgets {
            for (p, limit) in b.limits {
                let name = "budget \(b.path.rawValue) \(GoldenFile.percentileName(p)) ≤ \(GoldenFile.ms(limit)) ms"
                guard let histogram = histograms[b.path], histogram.totalCount > 0 else {
                    if partial {
                        let detail = "no samples among this shard's patients: vitalsim merge judges it over every shard"
                        checks.append(
                            Check(kind: .budget, name: name, rule: nil, finding: nil, detail: detail, skipped: true)
                        )
                        continue
                    }
                    if alertsMissed, b.path != .readingToAck {
                        let detail =
                            "no samples for \(b.path.rawValue): no alert came to be measured; the expected alerts' own checks say why (missed, or not-applicable to a SUT that does not claim their rules)"
                        checks.append(
                            Check(kind: .budget, name: name, rule: nil, finding: nil, detail: detail, skipped: true)
                        )
                        continue
                    }
                    let hint =
                        b.path.channel.map { " (observe the \($0.rawValue) push channel to measure it)" } ?? ""
                    let detail = "no samples for \(b.path.rawValue): a budget with nothing measured cannot pass" + hint
                    checks.append(Check(kind: .budget, name: name, rule: nil, finding: .budgetExceeded, detail: detail))
                    continue
                }
                let value = histogram.milliseconds(at: p)
                var detail = String(format: "%.2f ms over %d samples", value, histogram.totalCount)
                if let network {
                    detail += "; \(Int((limit + network.allowance).rounded())) ms allowed under \(network.summary)"
                }
                checks.append(
                    Check(
                        kind: .budget,
                        name: name,
                        rule: nil,
                        finding: value <= limit + (network?.allowance ?? 0) ? nil : .budgetExceeded,
                        detail: detail
                    )
                )
            }
        }
        return checks
    }
}
