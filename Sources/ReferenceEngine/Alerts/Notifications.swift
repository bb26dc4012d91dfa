import VitalSimCore

/// An alert delivered to one person (`GET /api/v1/notifications`): who, which alert, which step of
/// the patient's escalation policy, and when (device time).
package struct AlertNotification: Sendable, Equatable {
    package var alertID: String
    package var patientID: String
    package var rule: String
    package var severity: Severity
    /// The person notified: the patient or a member of the patient's care team.
    package var recipient: String
    /// The policy's step (0: when the alert was raised).
    package var step: Int
    /// Device time of the notification, Unix ms: the alert's time plus the step's `after`.
    package var notifiedAt: Int64

    package init(
        alertID: String,
        patientID: String,
        rule: String,
        severity: Severity,
        recipient: String,
        step: Int,
        notifiedAt: Int64
    ) {
        self.alertID = alertID
        self.patientID = patientID
        self.rule = rule
        self.severity = severity
        self.recipient = recipient
        self.step = step
        self.notifiedAt = notifiedAt
    }

    /// The contract's JSON.
    package var json: JSONValue {
        .object([
            ("alertId", .string(alertID)), ("patientId", .string(patientID)), ("rule", .string(rule)),
            ("severity", .string(severity.rawValue)), ("recipient", .string(recipient)), ("step", .int(Int64(step))),
            ("notifiedAt", .string(CivilTime(unixMilliseconds: notifiedAt).iso8601(fractional: true))),
        ])
    }
}

/// A person's action on an alert, as the SUT logs it (`POST /api/v1/alerts/{id}/actions`).
package struct AlertAction: Sendable, Equatable {
    package var alertID: String
    package var patientID: String
    package var person: String
    package var action: CareAction
    /// Device time of the action, Unix ms: the patient's latest reading's time when it came.
    package var at: Int64

    package init(alertID: String, patientID: String, person: String, action: CareAction, at: Int64) {
        self.alertID = alertID
        self.patientID = patientID
        self.person = person
        self.action = action
        self.at = at
    }

    /// The contract's JSON.
    package var json: JSONValue {
        .object([
            ("alertId", .string(alertID)), ("patientId", .string(patientID)), ("person", .string(person)),
            ("action", .string(action.rawValue)),
            ("at", .string(CivilTime(unixMilliseconds: at).iso8601(fractional: true))),
        ])
    }
}

/// Who has been notified of an alert by now: the first step of the patient's escalation policy
/// for the alert's severity when it is raised, each later step once its time has come on the
/// patient's device clock, unless someone acted on the alert (acknowledged, dismissed, responded)
/// before that time. The SUT has no clock but device time, so a step is delivered when a reading
/// of the patient shows its time has passed; what has been delivered follows from the alerts, the
/// policy, the actions and the device time, and is the same after a restart.
package enum NotificationPlan {
    /// The notifications of `alert`.
    /// - Parameters:
    ///   - policy: the patient's escalation policy.
    ///   - careTeam: the patient's care team (the `everyone-notified` fault notifies all of it).
    ///   - actions: the actions on the alert, in the order they came.
    ///   - now: the patient's device time (its latest reading's time), Unix ms.
    package static func notifications(
        of alert: Alert,
        policy: EscalationPolicy,
        careTeam: [CareTeamMember],
        actions: [AlertAction],
        now: Int64,
        faults: FaultPlan
    ) -> [AlertNotification] {
        func notification(_ person: String, _ step: Int, _ at: Int64) -> AlertNotification {
            AlertNotification(
                alertID: alert.alertID,
                patientID: alert.patientID,
                rule: alert.rule,
                severity: alert.severity,
                recipient: person,
                step: step,
                notifiedAt: at
            )
        }
        if faults.everyoneNotified {
            return ([alert.patientID] + careTeam.map(\.id)).map { notification($0, 0, alert.raisedAt) }
        }
        let stopped = actions.filter(\.action.stopsEscalation).map(\.at).min()
        var out: [AlertNotification] = []
        for (k, step) in policy.steps(for: alert.severity).enumerated() {
            let due = alert.raisedAt + step.after
            if k > 0, faults.noEscalation || due > now || (stopped.map { $0 < due } ?? false) { break }
            out += step.notify.map { notification($0, k, due) }
        }
        return out
    }
}
