import Histogram
import Traffic

/// What happened to one planned request.
package struct RequestOutcome: Sendable {
    /// The final HTTP status, nil when no response ever arrived.
    package var status: Int?
    /// The `field` of a 4xx body (`{"error", "field"}`, or a FHIR OperationOutcome's expression).
    package var field: String?
    /// Why the request failed without a response.
    package var error: String?
    package var attempts = 0
    /// Seconds between the first failed attempt and the final answer (0 when the first attempt was answered).
    package var waited = 0.0
    /// The HTTP version of the final answer (`1.1`, `2`), empty for MQTT or no answer.
    package var httpVersion = ""

    /// An outcome; a request not yet answered has no status.
    package init(
        status: Int? = nil,
        field: String? = nil,
        error: String? = nil,
        attempts: Int = 0,
        waited: Double = 0,
        httpVersion: String = ""
    ) {
        self.status = status
        self.field = field
        self.error = error
        self.attempts = attempts
        self.waited = waited
        self.httpVersion = httpVersion
    }
}

/// What became of a request's readings, as a verdict counts them.
package enum ReadingFate: Sendable {
    /// Answered with a 2xx.
    case acknowledged
    /// Answered with any other status.
    case rejected
    /// Never answered.
    case failed

    /// The fate of readings whose request ended with `status` (nil: no answer).
    package init(status: Int?) {
        switch status {
        case nil: self = .failed
        case let s? where s < 300: self = .acknowledged
        default: self = .rejected
        }
    }
}

/// An alert as observed from the SUT (polling `GET /api/v1/alerts`).
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
    package var onlySeverityUnmapped: Bool { unmappedSeverity != nil && unmapped == "severity '\(unmappedSeverity!)'" }

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

/// The raw result of sending a plan to a SUT.
package struct LiveRunResult: Sendable {
    /// The requests sent, in plan order, without their bodies (a streamed plan is not kept whole).
    package var requests: [SentRequest] = []
    /// The plan index of the request each observed alert came from, when its evidence names none of
    /// the plan's readings (ids of the SUT's own, or none): found by the alert's time (the runner's
    /// `AlertCause`). The alert's trace is that request's.
    package var alertRequests: [String: Int] = [:]
    package var outcomes: [RequestOutcome]
    package var alerts: [ObservedAlert]
    /// Reading → acknowledgement, µs from each reading's intended send time.
    package var ackLatency: Histogram<UInt64>
    /// Reading → alert, µs from the intended send time of the alert's last evidence reading to the poll
    /// that first saw it (for an alert citing no evidence, or only ids of the SUT's own: from the
    /// request of the alert's patient that its `raisedAt` points at, the runner's `AlertCause`).
    package var alertLatency: Histogram<UInt64>
    /// How late the harness itself dispatched requests against the schedule, µs.
    package var schedulingLag: Histogram<UInt64>
    /// How late the harness's own timer woke through the run, µs (the runner's hiccup meter: a
    /// task that sleeps 10 ms again and again): stalls of the machine or the harness that nothing
    /// the SUT does can cause, which delay every request and every alert poll by as much.
    package var hiccups = Histogram<UInt64>.latency()
    /// How often the hiccup meter asks to wake.
    package static let hiccupInterval = Duration.milliseconds(10)
    /// True when the SUT stopped answering (every retry failed).
    package var unreachable: Bool
    /// What each push observer (`--observe`) saw.
    package var push: [PushDelivery] = []
    /// The devices carried over a real BLE link (`--ble hci`), and how their readings fared.
    package var ble: BLELinkSummary?
    /// How long the end of the run waited for expected alerts that were still not listed, e.g. "not
    /// listed within 31 s after the last reading was answered (…)"; nil when none was missing.
    package var alertWait: String?
    /// The longest time from one alert poll's start to the next's: the poll interval (50 ms) unless
    /// reading the alert list took long enough to stretch it (the runner's `pollPause`), and with it
    /// how finely reading → alert latency is known. Zero when the alerts were not polled.
    package var longestPollCycle: Duration = .zero
    /// How finely reading → alert latency is known when comparing runs: the median of the polls'
    /// usual cycles, each the pause after a poll and the fastest of the last few reads — the pacing's
    /// cycle, without a single read the machine held up (which ``longestPollCycle`` keeps), and
    /// without a moment of load that stretched a few pauses: most alerts were seen within it. Zero
    /// when the alerts were not polled.
    package var pollResolution: Duration = .zero
    /// The MQTT messages' fate beyond the broker (nil for a run without MQTT messages).
    package var mqtt: MQTTDelivery?
    /// The network the devices' traffic went through (`--network`), in words, and how much longer
    /// it lets each latency be (ms): the golden file's budgets are read against it.
    package var network: (summary: String, allowance: Double)?
    /// A misconfiguration the run revealed (every request refused with 401/403/404, an outage that
    /// never ended, an alert source without a readable alert list): the run is an infrastructure
    /// failure, not a verdict on the SUT's clinical behaviour.
    package var misconfiguration: String?
    /// Readings not sent because the SUT's conformance statement claims no reading of their kind:
    /// how many, and the kind of each corrupted one by its id.
    package var withheld: (count: Int, corrupt: [String: String]) = (0, [:])
    /// False when the SUT's alerts do not say which readings raised them (a profile that maps no
    /// `evidence` field): the evidence check is then skipped rather than failed.
    package var citesEvidence = true
    /// What was read back of the SUT's stored readings (nil: the profile names no `stored-readings`).
    package var stored: StoredReadBack?
    /// The access-control matrix's probes as the SUT answered them (empty: not run).
    package var access: [AccessProbe] = []
    /// The notifications each person's inbox held after the run (nil: not read: no scenario
    /// patient has an escalation policy, or the profile maps no `notifications:`).
    package var notifications: [ObservedNotification]?
    /// Why the notifications were not read, for the skipped recipients check.
    package var notificationsUnread: String?
    /// The care team's actions of the timeline, as carried out.
    package var careActions: [CareActionOutcome] = []
    /// The trace context the run sent with its requests (nil: none).
    package var trace: RequestTrace?
    /// The people whose notifications were read with their own credential after the run.
    package var inboxesRead: [String] = []
    /// The SUT's audit trail as read back after the run (nil: not read, as no person's credential
    /// was used).
    package var audit: AuditReadBack?
    /// What could still be read of each patient once the scenario deleted them (empty: not
    /// deleted, as a target without a lifecycle `reset:` keeps its patients).
    package var deleted: [DeletedPatientRead] = []
    /// False when the SUT publishes no refusals of MQTT readings (`mqtt.rejections: none`): the
    /// expected rejections of MQTT readings are then skipped rather than failed.
    package var refusesOverMQTT = true

    package init(
        outcomes: [RequestOutcome],
        alerts: [ObservedAlert],
        ackLatency: Histogram<UInt64>,
        alertLatency: Histogram<UInt64>,
        schedulingLag: Histogram<UInt64>,
        unreachable: Bool,
        push: [PushDelivery] = []
    ) {
        self.outcomes = outcomes
        self.alerts = alerts
        self.ackLatency = ackLatency
        self.alertLatency = alertLatency
        self.schedulingLag = schedulingLag
        self.unreachable = unreachable
        self.push = push
    }
}

/// A push channel a SUT delivers alerts on (`vitalsim run --observe`).
package enum PushChannel: String, Sendable, CaseIterable {
    /// `GET /api/v1/alerts/stream` (Server-Sent Events, resumed with Last-Event-ID).
    case sse
    /// MQTT `alerts/{patientId}` on the broker the SUT publishes to.
    case mqtt
    /// Alerts POSTed by the SUT to the harness's webhook receiver.
    case webhook
}

/// What one push observer saw: the alert ids that arrived, and how many arrivals repeated an id.
package struct PushDelivery: Sendable {
    package var kind: PushChannel
    /// The ids of the alerts that arrived at least once.
    package var delivered: Set<String> = []
    package var alerts: [String: ObservedAlert] = [:]
    package var repeats = 0
    /// Reading → alert as delivered on this channel, µs.
    package var latency = Histogram<UInt64>.latency()

    package init(kind: PushChannel) { self.kind = kind }
}

extension Histogram where Count == UInt64 {
    /// A latency histogram in microseconds: up to one hour, three significant digits.
    package static func latency() -> Histogram<UInt64> {
        Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    }
}
