import ReferenceEngine
import VitalSimCore

extension ReferenceStore {
    /// Records that `agent` (a person's id, nil for an administrator) with `role` did `action` on
    /// `what` of each of `patients` at `at` (the SUT's wall clock, Unix ms): one entry per patient,
    /// in patient order. Nothing is recorded under the `no-audit` fault. An entry storage could not
    /// keep stays in memory and is counted (`vitalsim_audit_events_total{outcome="failed"}`): the
    /// access happened either way.
    package func audit(
        _ action: AuditRecord.Action,
        _ patients: [String],
        what: String,
        by agent: (id: String?, role: String),
        at: Int64
    ) async {
        guard !faults.noAudit else { return }
        for patient in patients {
            let record = AuditRecord(
                sequence: (auditTrail.last?.sequence ?? 0) + 1,
                agent: agent.id,
                role: agent.role,
                action: action,
                patient: patient,
                what: what,
                recorded: at
            )
            auditTrail.append(record)
            let stored = (try? await storage.record(record)) != nil
            metrics.count(
                "vitalsim_audit_events_total",
                ["action": action.rawValue, "outcome": stored ? "stored" : "failed"]
            )
        }
    }

    /// The audit trail of `patient` (everyone's when nil), by `agent` when given, oldest first.
    package func auditTrail(patient: String?, agent: String?) -> [AuditRecord] {
        auditTrail.filter { (patient == nil || $0.patient == patient) && (agent == nil || $0.agent == agent) }
    }
}
