import RunRecord
import VitalSimCore

/// The SUT's audit trail, read back after the access matrix: for each person of the scenario, every
/// access the harness made with their credential recorded (`audit-missing`), and none it did not
/// make (`audit-invented`). Observed by its probe after the run, before the reset.
package struct AuditTrailArea: ConformanceArea {
    package var name: String { "audit-trail" }
    package var title: String { "audit trail" }
    package var kinds: Set<CheckKind> { [.audit] }
    package var observedBy: ObservationSource { .probe }
    package var requirementIDs: [String] { ["access.audit"] }

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] { auditChecks(run.observation) }

    /// Each person's check once: a person caring for patients of several shards is judged in each
    /// (on that shard's patients); the whole fails where any shard failed.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        .oncePerName(parts.flatMap { $0.checks(of: self) }, skippedYields: true)
    }

    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] { requirementIDs }

    /// A check per person (``AuditPerson/of(_:)``).
    package func exercised(by plan: ExercisePlan) -> [Check] {
        AuditPerson.of(plan.scenario).map { plan.check(.audit, "audit trail of \($0.role.rawValue) \($0.person)") }
    }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation {
        sources.patient(mentionedIn: check.name)
    }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        AreaRow(self, checks, about: "\(checks.filter { !$0.skipped }.count) person(s)' trail judged")
    }

    /// How far the SUT's clock may be from the harness's when it stamps an audit entry (ms).
    package let auditClockTolerance: Int64 = 10_000

    /// The audit trail's checks: one per person of the scenario whom the
    /// harness acted as or whom the trail names. It passes when every required access of theirs
    /// (``PersonAccess``) has its own entry — same person, patient, read or change, stamped within
    /// ``auditClockTolerance`` of when it was made — and no entry of theirs names a patient or a kind
    /// of access the harness never had with their credential (`audit-invented`). One skipped check
    /// when the trail was not read; none when the run made no person's request.
    package func auditChecks(_ result: RunObservation) -> [Check] {
        guard let trail = result.areas[AuditReadBack.self] else { return [] }
        if let why = trail.unread {
            return [Check(kind: .audit, name: "audit trail", rule: nil, finding: nil, detail: why, skipped: true)]
        }
        let accesses = PersonAccess.log(
            probes: result.areas[AccessMatrixObservation.self]?.probes ?? [],
            actions: result.areas[CareActionsObservation.self]?.outcomes ?? [],
            inboxes: result.areas[InboxesObservation.self]?.readers ?? [],
            people: trail.people
        )
        return trail.people.compactMap { who in
            let (person, role) = (who.person, who.role)
            let theirs = accesses.filter { $0.person == person }
            let entries = trail.entries.filter { $0.agent == person }.sorted { $0.at < $1.at }
            guard !theirs.isEmpty || !entries.isEmpty else { return nil }
            return auditCheck(person: person, role: role, theirs, entries)
        }
    }

    func auditCheck(
        person: String,
        role: PersonRole,
        _ accesses: [PersonAccess],
        _ entries: [AuditEntry]
    )
        -> Check
    {
        var unused = entries
        var missing: [PersonAccess] = []
        for access in accesses.filter(\.required).sorted(by: { $0.from < $1.from }) {
            let match = unused.firstIndex {
                $0.patient == access.patient && $0.change == access.change
                    && $0.at + auditClockTolerance >= access.from && $0.at - auditClockTolerance <= access.to
            }
            if let match { unused.remove(at: match) } else { missing.append(access) }
        }
        let invented = unused.filter { entry in
            !accesses.contains { $0.patient == entry.patient && $0.change == entry.change }
        }
        let name = "audit trail of \(role.rawValue) \(person)"
        let required = accesses.filter(\.required).count
        if let first = missing.first {
            let seen = entries.filter { $0.patient == first.patient && $0.change == first.change }
            let nearest = seen.min { abs($0.at - first.from) < abs($1.at - first.from) }
            let detail =
                "\(missing.count) of \(required) granted access(es) not recorded, the first: \(first.what) of patient \(first.patient) at \(wallTime(first.from)) (± \(auditClockTolerance / 1000) s)"
                + (nearest.map {
                    "; the nearest entry of that kind is at \(wallTime($0.at)): check the SUT's clock"
                }
                    ?? "; the trail holds \(entries.count) entr\(entries.count == 1 ? "y" : "ies") of \(person)")
                + (invented.isEmpty ? "" : "; and \(invented.count) entr(ies) the harness never caused")
            return Check(kind: .audit, name: name, rule: nil, finding: .auditMissing, detail: detail)
        }
        if let first = invented.first {
            let detail =
                "the trail says \(person) \(first.change ? "changed" : "read") data of patient \(first.patient) at \(wallTime(first.at)), but the harness made no such request with their credential (\(invented.count) such entr\(invented.count == 1 ? "y" : "ies"))"
            return Check(kind: .audit, name: name, rule: nil, finding: .auditInvented, detail: detail)
        }
        return Check(
            kind: .audit,
            name: name,
            rule: nil,
            finding: nil,
            detail:
                "every one of \(required) granted access(es) recorded; \(entries.count) entr\(entries.count == 1 ? "y" : "ies"), none invented"
        )
    }

    /// A wall-clock time for messages: `2026-11-28T10:15:02.123Z`.
    func wallTime(_ ms: Int64) -> String { CivilTime(unixMilliseconds: ms).iso8601(fractional: true) }
}
