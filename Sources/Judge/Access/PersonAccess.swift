import RunRecord
import VitalSimCore

extension AuditPerson {
    /// The people of `scenario`, in ``AccessProbe/people(of:)`` order.
    package static func of(_ scenario: Scenario) -> [AuditPerson] {
        AccessProbe.people(of: scenario).map {
            AuditPerson(
                person: $0.person,
                role: $0.role,
                inCare: AccessProbe.patients(inCareOf: $0.person, role: $0.role, scenario)
            )
        }
    }
}

/// A request the harness made with a person's credential that the SUT granted, and so that its
/// audit trail may hold: `required` when the trail must hold it (a read of the patient's stored
/// readings, a change such as an action on an alert), else only allowed (a list of alerts or
/// notifications). `from` and `to` (wall clock, Unix ms) bound when it was made.
package struct PersonAccess: Sendable, Equatable {
    package var person: String
    package var patient: String
    package var change: Bool
    package var required: Bool
    /// What it was, for messages: `read-readings`, `acknowledge`, …
    package var what: String
    package var from: Int64
    package var to: Int64

    package init(
        person: String,
        patient: String,
        change: Bool,
        required: Bool,
        what: String,
        from: Int64,
        to: Int64
    ) {
        self.person = person
        self.patient = patient
        self.change = change
        self.required = required
        self.what = what
        self.from = from
        self.to = to
    }
}

extension PersonAccess {
    /// The granted requests of a run made with people's credentials: the access matrix's probes the
    /// SUT answered 2xx (a read of stored readings that revealed them is required, as is a write;
    /// a list read is allowed for each patient it concerns), the care team's actions the SUT took
    /// (required changes), and each inbox read (`inboxes`: allowed reads of the patients in that
    /// person's care).
    package static func log(
        probes: [AccessProbe],
        actions: [CareActionOutcome],
        inboxes: [String],
        people: [AuditPerson]
    ) -> [PersonAccess] {
        var out: [PersonAccess] = []
        for probe in probes where probe.credential == .valid {
            guard let status = probe.status, (200..<300).contains(status), let from = probe.sentAt,
                let to = probe.answeredAt
            else { continue }
            let revealed = probe.operation == .readReadings && (probe.mustGrant || !probe.leaked.isEmpty)
            out.append(
                PersonAccess(
                    person: probe.person,
                    patient: probe.patient,
                    change: probe.operation.writes,
                    required: revealed || probe.operation.writes,
                    what: probe.operation.rawValue,
                    from: from,
                    to: to
                )
            )
            if probe.operation == .readAlerts {
                for patient in people.first(where: { $0.person == probe.person })?.inCare ?? [] {
                    out.append(
                        PersonAccess(
                            person: probe.person,
                            patient: patient,
                            change: false,
                            required: false,
                            what: "read-alerts",
                            from: from,
                            to: to
                        )
                    )
                }
            }
        }
        for outcome in actions where outcome.accepted {
            guard let from = outcome.sentAt, let to = outcome.answeredAt else { continue }
            out.append(
                PersonAccess(
                    person: outcome.action.person,
                    patient: outcome.action.patient,
                    change: true,
                    required: true,
                    what: outcome.action.action.rawValue,
                    from: from,
                    to: to
                )
            )
        }
        for person in inboxes {
            for patient in people.first(where: { $0.person == person })?.inCare ?? [] {
                out.append(
                    PersonAccess(
                        person: person,
                        patient: patient,
                        change: false,
                        required: false,
                        what: "read-notifications",
                        from: .min,
                        to: .max
                    )
                )
            }
        }
        return out
    }
}
