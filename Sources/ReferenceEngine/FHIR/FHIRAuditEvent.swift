import VitalSimCore

/// One entry of the reference SUT's audit trail (the IoT-AI SRS, Non-Functional Requirements,
/// Security & Privacy: HIPAA audit): who (a person, or an administrator) read or changed which
/// patient's data, what, and when by the SUT's wall clock. Served as FHIR R4 `AuditEvent`s.
package struct AuditRecord: Sendable, Equatable {
    /// FHIR's `AuditEvent.action`: create, read, update, delete.
    package enum Action: String, Sendable, CaseIterable {
        case create = "C"
        case read = "R"
        case update = "U"
        case delete = "D"

        /// The FHIR RESTful interaction of the action (`AuditEvent.subtype`).
        var interaction: String {
            switch self {
            case .create: "create"
            case .read: "read"
            case .update: "update"
            case .delete: "delete"
            }
        }
    }

    /// The order in which it was recorded (its resource id).
    package var sequence: Int
    /// The person's id, or nil for an administrator's credential (which names nobody).
    package var agent: String?
    /// `patient`, `caregiver`, `clinician` or `admin`.
    package var role: String
    package var action: Action
    /// The patient whose data it was.
    package var patient: String
    /// What was read or changed: `readings`, `alerts`, `notifications`, `alert 12`, `patient`.
    package var what: String
    /// When, Unix ms (the SUT's wall clock).
    package var recorded: Int64

    package init(
        sequence: Int,
        agent: String?,
        role: String,
        action: Action,
        patient: String,
        what: String,
        recorded: Int64
    ) {
        self.sequence = sequence
        self.agent = agent
        self.role = role
        self.action = action
        self.patient = patient
        self.what = what
        self.recorded = recorded
    }
}

/// The audit trail as FHIR R4 `AuditEvent`s (`GET /fhir/AuditEvent`): type `rest`, the interaction
/// as subtype, `action` C/R/U/D, `recorded`, outcome 0 (only granted requests are recorded), the
/// agent as a reference by role (`Patient/`, `RelatedPerson/` for a caregiver, `Practitioner/` for a
/// clinician; an administrator by display only), the patient as the entity, in a `searchset` Bundle.
package enum FHIRAuditEvent {
    /// FHIR's audit event type and RESTful interaction code systems (identifiers, not addresses).
    static let typeSystem = "http://terminology.hl7.org/CodeSystem/audit-event-type"
    static let interactionSystem = "http://hl7.org/fhir/restful-interaction"

    /// The FHIR resource type naming a person of `role`.
    package static func resourceType(ofRole role: String) -> String? {
        switch role {
        case "patient": "Patient"
        case "caregiver": "RelatedPerson"
        case "clinician": "Practitioner"
        default: nil
        }
    }

    /// One entry as an `AuditEvent`.
    package static func resource(_ record: AuditRecord) -> JSONValue {
        var who: [(String, JSONValue)] = []
        if let agent = record.agent, let type = resourceType(ofRole: record.role) {
            who.append(("reference", .string("\(type)/\(agent)")))
        }
        who.append(("display", .string(record.agent.map { "\(record.role) \($0)" } ?? "administrator")))
        return .object([
            ("resourceType", .string("AuditEvent")), ("id", .string(String(record.sequence))),
            ("type", .object([("system", .string(typeSystem)), ("code", .string("rest"))])),
            (
                "subtype",
                .array([
                    .object([("system", .string(interactionSystem)), ("code", .string(record.action.interaction))])
                ])
            ),
            ("action", .string(record.action.rawValue)),
            ("recorded", .string(CivilTime(unixMilliseconds: record.recorded).iso8601(fractional: true))),
            ("outcome", .string("0")),
            (
                "agent",
                .array([
                    .object([
                        ("type", .object([("text", .string(record.role))])), ("who", .object(who)),
                        ("requestor", .bool(true)),
                    ])
                ])
            ),
            ("source", .object([("observer", .object([("display", .string("vitalsim serve"))]))])),
            (
                "entity",
                .array([
                    .object([
                        ("what", .object([("reference", .string("Patient/" + record.patient))])),
                        ("description", .string(record.what)),
                    ])
                ])
            ),
        ])
    }

    /// A `searchset` Bundle of `records`, oldest first.
    package static func bundle(_ records: [AuditRecord]) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("resourceType", .string("Bundle")), ("type", .string("searchset")),
            ("total", .int(Int64(records.count))),
        ]
        if !records.isEmpty {
            fields.append(
                (
                    "entry",
                    .array(
                        records.map { r in
                            .object([("fullUrl", .string("AuditEvent/\(r.sequence)")), ("resource", resource(r))])
                        }
                    )
                )
            )
        }
        return .object(fields)
    }
}
