import Traffic
import VitalSimCore

/// Who each alert must reach, derived from the scenario alone (independently of the reference
/// SUT's `NotificationPlan`): the first step of the patient's escalation policy for the alert's
/// severity when it is raised; each later step at its deadline, unless a care-team action on the
/// alert came strictly before it (then the step is withheld: it must not come) or the patient's
/// traffic ends before it (then it is not judged: a SUT whose only clock is device time cannot
/// reach it). A timeline action is on the patient's latest alert (of its `rule`, when given) raised
/// at or before the action; `no-response` stops nothing and is not sent.
package enum RecipientOracle {
    /// One alert as the oracle, a run or a golden file has it.
    package struct Alert: Sendable, Equatable {
        package var patientID: String
        package var rule: String
        package var severity: Severity
        /// Device time, Unix ms.
        package var raisedAt: Int64

        package init(patientID: String, rule: String, severity: Severity, raisedAt: Int64) {
            self.patientID = patientID
            self.rule = rule
            self.severity = severity
            self.raisedAt = raisedAt
        }
    }

    /// What an alert must and must not do: nil `recipients` when the patient has no steps for its
    /// severity (not judged).
    package struct Expectation: Sendable, Equatable {
        package var recipients: [GoldenFile.ExpectedRecipient]?
        package var withheld: [GoldenFile.ExpectedRecipient] = []
        package var actions: [GoldenFile.ExpectedAction] = []
    }

    /// The expectation of each of `alerts` (in their order).
    /// - Parameter lastDeviceTime: each patient's latest reading (Unix ms): later steps are not judged.
    package static func expectations(
        _ alerts: [Alert],
        scenario: Scenario,
        lastDeviceTime: [String: Int64]
    ) -> [Expectation] {
        let targets = actionTargets(alerts, scenario: scenario)
        return alerts.enumerated().map { i, alert in
            let steps =
                scenario.patients.first { $0.id == alert.patientID }?.escalation.steps(for: alert.severity) ?? []
            let acted = targets.filter { $0.alert == i }.map(\.action)
            var expectation = Expectation(
                recipients: nil,
                actions: acted.map { GoldenFile.ExpectedAction(person: $0.person, action: $0.action) }
            )
            guard !steps.isEmpty else { return expectation }
            let stopped = acted.filter(\.action.stopsEscalation).map { scenario.startUnixMilliseconds + $0.at }.min()
            var recipients: [GoldenFile.ExpectedRecipient] = []
            for (k, step) in steps.enumerated() {
                let due = alert.raisedAt + step.after
                let people = step.notify.map { GoldenFile.ExpectedRecipient(person: $0, after: step.after) }
                if k == 0 {
                    recipients += people
                } else if let stopped, stopped < due {
                    expectation.withheld += people
                } else if due <= lastDeviceTime[alert.patientID] ?? .min {
                    recipients += people
                }
            }
            expectation.recipients = recipients
            return expectation
        }
    }

    /// Each sent action (all but `no-response`) with the index of the alert it is on; an action
    /// with no alert to act on is left out.
    package static func actionTargets(_ alerts: [Alert], scenario: Scenario) -> [(action: CareTeamAction, alert: Int)] {
        scenario.careActions.compactMap { action in
            guard action.action.stopsEscalation else { return nil }
            let at = scenario.startUnixMilliseconds + action.at
            let candidates = alerts.indices.filter { i in
                alerts[i].patientID == action.patient && alerts[i].raisedAt <= at
                    && (action.rule == nil || alerts[i].rule == action.rule)
            }
            return candidates.max { alerts[$0].raisedAt < alerts[$1].raisedAt }.map { (action, $0) }
        }
    }

    /// Each patient's latest reading's device time (Unix ms), as the scenario generates them; empty
    /// when no patient has an escalation policy (nothing to judge by it).
    package static func lastDeviceTimes(_ scenario: Scenario, seed: UInt64? = nil) -> [String: Int64] {
        guard scenario.patients.contains(where: { !$0.escalation.isEmpty }) else { return [:] }
        var last: [String: Int64] = [:]
        var run = ScenarioRun(scenario: scenario, seed: seed)
        while let (reading, _) = run.next() {
            // What a SUT stores: not a corrupted payload, nor a cuff's intermediate pressures.
            guard reading.delivery.corruption == nil, reading.kind != .cuffPressure else { continue }
            last[reading.patientID] = max(
                last[reading.patientID] ?? .min,
                scenario.startUnixMilliseconds + reading.deviceTime
            )
        }
        return last
    }

    /// Where a golden file's recipients, withheld escalations and actions disagree with the oracle's,
    /// for the alerts paired by patient, rule and window (as ``Oracle/compare(_:_:)`` pairs them).
    package static func compare(
        _ derived: [OracleAlert],
        _ golden: GoldenFile,
        scenario: Scenario,
        lastDeviceTime: [String: Int64]
    ) -> [String] {
        let alerts = derived.map {
            Alert(patientID: $0.patientID, rule: $0.rule, severity: $0.severity, raisedAt: $0.raisedAt)
        }
        let expected = expectations(alerts, scenario: scenario, lastDeviceTime: lastDeviceTime)
        var unused = Array(golden.alerts.indices)
        var out: [String] = []
        for (a, e) in zip(alerts, expected) {
            guard
                let position = unused.firstIndex(where: {
                    let expectation = golden.alerts[$0]
                    return expectation.patientID == a.patientID && expectation.rule == a.rule
                        && (expectation.from...expectation.to).contains(a.raisedAt)
                })
            else { continue }
            let expectation = golden.alerts[unused.remove(at: position)]
            let subject = "\(a.rule) patient \(a.patientID)"
            if expectation.recipients.map(Set.init) != e.recipients.map(Set.init) {
                out.append(
                    "\(subject): golden recipients \(describe(expectation.recipients)), oracle \(describe(e.recipients))"
                )
            }
            if Set(expectation.withheld) != Set(e.withheld) {
                out.append(
                    "\(subject): golden withheld \(describe(expectation.withheld)), oracle \(describe(e.withheld))"
                )
            }
            if expectation.actions != e.actions {
                let text = { (x: [GoldenFile.ExpectedAction]) in x.map { "\($0.person) \($0.action.rawValue)" } }
                out.append("\(subject): golden actions \(text(expectation.actions)), oracle \(text(e.actions))")
            }
        }
        return out
    }

    static func describe(_ reading: [GoldenFile.ExpectedRecipient]?) -> String {
        guard let reading else { return "not stated" }
        return "[" + reading.map { "\($0.person) after \($0.after / 1000)s" }.joined(separator: ", ") + "]"
    }
}
