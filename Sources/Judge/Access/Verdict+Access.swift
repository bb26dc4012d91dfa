import RunRecord
import VitalSimCore

extension Verdict {
    /// How many leaked resources a check names in its detail.
    static let namedLeaks = 3

    /// One check per probe of the access matrix: a request the SUT had to refuse and granted is
    /// `access-granted-wrongly` (naming what leaked or changed), one it had to grant and refused
    /// (or answered without the patient's data) is `access-refused-wrongly`; a probe with nothing
    /// to observe is skipped.
    package static func accessChecks(_ probes: [AccessProbe]) -> [Check] {
        probes.map(accessCheck)
    }

    static func accessCheck(_ probe: AccessProbe) -> Check {
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
