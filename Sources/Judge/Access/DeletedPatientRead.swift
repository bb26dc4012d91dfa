/// What could still be read of a patient after the scenario deleted them (the profile's lifecycle
/// `reset:`, or the reference contract's `DELETE /api/v1/patients/{id}` for the embedded SUT): the
/// first page of their stored readings and of the alert list, read with the reader's credential
/// (issue 45, Deliver 3).
package struct DeletedPatientRead: Sendable, Equatable {
    /// The patient (scenario id).
    package var patient: String
    /// How the stored readings answered: the status, and how many readings the page still listed.
    package var readingsStatus: Int?
    package var readingsListed = 0
    /// The patient's alerts the alert list still showed (their ids at the SUT).
    package var alertsListed: [String] = []
    /// Why it could not be judged (no answer, a 5xx, a deletion that failed), if so.
    package var unobservable: String?

    package init(patient: String) { self.patient = patient }

    /// The check's name.
    package var name: String { "nothing of patient \(patient) readable after deletion" }
}

extension Verdict {
    /// One check per deleted patient: a 2xx listing their stored readings, or an alert list still
    /// showing their alerts, is `readable-after-deletion`; a 404, 410, 401 or 403, or a 2xx without
    /// them, passes.
    package static func deletionChecks(_ reads: [DeletedPatientRead]) -> [Check] {
        reads.map { read in
            if let why = read.unobservable {
                return Check(kind: .access, name: read.name, rule: nil, finding: nil, detail: why, skipped: true)
            }
            var left: [String] = []
            if read.readingsListed > 0 { left.append("\(read.readingsListed) stored reading(s) still listed") }
            if !read.alertsListed.isEmpty {
                let ids = read.alertsListed.prefix(namedLeaks).joined(separator: ", ")
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
