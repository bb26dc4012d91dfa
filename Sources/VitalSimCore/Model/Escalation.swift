/// One step of a patient's escalation policy: the people notified of an alert `after` it was
/// raised, unless someone acted on the alert before then (the IoT-AI SRS, System Features,
/// Notifications & Alerts: notifications go to the patient, caregiver or doctor, and the user's
/// action on them is logged).
public struct EscalationStep: Sendable, Equatable {
    /// How long after the alert is raised (ms of device time); 0 for the first step.
    public var after: Int64
    /// Who is notified (the ids of the patient or of care-team members), in file order.
    public var notify: [String]
    /// The scenario file's line of the step (0 when built in code), for messages.
    public var line: Int

    /// A step with every field given.
    public init(after: Int64, notify: [String], line: Int = 0) {
        self.after = after
        self.notify = notify
        self.line = line
    }

    /// Equal when the time and the people are (the line is where it was written, not what it is).
    public static func == (a: EscalationStep, b: EscalationStep) -> Bool { a.after == b.after && a.notify == b.notify }
}

/// Who is notified of a patient's alerts, per severity, and after how long unacknowledged the
/// next people are (`escalation:` of a scenario's patient). A severity without steps names no
/// recipients: who receives such alerts is not specified, and not judged.
public struct EscalationPolicy: Sendable, Equatable {
    /// The steps of each severity, in order of `after` (the first at 0).
    public var steps: [Severity: [EscalationStep]]

    /// A policy with the given steps.
    public init(steps: [Severity: [EscalationStep]] = [:]) { self.steps = steps }

    /// Whether no severity has steps.
    public var isEmpty: Bool { steps.values.allSatisfy(\.isEmpty) }

    /// The steps of alerts of `severity` (empty: recipients not specified).
    public func steps(for severity: Severity) -> [EscalationStep] { steps[severity] ?? [] }

    /// The severities with steps, from low to high.
    public var severities: [Severity] { Severity.allCases.filter { !(steps[$0] ?? []).isEmpty } }
}

/// What a person does with an alert (the IoT-AI SRS: acknowledge, dismiss, respond), or, stated so a
/// scenario reads as it is meant, that nobody does anything.
public enum CareAction: String, Sendable, CaseIterable, Codable {
    /// Seen and taken on; the alert stays open.
    case acknowledge
    /// Seen and closed as needing nothing.
    case dismiss
    /// Answered (a call, a message, a visit).
    case respond
    /// Nobody answers: the timeline says so, and no request is sent.
    case noResponse = "no-response"

    /// Whether the action stops the alert's escalation (every action but `no-response`).
    public var stopsEscalation: Bool { self != .noResponse }
}

/// A care-team member's action on a patient's alert in the timeline (`person` + `action`).
public struct CareTeamAction: Sendable, Equatable {
    /// When (virtual ms from the start).
    public var at: Int64
    /// Who acts: a member of the patient's care team, or the patient.
    public var person: String
    /// Whose alert.
    public var patient: String
    /// What they do.
    public var action: CareAction
    /// Which alert: the patient's latest one raised at or before `at`, of this rule when given.
    public var rule: String?
    /// The scenario file's line of the entry (0 when built in code), for messages.
    public var line: Int

    /// An action with every field given.
    public init(at: Int64, person: String, patient: String, action: CareAction, rule: String? = nil, line: Int = 0) {
        self.at = at
        self.person = person
        self.patient = patient
        self.action = action
        self.rule = rule
        self.line = line
    }

    /// Equal when everything but the line is.
    public static func == (a: CareTeamAction, b: CareTeamAction) -> Bool {
        a.at == b.at && a.person == b.person && a.patient == b.patient && a.action == b.action && a.rule == b.rule
    }
}
