import RunRecord
import VitalSimCore

/// The care team's actions of the scenario's timeline (acknowledge, dismiss, respond), carried out
/// at their times on the alert they are about: each taken by the SUT (`action-refused` otherwise).
/// Observed during the run: its probe pauses the schedule at each action.
package struct CareActionsArea: ConformanceArea {
    package var name: String { "care-actions" }
    package var title: String { "care-team actions" }
    package var kinds: Set<CheckKind> { [.careAction] }
    package var observedBy: ObservationSource { .probe }
    package var requirementIDs: [String] { ["alerts.recipients"] }

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] {
        let outcomes = run.observation.areas[CareActionsObservation.self]?.outcomes ?? []
        let checks = outcomes.map(careActionCheck)
        for (check, outcome) in zip(checks, outcomes) {
            verdict.merging.careActionTimes[check.name] = outcome.action.at
        }
        return checks
    }

    /// Each shard acted for its own patients: their checks, by the actions' times.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        let times = verdict.merging.careActionTimes
        return parts.flatMap { $0.checks(of: self) }.stablySorted { times[$0.name] ?? .max }
    }

    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] {
        (check.rule.map { ["rule." + $0] } ?? []) + requirementIDs
    }

    /// The timeline's actions that stop an escalation (`no-response` sends nothing), judged
    /// against a golden file.
    package func exercised(by plan: ExercisePlan) -> [Check] {
        guard plan.golden != nil else { return [] }
        return plan.scenario.careActions.filter(\.action.stopsEscalation).map {
            plan.check(.careAction, checkName($0, subject: "\($0.rule ?? "alert") patient \($0.patient)"))
        }
    }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation {
        sources.expectedAlert(mentionedIn: check.name) ?? sources.patient(mentionedIn: check.name)
    }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        AreaRow(self, checks, about: "\(checks.filter(\.passed).count) of \(checks.count) action(s) taken")
    }

    /// A care-team action's check name: `mia acknowledges RULE patient P`.
    package func checkName(_ a: CareTeamAction, subject: String) -> String {
        let verb = ["acknowledge": "acknowledges", "dismiss": "dismisses", "respond": "responds to"][a.action.rawValue]
        return "\(a.person) \(verb ?? a.action.rawValue) \(subject)"
    }
    /// One care-team action: taken or not.
    func careActionCheck(_ outcome: CareActionOutcome) -> Check {
        let action = outcome.action
        let subject =
            outcome.alert.map { "\($0.rule) patient \(action.patient)" } ?? (action.rule ?? "alert")
            + " patient \(action.patient)"
        let name = checkName(action, subject: subject)
        guard outcome.alert != nil else {
            let detail =
                "no alert of patient \(action.patient)\(action.rule.map { " (\($0))" } ?? "") had been raised to act on: "
                + (outcome.problem ?? "none observed")
            return Check(kind: .careAction, name: name, rule: action.rule, finding: .actionRefused, detail: detail)
        }
        if outcome.accepted {
            return Check(
                kind: .careAction,
                name: name,
                rule: outcome.alert?.rule,
                finding: nil,
                detail: "answered \(outcome.status ?? 0)"
            )
        }
        let answered = outcome.status.map { "answered \($0)" } ?? "got no answer"
        let detail = "the SUT \(answered)" + (outcome.problem.map { ": \($0)" } ?? "")
        return Check(kind: .careAction, name: name, rule: outcome.alert?.rule, finding: .actionRefused, detail: detail)
    }
}
