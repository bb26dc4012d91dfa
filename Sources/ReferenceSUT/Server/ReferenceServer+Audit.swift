import Foundation
import HTTPTypes
import Hummingbird
import ReferenceEngine
import VitalSimCore

/// The audit trail (the IoT-AI SRS, Non-Functional Requirements, Security & Privacy: HIPAA audit
/// features): each granted read or change of a patient's data by a person or an administrator is
/// recorded (``ReferenceStore/audit(_:_:what:by:at:)``), and `GET /fhir/AuditEvent` lets an
/// administrator read it back as FHIR `AuditEvent`s. The reader's and devices' credentials name no
/// person, so their requests are not recorded.
extension ReferenceServer {
    static func auditRoutes(_ router: Router<BasicRequestContext>, _ context: ServerContext) {
        router.get("fhir/AuditEvent") { request, _ in await auditEvents(request, context) }
    }

    /// The person (id and role) or administrator who made `request`, or nil for anyone else.
    static func auditAgent(_ request: Request, _ context: ServerContext) -> (id: String?, role: String)? {
        switch principal(request, context, required: "a person's") {
        case .success(.person(let person)?): (person.id, person.role.rawValue)
        case .success(.admin?): (nil, "admin")
        default: nil
        }
    }

    /// Records a granted `action` on `what` of `patients` when a person or administrator made
    /// `request` (each patient once, in order of first appearance).
    static func audited(
        _ request: Request,
        _ context: ServerContext,
        _ action: AuditRecord.Action,
        _ patients: [String],
        what: String
    ) async {
        guard let agent = auditAgent(request, context), !patients.isEmpty else { return }
        var seen: Set<String> = []
        let distinct = patients.filter { seen.insert($0).inserted }
        await context.store.audit(action, distinct, what: what, by: agent, at: context.auditClock())
    }

    /// `GET /fhir/AuditEvent[?patient=ID][&agent=ID]` (an administrator's credential, or an open
    /// API): a `searchset` Bundle of the audit trail's `AuditEvent`s (``FHIRAuditEvent``), oldest
    /// first; `agent` is a person's id. Everyone else: 403, but for people under the
    /// `cross-patient-read` fault, who read it all.
    static func auditEvents(_ request: Request, _ context: ServerContext) async -> Response {
        let leaks = context.faults.crossPatientRead && auditAgent(request, context)?.id != nil
        if !leaks,
            let refusal = authorize(
                request,
                context,
                admins: true,
                readers: false,
                required: "an admin",
                refused: "read the audit trail"
            )
        {
            return refusal
        }
        let query = request.uri.queryParameters
        let patient = query.get("patient").map { $0.hasPrefix("Patient/") ? String($0.dropFirst(8)) : $0 }
        if let patient, let invalid = invalidPatientID(patient) { return invalid }
        let records = await context.store.auditTrail(patient: patient, agent: query.get("agent"))
        return json(.ok, FHIRAuditEvent.bundle(records))
    }
}
