import VitalSimCore

/// One entry of the SUT's audit trail as read back (the profile's `audit:`):
/// who (a person of the scenario, by their scenario id; nil when the entry names nobody the harness
/// knows, such as an administrator), which patient (scenario id), whether it was a change or a
/// read, and when (the SUT's wall clock, Unix ms).
package struct AuditEntry: Sendable, Equatable {
    package var agent: String?
    package var patient: String
    package var change: Bool
    package var at: Int64

    package init(agent: String?, patient: String, change: Bool, at: Int64) {
        self.agent = agent
        self.patient = patient
        self.change = change
        self.at = at
    }
}

/// What the harness read of the audit trail after a scenario: the entries about its patients
/// recorded since the run began, or why it could not be read (the skipped check's detail), and the
/// scenario's people the judge holds them against.
package struct AuditReadBack: Sendable, Equatable {
    package var entries: [AuditEntry]
    /// Why the trail was not read (no `audit:` in the profile); nil when `entries` is what it holds.
    package var unread: String?
    /// The scenario's people (``AccessProbe/people(of:)``), each with the patients in their care.
    package var people: [AuditPerson]

    package init(entries: [AuditEntry], unread: String? = nil, people: [AuditPerson]) {
        self.entries = entries
        self.unread = unread
        self.people = people
    }
}

/// A person of the scenario, their role and the patients in their care (scenario ids).
package struct AuditPerson: Sendable, Equatable {
    package var person: String
    package var role: PersonRole
    package var inCare: [String]

    package init(person: String, role: PersonRole, inCare: [String]) {
        self.person = person
        self.role = role
        self.inCare = inCare
    }
}
