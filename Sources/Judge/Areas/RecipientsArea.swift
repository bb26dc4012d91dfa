import RunRecord
import VitalSimCore

/// Who each expected alert reached, read from each person's inbox after the run: every person its
/// patient's escalation policy names, each on time (`missing-recipient`, `missed-escalation`,
/// `late-escalation`, `early-escalation`), no escalation an action stopped
/// (`escalated-despite-ack`), and nobody else (`wrong-recipient`). Observed by its probe after the run.
package struct RecipientsArea: ConformanceArea {
    package var name: String { "recipients" }
    package var title: String { "recipients and escalation" }
    package var kinds: Set<CheckKind> { [.recipients] }
    package var observedBy: ObservationSource { .probe }
    package var requirementIDs: [String] { ["alerts.recipients", "alerts.escalation"] }

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] {
        recipientChecks(run.golden, run.observation)
    }

    /// Each shard judged the recipients of its own patients' alerts: once per name (a check several
    /// shards made alike, `alert recipients` not read, once; a failing one wins), in the golden
    /// file's order of the alerts they are about.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        let subjects = AlertSubjects(golden.alerts.map { ($0.rule, $0.patientID) }).names
        /// The golden alert a recipients check is about (the same subject as the judge names it).
        func alertIndex(_ check: Check) -> Int {
            subjects.firstIndex { subject in
                check.name == "recipients of \(subject)" || check.name.hasSuffix(" of \(subject)")
                    || check.name.hasPrefix("escalates \(subject) to ")
                    || check.name.contains("escalate \(subject) to ")
            } ?? -1
        }
        return [Check].oncePerName(parts.flatMap { $0.checks(of: self) }).stablySorted(by: alertIndex)
    }

    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] {
        let rule = check.rule.map { ["rule." + $0] } ?? []
        let escalation: Set<Finding> = [.missedEscalation, .lateEscalation, .earlyEscalation, .escalatedDespiteAck]
        let escalates =
            check.finding.map(escalation.contains) == true || check.name.hasPrefix("escalates ")
            || check.name.hasPrefix("does not escalate ")
        return escalates ? rule + ["alerts.recipients", "alerts.escalation"] : rule + ["alerts.recipients"]
    }

    /// The recipients, escalations and withheld escalations the golden file states.
    package func exercised(by plan: ExercisePlan) -> [Check] {
        var checks: [Check] = []
        for alert in plan.golden?.alerts ?? [] {
            let subject = "\(alert.rule) patient \(alert.patientID)"
            for recipient in alert.recipients ?? [] {
                checks.append(plan.check(.recipients, checkName(recipient, subject: subject), rule: alert.rule))
            }
            for withheld in alert.withheld {
                checks.append(
                    plan.check(.recipients, "does not escalate \(subject) to \(withheld.person)", rule: alert.rule)
                )
            }
            if alert.recipients != nil {
                checks.append(plan.check(.recipients, "notifies nobody else of \(subject)", rule: alert.rule))
            }
        }
        return checks
    }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation {
        sources.expectedAlert(mentionedIn: check.name) ?? sources.patient(mentionedIn: check.name)
    }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        AreaRow(self, checks, about: "")
    }

    /// The recipients of each expected alert that states them, judged against the notifications
    /// read from each person's inbox,: one check per person the alert
    /// must reach (`missing-recipient`, `missed-escalation`, `late-escalation`, `early-escalation`),
    /// one per escalation an action stopped (`escalated-despite-ack`), one per person notified who
    /// is neither (`wrong-recipient`) or one passing check when there is none. Times are device times; a notification may come `early` before its
    /// deadline and `late` after it (the golden file's tolerances).
    package func recipientChecks(_ golden: GoldenFile, _ result: RunObservation) -> [Check] {
        var checks: [Check] = []
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
        let subjects = AlertSubjects(golden.alerts.map { ($0.rule, $0.patientID) }).names
        for (i, e) in golden.alerts.enumerated() {
            let subject = subjects[i]
            guard let recipients = e.recipients else { continue }
            guard let paired = pairing[i] else {
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
            let alert = observed[paired]
            let inbox = inboxes[alert.alertID] ?? []
            for r in recipients {
                checks.append(recipientCheck(r, of: alert, subject: subject, e, inbox, golden))
            }
            checks += withheldChecks(e, subject: subject, inbox)
        }
        return checks
    }
    /// Whether `r` was notified of `alert` within the tolerances of its deadline.
    func recipientCheck(
        _ r: GoldenFile.ExpectedRecipient,
        of alert: ObservedAlert,
        subject: String,
        _ e: GoldenFile.ExpectedAlert,
        _ inbox: [ObservedNotification],
        _ golden: GoldenFile
    ) -> Check {
        func ts(_ ms: Int64) -> String { CivilTime(unixMilliseconds: ms).iso8601(fractional: true) }
        let deadline = alert.raisedAt + r.after
        let name = checkName(r, subject: subject)
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
    func withheldChecks(
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
    /// A recipient's check name: `notifies P of RULE patient X`, or for a later step `escalates RULE
    /// patient X to P after Ns`.
    package func checkName(_ r: GoldenFile.ExpectedRecipient, subject: String) -> String {
        r.after == 0
            ? "notifies \(r.person) of \(subject)" : "escalates \(subject) to \(r.person) after \(r.after / 1000)s"
    }
}
