import VitalSimCore

/// One notification a person's inbox at the SUT held after a run (read with that person's
/// credential through the SUT profile's `notifications:`).
package struct ObservedNotification: Sendable, Equatable {
    /// The person whose inbox held it.
    package var recipient: String
    /// The alert's id at the SUT.
    package var alertID: String
    /// Device time of the notification (Unix ms).
    package var at: Int64

    package init(recipient: String, alertID: String, at: Int64) {
        self.recipient = recipient
        self.alertID = alertID
        self.at = at
    }
}

/// A care-team action of the scenario's timeline as the run carried it out: the alert it was for
/// (nil when none had been observed by then) and what the SUT answered.
package struct CareActionOutcome: Sendable, Equatable {
    package var action: CareTeamAction
    /// The alert acted on, as observed (its id at the SUT and device time).
    package var alert: ObservedAlert?
    /// The SUT's answer (nil when nothing was sent, or no answer came).
    package var status: Int?
    /// Why nothing was sent or what went wrong, for the check's detail.
    package var problem: String?

    /// Whether the SUT took the action (answered a status the profile expects).
    package var accepted: Bool
    /// When the request went out and its answer came (wall clock, Unix ms), once sent.
    package var sentAt: Int64?
    package var answeredAt: Int64?

    package init(action: CareTeamAction, alert: ObservedAlert?, status: Int?, problem: String?, accepted: Bool = false)
    {
        self.action = action
        self.alert = alert
        self.status = status
        self.problem = problem
        self.accepted = accepted
    }
}

/// What the people's inboxes held after the run: every notification read with each person's own
/// credential, or why they were not read (the recipients check is then skipped).
package struct InboxesObservation: Sendable, Equatable {
    /// The notifications read; nil when they were not (``unread`` says why).
    package var notifications: [ObservedNotification]?
    /// Why the notifications were not read, for the skipped recipients check.
    package var unread: String?
    /// The people whose inboxes were read with their own credential (their reads are allowed in
    /// the audit trail).
    package var readers: [String] = []

    package init(notifications: [ObservedNotification]?, unread: String? = nil, readers: [String] = []) {
        self.notifications = notifications
        self.unread = unread
        self.readers = readers
    }
}

/// The care team's actions of the timeline, as the run carried them out.
package struct CareActionsObservation: Sendable, Equatable {
    package var outcomes: [CareActionOutcome]

    package init(outcomes: [CareActionOutcome]) { self.outcomes = outcomes }
}
