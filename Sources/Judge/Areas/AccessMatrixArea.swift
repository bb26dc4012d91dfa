import RunRecord
import VitalSimCore

/// The access-control matrix of the scenario's care teams (OWASP API Security Top 10, API1:2023
/// broken object-level authorization): each person's credential on each operation for a patient in
/// their care and one who is not, and stale credentials, granted or refused as their role says
/// (`access-granted-wrongly`, `access-refused-wrongly`). Observed by its probe after the run.
package struct AccessMatrixArea: ConformanceArea {
    package var name: String { "access-matrix" }
    package var title: String { "access matrix" }
    package var kinds: Set<CheckKind> { [.access] }
    package var observedBy: ObservationSource { .probe }
    package var requirementIDs: [String] { ["access.authorized-only", "access.roles", "access.stale-credentials"] }

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] {
        accessChecks(run.observation.areas[AccessMatrixObservation.self]?.probes ?? [])
    }

    /// Each shard probed with its own patients' people: their checks, in shard order.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        parts.flatMap { $0.checks(of: self) }
    }

    /// `access ROLE PERSON [STATE credential] OPERATION patient P (in care|not in care)`.
    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] {
        let name = check.name
        if name.contains(" expired credential ") || name.contains(" revoked credential ") {
            return ["access.stale-credentials"]
        }
        let writes = AccessProbe.Operation.allCases.filter(\.writes).contains {
            name.contains(" \($0.rawValue) patient ")
        }
        // Another patient's data: object-level authorization; a write: what the role may do.
        if name.hasSuffix("(not in care)") { return ["access.authorized-only"] + (writes ? ["access.roles"] : []) }
        return writes ? ["access.roles"] : ["access.authorized-only"]
    }

    /// The matrix as a run makes it whose profile holds the people's credentials (the embedded SUT's
    /// run does: a valid one each, an expired and a revoked one of the first member).
    package func exercised(by plan: ExercisePlan) -> [Check] {
        let scenario = plan.scenario
        let stale: [(person: String, credential: AccessProbe.Credential)] =
            scenario.careTeamPeople.first.map { [($0.person.id, .expired), ($0.person.id, .revoked)] } ?? []
        return AccessProbe.planned(scenario, people: AccessProbe.people(of: scenario), stale: stale).map {
            plan.check(.access, $0.name)
        }
    }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation {
        sources.patient(mentionedIn: check.name)
    }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        let people = Set(checks.compactMap { $0.name.split(separator: " ").dropFirst(2).first }).count
        return AreaRow(self, checks, about: "\(people) person(s) probed")
    }

    /// How many leaked resources a check names in its detail.
    let namedLeaks = 3

    /// One check per probe of the access matrix: a request the SUT had to refuse and granted is
    /// `access-granted-wrongly` (naming what leaked or changed), one it had to grant and refused
    /// (or answered without the patient's data) is `access-refused-wrongly`; a probe with nothing
    /// to observe is skipped.
    package func accessChecks(_ probes: [AccessProbe]) -> [Check] {
        probes.map(accessCheck)
    }

    func accessCheck(_ probe: AccessProbe) -> Check {
        let answered = probe.status.map { "answered \($0)" } ?? "got no answer (\(probe.error ?? "no reason"))"
        if let why = probe.unobservable {
            return Check(kind: .access, name: probe.name, rule: nil, finding: nil, detail: why, skipped: true)
        }
        if probe.mustGrant {
            guard !probe.granted else {
                return Check(
                    kind: .access,
                    name: probe.name,
                    rule: nil,
                    finding: nil,
                    detail: answered + ", as allowed"
                )
            }
            let detail =
                "the person may \(probe.operation.rawValue) for this patient, but the SUT \(answered)"
                + (probe.lacking.map { "; \($0)" } ?? "")
            return Check(kind: .access, name: probe.name, rule: nil, finding: .accessRefusedWrongly, detail: detail)
        }
        guard probe.granted else {
            let refused =
                probe.status.map { (200..<300).contains($0) } == true
                ? ", without patient \(probe.patient)'s data, as it must" : ", refused as it must be"
            return Check(kind: .access, name: probe.name, rule: nil, finding: nil, detail: answered + refused)
        }
        let what =
            probe.leaked.isEmpty
            ? ""
            : "; it revealed " + probe.leaked.prefix(namedLeaks).joined(separator: ", ")
                + (probe.leaked.count > namedLeaks ? ", … (\(probe.leaked.count) in all)" : "")
        let reason =
            probe.credential != .valid
            ? "the credential is \(probe.credential.rawValue)"
            : probe.role == .patient
                ? "patient \(probe.person) may reach only their own record"
                : "patient \(probe.patient) is not in the care of \(probe.person)"
        let detail =
            probe.operation.writes && probe.credential == .valid && probe.inCare
            ? "a \(probe.role.rawValue) may not \(probe.operation.rawValue), but the SUT \(answered)\(what)"
            : "\(reason), but the SUT \(answered)\(what)"
        return Check(kind: .access, name: probe.name, rule: nil, finding: .accessGrantedWrongly, detail: detail)
    }
}
