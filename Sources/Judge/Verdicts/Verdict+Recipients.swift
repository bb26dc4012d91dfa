import RunRecord
import VitalSimCore

extension Verdict {
    /// The recipients of each expected alert that states them, judged against the notifications
    /// read from each person's inbox, and the care team's actions: one check per person the alert
    /// must reach (`missing-recipient`, `missed-escalation`, `late-escalation`, `early-escalation`),
    /// one per escalation an action stopped (`escalated-despite-ack`), one per person notified who
    /// is neither (`wrong-recipient`) or one passing check when there is none, and one per action
    /// (`action-refused`). Times are device times; a notification may come `early` before its
    /// deadline and `late` after it (the golden file's tolerances).
    package static func recipientChecks(_ golden: GoldenFile, _ result: RunObservation) -> [Check] {
        var checks = (result.areas[CareActionsObservation.self]?.outcomes ?? []).map(careActionCheck)
        guard golden.alerts.contains(where: { $0.recipients != nil }) else { return checks }
        guard let notifications = result.areas[InboxesObservation.self]?.notifications else {
            let detail =
                "not checked: who was notified of each alert was not read ("
                + (result.areas[InboxesObservation.self]?.unread ?? "the SUT profile has no care-team.notifications")
                + ")"
            checks.append(
                Check(
                    kind: .recipients,
                    name: "alert recipients",
                    rule: nil,
                    finding: nil,
                    detail: detail,
                    skipped: true
                )
            )
            return checks
        }
        let observed = result.alerts.observed.filter { $0.unmapped == nil || $0.onlySeverityUnmapped }
        let pairing = AlertMatching.match(golden.alerts, observed)
        var inboxes: [String: [ObservedNotification]] = [:]
        for n in notifications { inboxes[n.alertID, default: []].append(n) }
        let subjects = alertSubjects(golden.alerts.map { ($0.rule, $0.patientID) })
        for (i, e) in golden.alerts.enumerated() {
            let subject = subjects[i]
            guard let recipients = e.recipients else { continue }
            guard let j = pairing[i] else {
                let detail = "not judged: the alert was not raised (its alert check says so)"
                checks.append(
                    Check(
                        kind: .recipients,
                        name: "recipients of \(subject)",
                        rule: e.rule,
                        finding: nil,
                        detail: detail,
                        skipped: true
                    )
                )
                continue
            }
            let alert = observed[j]
            let inbox = inboxes[alert.alertID] ?? []
            for r in recipients {
                checks.append(recipientCheck(r, of: alert, subject: subject, e, inbox, golden))
            }
            checks += withheldChecks(e, subject: subject, inbox)
        }
        return checks
    }

    /// Whether `r` was notified of `alert` within the tolerances of its deadline.
    static func recipientCheck(
        _ r: GoldenFile.ExpectedRecipient,
        of alert: ObservedAlert,
        subject: String,
        _ e: GoldenFile.ExpectedAlert,
        _ inbox: [ObservedNotification],
        _ golden: GoldenFile
    ) -> Check {
        func ts(_ ms: Int64) -> String { CivilTime(unixMilliseconds: ms).iso8601(fractional: true) }
        let deadline = alert.raisedAt + r.after
        let name = recipientName(r, subject: subject)
        let due =
            r.after == 0
            ? "with the alert at \(ts(deadline))" : "at \(ts(deadline)), \(r.after / 1000) s after the alert"
        guard let at = inbox.filter({ $0.recipient == r.person }).map(\.at).min() else {
            let detail =
                r.after == 0
                ? "\(r.person) was never notified; due \(due)"
                : "nobody acted on the alert before its deadline, but \(r.person) was never notified; due \(due)"
            return Check(
                kind: .recipients,
                name: name,
                rule: e.rule,
                finding: r.after == 0 ? .missingRecipient : .missedEscalation,
                detail: detail
            )
        }
        if at > deadline + golden.lateTolerance {
            let detail = "notified at \(ts(at)), \((at - deadline) / 1000) s after the deadline (\(due))"
            return Check(kind: .recipients, name: name, rule: e.rule, finding: .lateEscalation, detail: detail)
        }
        if at < deadline - golden.earlyTolerance {
            let detail = "notified at \(ts(at)), \((deadline - at) / 1000) s before the deadline (\(due))"
            return Check(kind: .recipients, name: name, rule: e.rule, finding: .earlyEscalation, detail: detail)
        }
        return Check(kind: .recipients, name: name, rule: e.rule, finding: nil, detail: "notified at \(ts(at)), \(due)")
    }

    /// Each escalation an action stopped must not come, and nobody else may be notified.
    static func withheldChecks(
        _ e: GoldenFile.ExpectedAlert,
        subject: String,
        _ inbox: [ObservedNotification]
    )
        -> [Check]
    {
        func ts(_ ms: Int64) -> String { CivilTime(unixMilliseconds: ms).iso8601(fractional: true) }
        var checks: [Check] = []
        let done = ["acknowledge": "acknowledged", "dismiss": "dismissed", "respond": "responded to"]
        let acted = e.actions.map { "\($0.person) \(done[$0.action.rawValue] ?? $0.action.rawValue) it" }
            .joined(separator: " and ")
        for w in e.withheld {
            let name = "does not escalate \(subject) to \(w.person)"
            guard let at = inbox.filter({ $0.recipient == w.person }).map(\.at).min() else {
                let detail = "not notified, as \(acted) before the deadline"
                checks.append(Check(kind: .recipients, name: name, rule: e.rule, finding: nil, detail: detail))
                continue
            }
            let detail = "\(w.person) was notified at \(ts(at)) although \(acted) before the deadline"
            checks.append(
                Check(kind: .recipients, name: name, rule: e.rule, finding: .escalatedDespiteAck, detail: detail)
            )
        }
        let named = Set((e.recipients ?? []).map(\.person) + e.withheld.map(\.person))
        var strangers: [String] = []
        for n in inbox where !named.contains(n.recipient) && !strangers.contains(n.recipient) {
            strangers.append(n.recipient)
        }
        guard !strangers.isEmpty else {
            let detail = "only the people the patient's escalation policy names were notified"
            return checks + [
                Check(
                    kind: .recipients,
                    name: "notifies nobody else of \(subject)",
                    rule: e.rule,
                    finding: nil,
                    detail: detail
                )
            ]
        }
        for person in strangers {
            let at = inbox.filter { $0.recipient == person }.map(\.at).min() ?? 0
            let detail = "\(person) was notified at \(ts(at)), but the patient's escalation policy does not name them"
            checks.append(
                Check(
                    kind: .recipients,
                    name: "does not notify \(person) of \(subject)",
                    rule: e.rule,
                    finding: .wrongRecipient,
                    detail: detail
                )
            )
        }
        return checks
    }

    /// What the care team's checks call each expected alert, in order: `RULE patient P`, and
    /// `RULE patient P #N` for the Nth expectation of the same rule and patient.
    package static func alertSubjects(_ alerts: [(rule: String, patient: String)]) -> [String] {
        var occurrences: [String: Int] = [:]
        return alerts.map { alert in
            let subject = "\(alert.rule) patient \(alert.patient)"
            occurrences[subject, default: 0] += 1
            let n = occurrences[subject] ?? 1
            return n > 1 ? subject + " #\(n)" : subject
        }
    }

    /// A recipient's check name: `notifies P of RULE patient X`, or for a later step `escalates RULE
    /// patient X to P after Ns`.
    package static func recipientName(_ r: GoldenFile.ExpectedRecipient, subject: String) -> String {
        r.after == 0
            ? "notifies \(r.person) of \(subject)" : "escalates \(subject) to \(r.person) after \(r.after / 1000)s"
    }

    /// A care-team action's check name: `mia acknowledges RULE patient P`.
    package static func careActionName(_ a: CareTeamAction, subject: String) -> String {
        let verb = ["acknowledge": "acknowledges", "dismiss": "dismisses", "respond": "responds to"][a.action.rawValue]
        return "\(a.person) \(verb ?? a.action.rawValue) \(subject)"
    }

    /// One care-team action: taken or not.
    static func careActionCheck(_ outcome: CareActionOutcome) -> Check {
        let a = outcome.action
        let subject =
            outcome.alert.map { "\($0.rule) patient \(a.patient)" } ?? (a.rule ?? "alert") + " patient \(a.patient)"
        let name = careActionName(a, subject: subject)
        guard outcome.alert != nil else {
            let detail =
                "no alert of patient \(a.patient)\(a.rule.map { " (\($0))" } ?? "") had been raised to act on: "
                + (outcome.problem ?? "none observed")
            return Check(kind: .careAction, name: name, rule: a.rule, finding: .actionRefused, detail: detail)
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
