/// What a check is about: one JUnit test case each, grouped by kind in reports.
package enum CheckKind: String, Sendable, CaseIterable, Codable {
    /// An expected alert was raised in its window with its severity.
    case alert
    /// No alert beyond the expected ones was raised: one check per unexpected alert (spurious or
    /// duplicate), or one passing check when there is none.
    case noOtherAlerts = "no-other-alerts"
    /// The readings an alert cites as evidence are its patient's, sent and accepted, and include one
    /// its rule reads inside its window: one check per alert whose evidence is wrong, or one passing check.
    case evidence
    /// A request was rejected (or accepted) as the golden file expects.
    case validation
    /// A refusal names the field the golden file expects (a SHOULD by default: see
    /// ``RequirementAspect/rejectionField``).
    case refusedField = "refused-field"
    /// A latency percentile stayed within its budget.
    case budget
    /// Every reading reached the SUT, and every alert arrived on each observed push channel.
    case delivery
    /// Every acknowledged reading is still stored, with the value, unit and device time it was sent
    /// with, and the SUT's counts per day and month match what it acknowledged (read back through
    /// the SUT profile's `stored-readings:`).
    case storedData = "stored-data"
    /// A person's credential was granted or refused an operation on a patient as their role and the
    /// patient's care team say (the access-control matrix).
    case access
    /// An alert reached the people its patient's escalation policy names, each on time, and nobody
    /// else (notifications read from each person's inbox).
    case recipients
    /// A care-team action of the timeline (acknowledge, dismiss, respond) was taken by the SUT.
    case careAction = "care-action"
    /// The SUT's audit trail holds the reads and changes the harness made with each person's
    /// credential, and no access of theirs it did not make.
    case audit
    /// The scenario still produces the traffic the golden file was recorded from.
    case traffic
    /// A waiver of the waivers file that has expired: it fails until it is renewed or removed.
    case waiver

    /// The golden file's `levels:` entry that sets this kind's requirement level; nil: always SHALL.
    package var aspect: RequirementAspect? {
        switch self {
        case .alert: .alerts
        case .noOtherAlerts: .otherAlerts
        case .evidence: .evidence
        case .validation: .rejectionStatus
        case .refusedField: .rejectionField
        case .budget: .budgets
        case .delivery: .delivery
        case .storedData: .storedData
        case .audit: .audit
        case .traffic, .waiver, .access, .recipients, .careAction: nil
        }
    }
}
