import RunRecord
import VitalSimCore

/// Every alert the SUT lists arrived on each observed push channel (SSE, MQTT, webhook), and none
/// that it does not list: one check per channel (`alerts delivered via CHANNEL`).
package struct PushDeliveryArea: ConformanceArea {
    package var name: String { "push-delivery" }
    package var title: String { "push delivery" }
    package var kinds: Set<CheckKind> { [.delivery] }
    package var observedBy: ObservationSource { .runner }
    package var requirementIDs: [String] { ["alerts.pushed"] }

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] {
        verdict.merging.pushed = run.observation.alerts.push.map {
            PushTally(channel: $0.kind, delivered: $0.delivered.sorted(), repeats: $0.repeats)
        }
        return pushChecks(listed: Set(run.observation.alerts.observed.map(\.alertID)), verdict.merging.pushed)
    }

    /// Judged again over every shard's deliveries against every shard's listed alerts.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        pushChecks(listed: Set(parts.flatMap { $0.alerts.map(\.alertID) }), verdict.merging.pushed)
    }

    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] { requirementIDs }

    /// Push channels are observed only when a run asks for them: coverage counts them apart.
    package func exercised(by plan: ExercisePlan) -> [Check] { [] }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation {
        sources.patient(mentionedIn: check.name)
    }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        AreaRow(self, checks, about: "\(checks.count) channel(s) observed")
    }

    /// Push channels: every alert the API lists (`listed`) arrived on each observed channel, and nothing else.
    package func pushChecks(listed: Set<String>, _ tallies: [PushTally]) -> [Check] {
        tallies.map { p in
            let channel = p.channel.rawValue
            let got = Set(p.delivered)
            let missing = listed.subtracting(got).sorted()
            let extra = got.subtracting(listed).sorted()
            var detail = "\(got.count) alert(s) delivered via \(channel)"
            if p.repeats > 0 { detail += ", \(p.repeats) repeated delivery(ies) (at-least-once)" }
            if !missing.isEmpty {
                detail =
                    "\(missing.count) of \(listed.count) alert(s) never arrived via \(channel), first: \(missing[0])"
            } else if !extra.isEmpty {
                detail =
                    "\(extra.count) alert(s) arrived via \(channel) that the alert API does not list, first: \(extra[0])"
            }
            let finding: Finding? = !missing.isEmpty ? .missed : !extra.isEmpty ? .spurious : nil
            return Check(
                kind: .delivery,
                name: "alerts delivered via \(channel)",
                rule: nil,
                finding: finding,
                detail: detail
            )
        }
    }
}
