import ReferenceEngine
import VitalSimCore

extension ReferenceStore {
    /// The published alert with id `alertID` (nil when unknown or its patient was deleted).
    package func alert(id alertID: String) -> Alert? {
        for (i, a) in published.enumerated() where a.alertID == alertID && !retracted.contains(i) { return a }
        return nil
    }

    /// Whether `person` is the patient or in the patient's care team.
    package func cares(_ person: String, for patient: String) -> Bool {
        person == patient || (careTeams[patient] ?? []).contains { $0.id == person }
    }

    /// Notifications delivered by now (``NotificationPlan``), of `recipient` (everyone's when nil),
    /// of the patients in `patients` (every patient's when nil), in the order of their alerts, then
    /// of their steps.
    package func notifications(recipient: String?, patients: Set<String>?) -> [AlertNotification] {
        var byAlert: [String: [AlertAction]] = [:]
        for action in actions { byAlert[action.alertID, default: []].append(action) }
        var out: [AlertNotification] = []
        for (i, alert) in published.enumerated() where !retracted.contains(i) {
            let patient = alert.patientID
            guard patients?.contains(patient) ?? true else { continue }
            let notified = NotificationPlan.notifications(
                of: alert,
                policy: escalations[patient] ?? EscalationPolicy(),
                careTeam: careTeams[patient] ?? [],
                actions: byAlert[alert.alertID] ?? [],
                now: deviceTimes[patient] ?? alert.raisedAt,
                faults: faults
            )
            out += notified.filter { recipient == nil || $0.recipient == recipient }
        }
        return out
    }

    /// Logs `person`'s `action` on `alert`, stamped with the patient's device time; returns it.
    package func act(
        on alert: Alert,
        by person: String,
        _ action: CareAction
    ) async throws(StorageError) -> AlertAction {
        let logged = AlertAction(
            alertID: alert.alertID,
            patientID: alert.patientID,
            person: person,
            action: action,
            at: max(deviceTimes[alert.patientID] ?? alert.raisedAt, alert.raisedAt)
        )
        try await storage.record(logged)
        actions.append(logged)
        metrics.count("vitalsim_alert_actions_total", ["action": action.rawValue])
        return logged
    }

    /// The actions logged on the alert with id `alertID`, in the order they came.
    package func actions(on alertID: String) -> [AlertAction] { actions.filter { $0.alertID == alertID } }
}
