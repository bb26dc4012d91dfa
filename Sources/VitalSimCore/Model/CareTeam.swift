/// The role a person has in a patient's care (the IoT-AI SRS §2.3, user classes): a caregiver (family or
/// a carer: sees the patient's data, receives emergency alerts, limited permissions) or a
/// clinician (reviews the data of the patients in their care).
public enum CareRole: String, Sendable, CaseIterable, Codable {
    case caregiver
    case clinician
}

/// One member of a patient's care team (`care-team:` of a scenario's patient).
public struct CareTeamMember: Sendable, Equatable, Hashable {
    /// The person's id, the same in every care team they belong to.
    public var id: String
    /// Their role in this patient's care.
    public var role: CareRole
    /// The scenario file's line of the entry (0 when built in code), for messages.
    public var line: Int

    /// A member with every field given.
    public init(id: String, role: CareRole, line: Int = 0) {
        self.id = id
        self.role = role
        self.line = line
    }

    /// Equal when the person and role are (the line is where it was written, not what it is).
    public static func == (a: CareTeamMember, b: CareTeamMember) -> Bool { a.id == b.id && a.role == b.role }

    /// Hashes the person and role.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(role)
    }
}

extension Scenario {
    /// Every person in a care team of the scenario, once, in order of first appearance, with the
    /// patients in their care (scenario ids, in file order).
    public var careTeamPeople: [(person: CareTeamMember, patients: [String])] {
        var order: [String] = []
        var found: [String: (person: CareTeamMember, patients: [String])] = [:]
        for patient in patients {
            for member in patient.careTeam {
                if found[member.id] == nil {
                    order.append(member.id)
                    found[member.id] = (member, [])
                }
                found[member.id]?.patients.append(patient.id)
            }
        }
        return order.compactMap { found[$0] }
    }
}
