import Yams

extension TimelineBuilder {
    /// A care-team action: `at`, `person` (the patient or a member of the patient's care team),
    /// `patient`, `action` (acknowledge, dismiss, respond, no-response) and, to pick one alert of
    /// several, its `rule`.
    func careAction(_ node: Node, _ field: String) -> CareTeamAction? {
        guard
            let fields = reader.mapping(
                node,
                field,
                allowed: ["at", "person", "patient", "action", "rule"],
                required: ["at", "person", "patient", "action"]
            )
        else { return nil }
        let at = fields.duration("at", allowZero: true)?.milliseconds ?? 0
        checkStart(at, fields)
        let rule = fields.string("rule")
        guard let action = fields.choice("action", CareAction.self, what: "care-team action"),
            let person = fields.string("person"), let patientID = fields.string("patient")
        else { return nil }
        guard let patient = context.patient(patientID) else {
            let valid = context.patients.map(\.id).joined(separator: ", ")
            reader.fail(
                fields.value("patient"),
                fields.path("patient"),
                "no patient '\(patientID)' in this scenario; valid: \(valid)"
            )
            return nil
        }
        guard person == patient.id || patient.careTeam.contains(where: { $0.id == person }) else {
            let team = patient.careTeam.map(\.id).joined(separator: ", ")
            reader.fail(
                fields.value("person"),
                fields.path("person"),
                "'\(person)' is neither patient \(patient.id) nor in the patient's care team"
                    + (team.isEmpty ? " (the patient has no care-team)" : " (\(team))")
            )
            return nil
        }
        return CareTeamAction(at: at, person: person, patient: patientID, action: action, rule: rule, line: fields.line)
    }
}
