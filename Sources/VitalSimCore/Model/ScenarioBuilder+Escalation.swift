import Yams

extension ScenarioBuilder {
    /// A patient's `escalation:`: for each severity (`low`, `medium`, `high`) a list of steps, each
    /// `{notify, after}`: the first notified when the alert is raised (no `after`), each later one
    /// `after` that long unless someone acted on the alert before, later than the step before it.
    /// `notify` names the patient or members of the patient's care team, each person once a
    /// severity.
    func escalation(_ patient: Fields, id: String, team: [CareTeamMember]) -> EscalationPolicy {
        guard let node = patient.value("escalation") else { return EscalationPolicy() }
        let field = patient.path("escalation")
        let names = Severity.allCases.map(\.rawValue)
        guard let severities = reader.mapping(node, field, allowed: names) else { return EscalationPolicy() }
        if node.mapping?.isEmpty ?? false {
            reader.fail(node, field, "give the steps of at least one severity (\(names.joined(separator: ", ")))")
        }
        let known = [id] + team.map(\.id)
        var policy = EscalationPolicy()
        for severity in Severity.allCases where severities.has(severity.rawValue) {
            guard let list = severities.list(severity.rawValue) else { continue }
            let path = severities.path(severity.rawValue)
            if list.isEmpty {
                reader.fail(severities.value(severity.rawValue), path, "list at least one step, or leave it out")
            }
            policy.steps[severity] = steps(list, path, known: known, patient: id)
        }
        return policy
    }

    /// One severity's steps; a step with a problem is reported and left out.
    private func steps(_ list: [Node], _ field: String, known: [String], patient: String) -> [EscalationStep] {
        var steps: [EscalationStep] = []
        var notified: Set<String> = []
        for (i, node) in list.enumerated() {
            let path = "\(field)[\(i)]"
            guard let entry = reader.mapping(node, path, allowed: ["notify", "after"], required: ["notify"]) else {
                continue
            }
            let after = entry.duration("after", allowZero: true)?.milliseconds ?? 0
            if i == 0, after > 0 {
                reader.fail(
                    entry.value("after"),
                    entry.path("after"),
                    "the first step is notified when the alert is raised; leave 'after' out"
                )
            }
            if after % 1000 != 0 {
                reader.fail(entry.value("after"), entry.path("after"), "give a whole number of seconds")
            }
            if i > 0, !entry.has("after") {
                reader.fail(node, entry.path("after"), "a later step needs 'after': how long unacknowledged")
            } else if i > 0, let previous = steps.last, after <= previous.after {
                reader.fail(
                    entry.value("after"),
                    entry.path("after"),
                    "must be later than the step before (\(VirtualDuration(milliseconds: previous.after)))"
                )
            }
            let people = recipients(entry, known: known, patient: patient, notified: &notified)
            guard !people.isEmpty else { continue }
            steps.append(EscalationStep(after: after, notify: people, line: reader.line(of: node)))
        }
        return steps
    }

    /// A step's `notify`: one person's id or a list of them, each the patient or in the care team,
    /// and not notified by an earlier step of the severity.
    private func recipients(
        _ entry: Fields,
        known: [String],
        patient: String,
        notified: inout Set<String>
    ) -> [String] {
        guard let node = entry.value("notify") else { return [] }
        let nodes = node.sequence.map(Array.init) ?? [node]
        if node.sequence?.isEmpty ?? false {
            reader.fail(node, entry.path("notify"), "name at least one person")
        }
        var people: [String] = []
        for (i, personNode) in nodes.enumerated() {
            let path = node.sequence == nil ? entry.path("notify") : entry.path("notify") + "[\(i)]"
            guard let person = personNode.scalar?.string, !person.isEmpty else {
                reader.fail(personNode, path, "expected a person's id, got \(reader.kindName(personNode))")
                continue
            }
            guard known.contains(person) else {
                let team = known.dropFirst().joined(separator: ", ")
                reader.fail(
                    personNode,
                    path,
                    "'\(person)' is neither patient \(patient) nor in the care team"
                        + (team.isEmpty ? " (the patient has no care-team)" : " (\(team))")
                )
                continue
            }
            guard notified.insert(person).inserted else {
                reader.fail(personNode, path, "'\(person)' is already notified by an earlier step")
                continue
            }
            people.append(person)
        }
        return people
    }
}
