import Yams

/// A person's role towards a patient's data (the IoT-AI SRS §2.3 user classes): the patient themselves,
/// or a member of their care team.
public enum PersonRole: String, Sendable, CaseIterable {
    case patient
    case caregiver
    case clinician

    /// The role of a care team's member.
    public init(_ role: CareRole) {
        switch role {
        case .caregiver: self = .caregiver
        case .clinician: self = .clinician
        }
    }
}

/// A person's credential: one entry of a credentials file's `people:` list, the shape the
/// reference SUT's `--credentials` file and a SUT profile's `auth.devices.file` share.
package struct PersonCredential: Sendable, Equatable {
    package var token: String
    /// The person's id (a patient's own id for the role `patient`).
    package var id: String
    package var role: PersonRole
    /// When the credential stops being valid (`expires:`, Unix ms), if ever.
    package var expiresAt: Int64?
    /// True when the credential was revoked (`revoked: true`): known, and to be refused.
    package var revoked = false

    package init(token: String, id: String, role: PersonRole, expiresAt: Int64? = nil, revoked: Bool = false) {
        self.token = token
        self.id = id
        self.role = role
        self.expiresAt = expiresAt
        self.revoked = revoked
    }

    /// The keys of an entry, and those it must have.
    package static let keys = ["token", "person", "role", "expires", "revoked"]
    package static let required = ["token", "person", "role"]

    /// The credential of an entry already read as a mapping of ``keys`` (its problems recorded in
    /// the reader): `token` is the token as the caller checked it; nil when the entry is unusable.
    package static func read(_ entry: Fields, token: String) -> PersonCredential? {
        guard let id = entry.string("person"), let role = entry.choice("role", PersonRole.self, what: "role") else {
            return nil
        }
        if let problem = PatientIdentifier.problem(id) {
            entry.reader.fail(entry.value("person"), entry.path("person"), problem)
            return nil
        }
        var credential = PersonCredential(token: token, id: id, role: role, revoked: entry.bool("revoked") == true)
        if let text = entry.string("expires") {
            guard let at = CivilTime.unixMilliseconds(rfc3339: text) else {
                entry.reader.fail(
                    entry.value("expires"),
                    entry.path("expires"),
                    "expected an RFC 3339 time such as 2026-01-01T00:00:00Z"
                )
                return nil
            }
            credential.expiresAt = at
        }
        return credential
    }

    /// The entry as YAML lines of a `people:` list (`person` written as `id`).
    package func yaml(person id: String? = nil) -> String {
        var text = "  - token: \"\(token)\"\n    person: \(JSONValue.string(id ?? self.id).serialized())\n"
        text += "    role: \(role.rawValue)\n"
        if let expiresAt { text += "    expires: \(CivilTime(unixMilliseconds: expiresAt).iso8601())\n" }
        if revoked { text += "    revoked: true\n" }
        return text
    }
}
