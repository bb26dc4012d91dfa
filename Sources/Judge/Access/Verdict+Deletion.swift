import RunRecord

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
