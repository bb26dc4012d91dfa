import Yams

extension ScenarioBuilder {
    /// A patient's `care-team:`: a list of `{id, role}` (role `caregiver` or `clinician`), each person
    /// once; nil entries are reported and left out.
    func careTeam(_ patient: Fields) -> [CareTeamMember] {
        guard patient.has("care-team"), let list = patient.list("care-team") else { return [] }
        let field = patient.path("care-team")
        if list.isEmpty {
            reader.fail(patient.value("care-team"), field, "list at least one person, or leave care-team out")
        }
        var team: [CareTeamMember] = []
        for (i, node) in list.enumerated() {
            let path = "\(field)[\(i)]"
            guard let entry = reader.mapping(node, path, allowed: ["id", "role"], required: ["id", "role"]),
                let id = entry.string("id"), let role = entry.choice("role", CareRole.self, what: "care role")
            else { continue }
            if let problem = PatientIdentifier.problem(id) {
                reader.fail(entry.value("id"), entry.path("id"), problem)
                continue
            }
            if team.contains(where: { $0.id == id }) {
                reader.fail(entry.value("id"), entry.path("id"), "'\(id)' is already in this care team")
                continue
            }
            team.append(CareTeamMember(id: id, role: role, line: reader.line(of: node)))
        }
        return team
    }

    /// A person has one role in every care team, and no person has a patient's id (a patient is
    /// a person of the system too, with the role `patient`).
    func checkCareRoles(_ patients: [PatientSpec]) {
        let patientIDs = Set(patients.map(\.id))
        var roles: [String: CareTeamMember] = [:]
        for (i, patient) in patients.enumerated() {
            for (j, member) in patient.careTeam.enumerated() {
                let field = "patients[\(i)].care-team[\(j)].id"
                if patientIDs.contains(member.id) {
                    reader.failAt(
                        line: member.line,
                        column: 1,
                        field,
                        "'\(member.id)' is a patient's id; give the person an id of their own"
                    )
                }
                if let first = roles[member.id], first.role != member.role {
                    reader.failAt(
                        line: member.line,
                        column: 1,
                        field,
                        "'\(member.id)' is a \(first.role.rawValue) at line \(first.line); a person has one role in every care team"
                    )
                }
                roles[member.id] = roles[member.id] ?? member
            }
        }
    }
}
