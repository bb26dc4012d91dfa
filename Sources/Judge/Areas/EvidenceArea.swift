import Foundation
import RunRecord
import VitalSimCore

/// The readings each alert cites as its evidence: its patient's, sent and accepted, and at least one
/// its rule reads inside its window (``EvidenceScope``). One check per rule and patient whose alerts
/// cite wrong evidence, or one passing `alert evidence`; skipped when the SUT's alerts cite nothing
/// (a profile that maps no `evidence` field).
package struct EvidenceArea: ConformanceArea {
    package var name: String { "evidence" }
    package var title: String { "alert evidence" }
    package var kinds: Set<CheckKind> { [.evidence] }
    package var observedBy: ObservationSource { .runner }
    package var requirementIDs: [String] { ["alerts.evidence"] }

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] {
        guard let catalog = run.evidence else { return [] }
        let alerts = run.observation.alerts
        if alerts.citeEvidence { return evidenceChecks(alerts.observed, catalog: catalog) }
        guard !alerts.observed.isEmpty else { return [] }
        let detail = "not checked: the SUT profile maps no `evidence` field, so its alerts cite no readings"
        return [Check(kind: .evidence, name: "alert evidence", rule: nil, finding: nil, detail: detail, skipped: true)]
    }

    /// The shards' failing checks in the order of their alerts' times; else one passing check over
    /// every alert, or a skipped one when no shard could check its alerts' evidence.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        let all = parts.flatMap { $0.checks(of: self) }
        let failed = all.filter { !$0.passed }
        if !failed.isEmpty { return failed.stablySorted { $0.name.components(separatedBy: " at ").last ?? "" } }
        if all.contains(where: { !$0.skipped }) {
            let alerts = parts.reduce(0) { $0 + $1.alerts.count }
            let detail =
                "each of the \(alerts) alert(s) cites readings of its patient, accepted, inside its rule's window"
            return [Check(kind: .evidence, name: "alert evidence", rule: nil, finding: nil, detail: detail)]
        }
        return all.first.map { [$0] } ?? []
    }

    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] {
        (check.rule.map { ["rule." + $0] } ?? []) + requirementIDs
    }

    package func exercised(by plan: ExercisePlan) -> [Check] {
        (plan.golden?.alerts ?? []).isEmpty ? [] : [plan.check(.evidence, "alert evidence")]
    }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation {
        sources.expectedAlert(mentionedIn: check.name) ?? sources.patient(mentionedIn: check.name)
    }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        AreaRow(self, checks, about: "")
    }
    /// At most this many problems are spelled out per alert.
    let evidenceProblemsShown = 3

    /// The evidence of every listed alert: each cited reading must be one the harness sent, of the
    /// alert's patient, that the SUT accepted; and for a rule the oracle knows, at least one must be a
    /// reading of a signal the rule reads inside its window (``EvidenceScope``). One check per alert
    /// that fails (`wrong-evidence`), or one passing check.
    package func evidenceChecks(_ alerts: [ObservedAlert], catalog: EvidenceCatalog) -> [Check] {
        guard !alerts.isEmpty else { return [] }
        var checks: [Check] = []
        // One check per rule and patient (not per alert, nor named by time), so the same failure keeps
        // its name run after run; its detail counts the alerts and spells out the first.
        var groups: [(name: String, rule: String, alerts: [(ObservedAlert, [String])])] = []
        for a in alerts.sorted(by: { ($0.raisedAt, $0.alertID) < ($1.raisedAt, $1.alertID) }) {
            let problems = evidenceProblems(a, catalog)
            guard !problems.isEmpty else { continue }
            let name = "evidence of alert \(a.rule) patient \(a.patientID)"
            if let position = groups.firstIndex(where: { $0.name == name }) {
                groups[position].alerts.append((a, problems))
            } else {
                groups.append((name, a.rule, [(a, problems)]))
            }
        }
        for group in groups {
            let (first, problems) = group.alerts[0]
            var detail =
                "alert \(first.alertID) at \(Verdict.iso(first.raisedAt)): "
                + problems.prefix(evidenceProblemsShown).joined(separator: "; ")
            if problems.count > evidenceProblemsShown {
                detail += "; and \(problems.count - evidenceProblemsShown) more"
            }
            if group.alerts.count > 1 {
                let last = group.alerts[group.alerts.count - 1].0
                detail =
                    "\(group.alerts.count) alerts with wrong evidence, last: alert \(last.alertID) at \(Verdict.iso(last.raisedAt)); first: "
                    + detail
            }
            checks.append(
                Check(kind: .evidence, name: group.name, rule: group.rule, finding: .wrongEvidence, detail: detail)
            )
        }
        if checks.isEmpty {
            let detail =
                "each of the \(alerts.count) alert(s) cites readings of its patient, accepted, inside its rule's window"
            checks.append(Check(kind: .evidence, name: "alert evidence", rule: nil, finding: nil, detail: detail))
        }
        return checks
    }

    /// What is wrong with one alert's evidence (empty when nothing).
    func evidenceProblems(_ observedAlert: ObservedAlert, _ catalog: EvidenceCatalog) -> [String] {
        guard !observedAlert.evidence.isEmpty else { return ["it cites no evidence readings"] }
        var problems: [String] = []
        var covered = false
        let scope = Oracle.evidenceScope(rule: observedAlert.rule)
        for id in observedAlert.evidence {
            if let reading = catalog.readings[id] {
                if let problem = problem(of: reading, id, observedAlert) {
                    problems.append(problem)
                } else if scope?.covers(signals: reading.signals, at: reading.time, raisedAt: observedAlert.raisedAt)
                    ?? true
                {
                    covered = true
                }
            } else if let device = EvidenceCatalog.device(of: id), catalog.linkedDevices.contains(device) {
                // Named by the SUT's own BLE gateway: only the patient can be checked.
                if device.hasPrefix(observedAlert.patientID + "/") {
                    covered = true
                } else {
                    problems.append("\(id) is a device of another patient")
                }
            } else if catalog.selfNamingPatients.contains(observedAlert.patientID) {
                // Possibly a reading the SUT named itself (VitalEdge payloads carry no id): unverifiable.
                covered = true
            } else {
                problems.append("\(id) is not a reading the harness sent")
            }
        }
        if !covered, let scope, problems.count < observedAlert.evidence.count {
            problems.append(uncoveredProblem(scope, observedAlert, catalog))
        }
        return problems
    }

    /// Why a cited reading the harness generated cannot be evidence of `a`, if it cannot.
    func problem(
        of evidenceCatalog: EvidenceCatalog.Entry,
        _ id: String,
        _ observedAlert: ObservedAlert
    ) -> String? {
        if evidenceCatalog.patientID != observedAlert.patientID {
            return "\(id) is a reading of patient \(evidenceCatalog.patientID)"
        }
        guard let status = evidenceCatalog.status else {
            return "\(id) never reached the SUT (not sent, or no final answer)"
        }
        if !(200..<300).contains(status) { return "\(id) was rejected with \(status)" }
        return nil
    }

    /// None of the acceptable cited readings is one the rule reads inside its window; names the first
    /// cited reading the harness knows, with what it measures and when.
    func uncoveredProblem(
        _ scope: EvidenceScope,
        _ observedAlert: ObservedAlert,
        _ catalog: EvidenceCatalog
    ) -> String {
        let what = scope.signals.map { $0.map(\.rawValue).sorted().joined(separator: " or ") + " reading" } ?? "reading"
        let when =
            scope.lookback == 0
            ? "at \(Verdict.iso(observedAlert.raisedAt))"
            : "from \(Verdict.iso(observedAlert.raisedAt - scope.lookback))…\(Verdict.iso(observedAlert.raisedAt)), the rule's window"
        var text = "none of its evidence is a \(what) \(when)"
        if let id = observedAlert.evidence.first(where: { catalog.readings[$0] != nil }),
            let reading = catalog.readings[id]
        {
            let measures =
                reading.signals.isEmpty
                ? "no signal a rule reads" : reading.signals.map(\.rawValue).sorted().joined(separator: ", ")
            text += " (it cites \(id): \(measures) at \(Verdict.iso(reading.time)))"
        }
        return text
    }
}
