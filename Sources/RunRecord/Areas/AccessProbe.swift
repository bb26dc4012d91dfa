import VitalSimCore

/// One request of the access-control matrix (OWASP API Security Top 10, API1:2023 broken
/// object-level authorization): a person's credential used on one operation for one patient, what
/// the SUT must do (grant or refuse) and, once sent, what it did.
package struct AccessProbe: Sendable, Equatable {
    /// What the request tries.
    package enum Operation: String, Sendable, CaseIterable {
        /// Read the patient's stored readings (the profile's `stored-readings.url`).
        case readReadings = "read-readings"
        /// Read the alert list, looking for the patient's alerts (the profile's `alerts.url`).
        case readAlerts = "read-alerts"
        /// Read the patient's audit trail (the profile's `audit.url`): an administrator's, so a
        /// person reading another patient's is refused (their own patient's is not judged).
        case readAudit = "read-audit"
        /// Post one of the patient's readings as a device would, with the person's credential.
        case ingest
        /// Enrol the patient (the profile's first enrolment request).
        case enrol
        /// Delete the patient (the profile's first reset request).
        case delete

        /// True for the operations that change the SUT's data.
        package var writes: Bool { self == .ingest || self == .enrol || self == .delete }
    }

    /// The state of the credential used.
    package enum Credential: String, Sendable {
        case valid
        case expired
        case revoked
    }

    /// The person (their id; a patient's own id for the role `patient`) and their role.
    package var person: String
    package var role: PersonRole
    package var credential = Credential.valid
    package var operation: Operation
    /// The patient (scenario id) the request is about.
    package var patient: String
    /// True when the patient is in the person's care (a patient: their own record).
    package var inCare: Bool
    /// True when the SUT must grant the request; false when it must refuse it.
    package var mustGrant: Bool

    /// What the SUT answered: its status (nil: no answer, with `error`).
    package var status: Int?
    package var error: String?
    /// What a granted answer revealed of a patient outside the person's care (for a list: each
    /// alert of another patient), or what a write changed; empty when nothing.
    package var leaked: [String] = []
    /// What an answer that had to grant left out (the person's own patient's alerts missing from
    /// the list), if anything.
    package var lacking: String?
    /// Why the probe could not be judged (the other patient raised no alert to leak), if so.
    package var unobservable: String?
    /// When the request went out and its answer came (wall clock, Unix ms), once sent.
    package var sentAt: Int64?
    package var answeredAt: Int64?

    package init(
        person: String,
        role: PersonRole,
        credential: Credential = .valid,
        operation: Operation,
        patient: String,
        inCare: Bool,
        mustGrant: Bool
    ) {
        self.person = person
        self.role = role
        self.credential = credential
        self.operation = operation
        self.patient = patient
        self.inCare = inCare
        self.mustGrant = mustGrant
    }

    /// The check's name: `access caregiver ann read-readings patient 502 (not in care)`, with the
    /// credential's state when it is not valid.
    package var name: String {
        let state = credential == .valid ? "" : " \(credential.rawValue) credential"
        return
            "access \(role.rawValue) \(person)\(state) \(operation.rawValue) patient \(patient) (\(inCare ? "in care" : "not in care"))"
    }

    /// True when the SUT granted the request: a 2xx that, for a read, revealed something.
    package var granted: Bool {
        guard let status, (200..<300).contains(status) else { return false }
        switch operation {
        case .readAlerts: return mustGrant ? lacking == nil : !leaked.isEmpty
        case .readReadings: return mustGrant || !leaked.isEmpty
        case .readAudit: return !leaked.isEmpty
        case .ingest, .enrol, .delete: return true
        }
    }
}
