import RunRecord
import VitalSimCore

/// What is left of each patient once the scenario deleted them (the profile's lifecycle `reset:`, or
/// the reference contract's `DELETE /api/v1/patients/{id}`): their stored readings and alerts must
/// no longer be readable (`readable-after-deletion`). Observed by its probe after the reset.
package struct DeletionArea: ConformanceArea {
    package var name: String { "deletion" }
    package var title: String { "deletion" }
    package var kinds: Set<CheckKind> { [.access] }
    package var observedBy: ObservationSource { .probe }
    package var requirementIDs: [String] { ["access.deletion"] }

    /// How many of a deleted patient's alerts a check names in its detail.
    let namedAlerts = 3

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] {
        deletionChecks(run.observation.areas[DeletionObservation.self]?.reads ?? [])
    }

    /// Each shard deleted its own patients: their checks, in patient order.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        parts.flatMap { $0.checks(of: self) }.stablySorted { $0.patient }
    }

    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] { requirementIDs }

    /// What is left of each patient after the embedded SUT's run deletes them.
    package func exercised(by plan: ExercisePlan) -> [Check] {
        plan.scenario.patients.map { plan.check(.access, DeletedPatientRead(patient: $0.id).name) }
    }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation {
        sources.patient(mentionedIn: check.name)
    }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        AreaRow(self, checks, about: "\(checks.count) patient(s) deleted")
    }

    /// One check per deleted patient: a 2xx listing their stored readings, or an alert list still
    /// showing their alerts, is `readable-after-deletion`; a 404, 410, 401 or 403, or a 2xx without
    /// them, passes.
    package func deletionChecks(_ reads: [DeletedPatientRead]) -> [Check] {
        reads.map { read in
            if let why = read.unobservable {
                return Check(kind: .access, name: read.name, rule: nil, finding: nil, detail: why, skipped: true)
            }
            var left: [String] = []
            if read.readingsListed > 0 { left.append("\(read.readingsListed) stored reading(s) still listed") }
            if !read.alertsListed.isEmpty {
                let ids = read.alertsListed.prefix(namedAlerts).joined(separator: ", ")
                left.append("\(read.alertsListed.count) alert(s) still listed (\(ids))")
            }
            guard left.isEmpty else {
                return Check(
                    kind: .access,
                    name: read.name,
                    rule: nil,
                    finding: .readableAfterDeletion,
                    detail: "the patient was deleted, but " + left.joined(separator: "; ")
                )
            }
            let status = read.readingsStatus.map { "answered \($0)" } ?? "not read"
            return Check(
                kind: .access,
                name: read.name,
                rule: nil,
                finding: nil,
                detail: "stored readings \(status) with none listed; no alert of theirs listed"
            )
        }
    }
}
