import VitalSimCore

extension Oracle {
    /// Where a golden file contradicts the oracle, for the rules the oracle derives: an expected alert
    /// the oracle does not derive, or a derived alert no expectation's window holds.
    package static func compare(_ derived: [OracleAlert], _ golden: GoldenFile) -> [String] {
        let covered = Set(derivedRuleIDs)
        var expectations = golden.alerts.filter { covered.contains($0.rule) }
        var out: [String] = []
        for a in derived {
            if let position = expectations.firstIndex(where: {
                $0.patientID == a.patientID && $0.rule == a.rule && ($0.from...$0.to).contains(a.raisedAt)
            }) {
                if expectations[position].severity != a.severity {
                    out.append(
                        "\(a.rule) patient \(a.patientID): golden severity \(expectations[position].severity), oracle \(a.severity)"
                    )
                }
                expectations.remove(at: position)
            } else {
                out.append(
                    "\(a.rule) patient \(a.patientID) at \(CivilTime(unixMilliseconds: a.raisedAt).iso8601(fractional: true)) (evidence \(a.evidence)) is derived but not expected"
                )
            }
        }
        for e in expectations {
            out.append(
                "\(e.rule) patient \(e.patientID) expected \(CivilTime(unixMilliseconds: e.from).iso8601(fractional: true))…\(CivilTime(unixMilliseconds: e.to).iso8601(fractional: true)) is not derived"
            )
        }
        return out
    }
}
