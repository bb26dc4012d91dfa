/// An alert as observed from the SUT (its alert list, or a push channel), in VitalSim's names.
package struct ObservedAlert: Sendable, Equatable, Codable {
    package var alertID: String
    package var patientID: String
    package var rule: String
    package var severity: String
    /// Device time, Unix ms.
    package var raisedAt: Int64
    package var evidence: [String]
    /// What of the SUT's names a SUT profile could not map to VitalSim's (e.g. `rule 'HIGH_BP'`):
    /// such an alert is judged `unmapped`, never paired with an expectation.
    package var unmapped: String?
    /// The SUT's severity name, when the profile's `severities:` does not map it: an alert whose rule
    /// is mapped but whose severity is not is still paired with its expectation, and judged
    /// `unmapped-severity` rather than as an unknown alert.
    package var unmappedSeverity: String?

    /// True when only the severity has no mapping (the rule has one, or needs none).
    package var onlySeverityUnmapped: Bool {
        guard let unmappedSeverity else { return false }
        return unmapped == "severity '\(unmappedSeverity)'"
    }

    package init(
        alertID: String,
        patientID: String,
        rule: String,
        severity: String,
        raisedAt: Int64,
        evidence: [String]
    ) {
        self.alertID = alertID
        self.patientID = patientID
        self.rule = rule
        self.severity = severity
        self.raisedAt = raisedAt
        self.evidence = evidence
    }
}
