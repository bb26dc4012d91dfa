/// How an observation differs from the golden file: the one classification of a failed check.
package enum Finding: String, Sendable, CaseIterable, Codable {
    /// An expected alert never came.
    case missed
    /// An expected alert came after its window (within the pairing bound).
    case late
    /// An expected alert came before its window (within the pairing bound).
    case early
    /// An alert that no expectation accounts for.
    case spurious
    /// An alert whose rule or severity name the SUT profile does not map to VitalSim's: the
    /// profile's `rules:`/`severities:` need the name, or the SUT raised something unknown.
    case unmapped
    /// An alert of a mapped rule, raised in its expected window, whose severity name the profile's
    /// `severities:` does not map: the severity could not be judged.
    case unmappedSeverity = "unmapped-severity"
    /// A second alert of a rule and patient within reach (window ± pairing bound) of an expected
    /// alert that another alert already met.
    case duplicate
    /// An expected alert with another severity.
    case wrongSeverity = "wrong-severity"
    /// An alert whose evidence cites readings that were never sent, belong to another patient, were
    /// rejected, or include none its rule reads inside its window.
    case wrongEvidence = "wrong-evidence"
    /// A request answered with another status or error field than the golden file expects.
    case validationMismatch = "validation-mismatch"
    /// A latency percentile over its budget, or a budget with nothing measured.
    case budgetExceeded = "budget-exceeded"
    /// Readings lost on their way: MQTT messages the broker acknowledged that never reached the
    /// SUT, readings a BLE link never carried.
    case lost
    /// HTTP requests the SUT never answered finally (no response, or 5xx after every retry):
    /// whether it kept their readings anyway is for the stored-data checks to say.
    case unanswered
    /// A reading the SUT acknowledged is not among the readings it holds when read back.
    case lostAfterAck = "lost-after-ack"
    /// A reading the SUT acknowledged is held with another value, unit or device time than it was sent with.
    case altered
    /// The SUT's count of stored readings for a day or month differs from what it acknowledged.
    case countMismatch = "count-mismatch"
    /// A reading the SUT acknowledged is held more than once: a retry (after a reset or a timeout)
    /// stored again, where at-least-once delivery needs the SUT to make it idempotent.
    case storedTwice = "stored-twice"
    /// A read-back narrowed by time period or kind leaves out readings the SUT holds there, or lists
    /// readings outside it.
    case queryMismatch = "query-mismatch"
    /// A request the SUT had to refuse was granted: a person reached the data of a patient not in
    /// their care, wrote what their role may not, or an expired or revoked credential was honoured.
    case accessGrantedWrongly = "access-granted-wrongly"
    /// A request the SUT had to grant was refused, or answered without the patient's data: a person
    /// could not reach the data of a patient in their care.
    case accessRefusedWrongly = "access-refused-wrongly"
    /// A person the alert had to reach when it was raised was never notified.
    case missingRecipient = "missing-recipient"
    /// A person was notified of an alert who is not among its recipients (the patient's escalation
    /// policy for its severity does not name them).
    case wrongRecipient = "wrong-recipient"
    /// An escalation that was due (nobody acted on the alert before its deadline) never came.
    case missedEscalation = "missed-escalation"
    /// A notification came later than its deadline and the golden file's late tolerance.
    case lateEscalation = "late-escalation"
    /// A later step's people were notified before their deadline (less the early tolerance).
    case earlyEscalation = "early-escalation"
    /// An alert escalated although someone in the care team acted on it before the deadline.
    case escalatedDespiteAck = "escalated-despite-ack"
    /// A care-team action on an alert was refused by the SUT, or could not be sent (no alert to act on).
    case actionRefused = "action-refused"
    /// A read or change the harness made with a person's credential, which the SUT granted, is not
    /// in its audit trail (by that person, of that patient, within the clock tolerance of when it
    /// was made).
    case auditMissing = "audit-missing"
    /// The audit trail records a read or change by a person of the scenario that the harness never
    /// made with their credential.
    case auditInvented = "audit-invented"
    /// After the scenario deleted a patient, the SUT still listed their stored readings or alerts.
    case readableAfterDeletion = "readable-after-deletion"
    /// The scenario's traffic differs from the golden file's digest.
    case trafficChanged = "traffic-changed"
    /// A latency path is slower than in the `--baseline` run beyond noise (``LatencyComparison``).
    case latencyRegression = "latency-regression"
    /// A waiver of the waivers file expired: renew or remove it.
    case waiverExpired = "waiver-expired"
}
