/// How binding a check's requirement is, in the manner of RFC 2119: a SHALL check that fails fails
/// the run; a SHOULD check that fails is a warning, unless the run is `--strict`.
package enum RequirementLevel: String, Sendable, Codable, CaseIterable {
    case shall = "SHALL"
    case should = "SHOULD"
}

/// Why a failed check does not fail the run: the gate's decision, shown beside the finding in every
/// report so that nothing excused reads as a pass.
package enum Excuse: Sendable, Equatable, Codable {
    /// A SHOULD requirement not met, in a run that is not `--strict`: a warning.
    case warning
    /// The check is about something the SUT profile's conformance statement does not claim.
    case notApplicable(reason: String)
    /// A waiver of the waivers file covers the check.
    case waived(reason: String, ticket: String?)
    /// The check already failed in the `--baseline` verdict.
    case known

    /// The word reports use: `warning`, `not-applicable`, `waived`, `known`.
    package var label: String {
        switch self {
        case .warning: "warning"
        case .notApplicable: "not-applicable"
        case .waived: "waived"
        case .known: "known"
        }
    }

    /// One line for reports: why the finding does not fail the run.
    package var explanation: String {
        switch self {
        case .warning: "a SHOULD requirement (fails only with --strict)"
        case .notApplicable(let reason): "not applicable: \(reason)"
        case .waived(let reason, let ticket): "waived: \(reason)" + (ticket.map { " (\($0))" } ?? "")
        case .known: "known failure: it failed in the --baseline verdict too"
        }
    }
}

/// What a golden file's `levels:` sets a requirement level for: each group of checks.
package enum RequirementAspect: String, Sendable, CaseIterable, Codable {
    /// Each expected alert raised in its window with its severity.
    case alerts
    /// No alert beyond the expected ones (spurious, duplicate, unmapped).
    case otherAlerts = "other-alerts"
    /// The readings an alert cites as its evidence.
    case evidence
    /// A corrupt reading refused with the expected status.
    case rejectionStatus = "rejection-status"
    /// A refusal naming the refused field. The VitalEdge SDS asks only for "400 Bad Request: Invalid data",
    /// so naming the field is a SHOULD by default.
    case rejectionField = "rejection-field"
    /// Latency budgets.
    case budgets
    /// Every reading answered, every push delivered.
    case delivery
    /// What the SUT stored, read back.
    case storedData = "stored-data"
    /// The audit trail: people's reads and changes recorded, nothing invented.
    case audit

    /// The level when a golden file says nothing: SHOULD for naming the refused field and for
    /// evidence (neither is asked for by the source documents), SHALL for the rest.
    package var defaultLevel: RequirementLevel {
        switch self {
        case .rejectionField, .evidence: .should
        default: .shall
        }
    }
}
