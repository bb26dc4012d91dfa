import VitalSimCore

/// A patient's escalation policy as the reference SUT's API and storage carry it: an object of
/// severity → steps, each step `{"afterSeconds": N, "notify": [person, …]}` (`afterSeconds` left
/// out or 0 on the first step), e.g.
/// `{"high": [{"notify": ["ann"]}, {"afterSeconds": 900, "notify": ["dr-osei"]}]}`.
package enum EscalationJSON {
    /// The policy of an enrolment's `escalation` for `patient`, whose people are `careTeam`: each
    /// severity known, each step's people the patient or care-team members, each person once a
    /// severity, the first step at 0 and each later one later than the one before.
    package static func parse(
        _ input: JSONInput,
        patient: String,
        careTeam: [CareTeamMember]
    ) throws(ValidationFailure) -> EscalationPolicy {
        guard case let .object(o) = input else {
            throw ValidationFailure(field: "escalation", message: "escalation must be an object of severity → steps")
        }
        let names = Severity.allCases.map(\.rawValue)
        for key in o.keys.sorted() where Severity(rawValue: key) == nil {
            throw ValidationFailure(
                field: "escalation.\(key)",
                message: "unknown severity \(key); valid: \(names.joined(separator: ", "))"
            )
        }
        let people = Set([patient] + careTeam.map(\.id))
        var policy = EscalationPolicy()
        for severity in Severity.allCases {
            guard let value = o[severity.rawValue] else { continue }
            policy.steps[severity] = try steps(value, "escalation.\(severity.rawValue)", people: people)
        }
        return policy
    }

    private static func steps(
        _ value: JSONInput,
        _ field: String,
        people: Set<String>
    ) throws(ValidationFailure) -> [EscalationStep] {
        guard case let .array(list) = value, !list.isEmpty else {
            throw ValidationFailure(field: field, message: "a severity's steps are a non-empty list")
        }
        var steps: [EscalationStep] = []
        var notified: Set<String> = []
        for (i, entry) in list.enumerated() {
            let path = "\(field)[\(i)]"
            guard case let .object(o) = entry, o.keys.allSatisfy({ ["afterSeconds", "notify"].contains($0) }) else {
                throw ValidationFailure(field: path, message: "a step is {afterSeconds, notify}")
            }
            var after: Int64 = 0
            if let value = o["afterSeconds"] {
                guard case let .integer(seconds) = value, (0...31_536_000).contains(seconds) else {
                    throw ValidationFailure(field: path + ".afterSeconds", message: "afterSeconds is 0 to 31536000")
                }
                after = seconds * 1000
            }
            if i == 0, after != 0 {
                throw ValidationFailure(
                    field: path + ".afterSeconds",
                    message: "the first step is notified when the alert is raised (afterSeconds 0)"
                )
            }
            if let previous = steps.last, after <= previous.after {
                throw ValidationFailure(
                    field: path + ".afterSeconds",
                    message: "must be later than the step before (\(previous.after / 1000) s)"
                )
            }
            guard case let .array(names)? = o["notify"], !names.isEmpty else {
                throw ValidationFailure(field: path + ".notify", message: "notify is a non-empty list of person ids")
            }
            var notify: [String] = []
            for (j, name) in names.enumerated() {
                guard case let .string(person) = name, people.contains(person), notified.insert(person).inserted
                else {
                    throw ValidationFailure(
                        field: path + ".notify[\(j)]",
                        message: "each person once a severity, the patient or a member of the care team"
                    )
                }
                notify.append(person)
            }
            steps.append(EscalationStep(after: after, notify: notify))
        }
        return steps
    }

    /// The API's and storage's JSON of `policy` (severities from low to high).
    package static func json(_ policy: EscalationPolicy) -> JSONValue {
        .object(
            policy.severities.map { severity in
                (
                    severity.rawValue,
                    .array(
                        policy.steps(for: severity).map { step in
                            .object([
                                ("afterSeconds", .int(step.after / 1000)),
                                ("notify", .array(step.notify.map { .string($0) })),
                            ])
                        }
                    )
                )
            }
        )
    }

    /// The policy of a stored `escalation` column (a policy storage cannot read is empty).
    package static func stored(_ text: String, patient: String, careTeam: [CareTeamMember]) -> EscalationPolicy {
        guard let input = JSONInput.parse(Array(text.utf8)) else { return EscalationPolicy() }
        return (try? parse(input, patient: patient, careTeam: careTeam)) ?? EscalationPolicy()
    }
}
