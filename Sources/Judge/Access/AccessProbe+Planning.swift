import RunRecord
import VitalSimCore

extension AccessProbe {
    /// The access matrix of `scenario`: for each person with a credential (`people`: person id →
    /// role, for the care teams' members and the patients), their operations on the first patient
    /// in their care and on the first patient of the scenario who is not; the reads first (the
    /// other patient's audit trail after every other read, so that it holds entries to leak), the
    /// deletions last. A person with `expired` or `revoked` credentials (`stale`) reads their own
    /// patient's readings with each (refused).
    package static func planned(
        _ scenario: Scenario,
        people: [(person: String, role: PersonRole)],
        stale: [(person: String, credential: Credential)] = []
    ) -> [AccessProbe] {
        var reads: [AccessProbe] = []
        var audits: [AccessProbe] = []
        var changes: [AccessProbe] = []
        var deletions: [AccessProbe] = []
        for (person, role) in people {
            let care = patients(inCareOf: person, role: role, scenario)
            guard let own = care.first else { continue }
            let other = scenario.patients.first { !care.contains($0.id) }?.id
            let probe = { (operation: Operation, patient: String, grant: Bool) in
                AccessProbe(
                    person: person,
                    role: role,
                    operation: operation,
                    patient: patient,
                    inCare: patient == own,
                    mustGrant: grant
                )
            }
            reads.append(probe(.readReadings, own, true))
            reads.append(probe(.readAlerts, own, true))
            if let other {
                reads.append(probe(.readReadings, other, false))
                reads.append(probe(.readAlerts, other, false))
                audits.append(probe(.readAudit, other, false))
            }
            for patient in [own, other].compactMap({ $0 }) {
                // A patient's own app may post their readings: not judged.
                if !(role == .patient && patient == own) { changes.append(probe(.ingest, patient, false)) }
                changes.append(probe(.enrol, patient, false))
                deletions.append(probe(.delete, patient, false))
            }
        }
        for (person, credential) in stale {
            guard let role = Self.people(of: scenario).first(where: { $0.person == person })?.role,
                let own = patients(inCareOf: person, role: role, scenario).first
            else { continue }
            var probe = AccessProbe(
                person: person,
                role: role,
                operation: .readReadings,
                patient: own,
                inCare: true,
                mustGrant: false
            )
            probe.credential = credential
            reads.append(probe)
        }
        return reads + audits + changes + deletions
    }

    /// The patients (scenario ids, file order) in the care of `person` with `role`.
    package static func patients(inCareOf person: String, role: PersonRole, _ scenario: Scenario) -> [String] {
        if role == .patient { return scenario.patients.contains { $0.id == person } ? [person] : [] }
        return scenario.patients.filter { $0.careTeam.contains { $0.id == person } }.map(\.id)
    }

    /// The people of `scenario` who could hold a credential: every care team's members, then each
    /// patient who has a care team (as the role `patient`).
    package static func people(of scenario: Scenario) -> [(person: String, role: PersonRole)] {
        scenario.careTeamPeople.map { ($0.person.id, PersonRole($0.person.role)) }
            + scenario.patients.filter { !$0.careTeam.isEmpty }.map { ($0.id, .patient) }
    }
}

extension PersonCredential {
    /// Whether the SUT must honour the credential at wall-clock time `now` (Unix ms): a validity is
    /// about now, not about the scenario's time.
    package func state(at now: Int64) -> AccessProbe.Credential {
        if revoked { return .revoked }
        if let expiresAt, expiresAt <= now { return .expired }
        return .valid
    }
}
