import Histogram
import RunRecord
import SUTAdapter
import Traffic
import VitalSimCore

/// The state of one live run and its transitions: what the sender's dispatch, its workers, the alert
/// observer's polls and push channels and the MQTT verdict reader report (a request due, an answer,
/// the alerts a poll listed, an alert pushed, the SUT's verdict on an MQTT message) goes in, and what
/// the runner must do next comes out. It reads no clock and does no I/O: every moment is handed to it
/// as the time since the run began, so its tests drive it by hand. The runner keeps it in one lock
/// (``LiveRunner``) and acts on what a transition returns outside that lock.
struct RunState: Sendable {
    /// What the run's settings make of an answer.
    struct Limits: Sendable {
        /// How long an outage (429 or 503 throughout) may last before the run stops.
        var outageLimit: Duration
        /// How messages name the settings they point at.
        var names: SettingNames
        /// The statuses with which the SUT refuses an invalid reading (judged as the golden files' 400).
        var rejectionStatuses: Set<Int> = [400]
    }

    let limits: Limits

    // The traffic: each request's outcome and intended send time by plan index, the latencies.
    private(set) var outcomes: [RequestOutcome] = []
    /// When each request was due, since the run began (nil: not sent, as the run had stopped).
    private(set) var intended: [Duration?] = []
    private(set) var ack = Histogram<UInt64>.latency()
    private(set) var lag = Histogram<UInt64>.latency()
    /// How late the harness's own timer woke, µs.
    private(set) var hiccups = Histogram<UInt64>.latency()
    private(set) var answered = 0
    /// Scenario time (virtual ms) of the latest request dispatched.
    private(set) var reached: Int64 = 0
    /// True once the SUT has answered any request.
    private(set) var reachable = false
    /// True when a request got no answer after every retry.
    private(set) var unreachable = false
    /// Set once the rest of the plan is not to be sent: a request without an answer, an outage past
    /// the limit, every answer refusing the run's requests, a bound the SUT's answers passed.
    private(set) var aborted = false
    /// Set once the run has ended: the tasks that run until told stop.
    private(set) var stopped = false
    /// Answers that point at a misconfiguration rather than at the SUT's clinical behaviour.
    private(set) var health = RunHealth()
    /// The last request carrying a reading of a patient stamped at a device time (only from a plan
    /// that keeps device times: a profile whose alerts cite no evidence).
    private(set) var stamped: [DeviceTimeStamp: Int] = [:]

    // The alerts: each first seen, in order, and what each push channel delivered.
    private(set) var firstSeen: [String: (alert: ObservedAlert, at: Duration)] = [:]
    private(set) var order: [String] = []
    /// Each alert a push channel delivered and when it first arrived, by channel.
    private(set) var pushSeen: [[String: (alert: ObservedAlert, at: Duration)]]
    private(set) var push: [PushDelivery]
    /// True once the wait for quiet at the run's end polls the alerts (the poller then stops).
    private(set) var quietWait = false
    /// What the end of the run waited for, when expected alerts were missing.
    private(set) var alertWait: String?
    /// How the alert list is paced.
    var pacing: PollPacing

    // The SUT's verdicts on MQTT messages.
    /// Rejections the SUT published, by reading id.
    private(set) var mqttRejections: [String: (status: Int, field: String)] = [:]
    /// Readings the SUT confirmed.
    private(set) var mqttConfirmed: Set<String> = []
    /// The broker's latest `$SYS/broker/publish/messages/dropped` (embedded broker only).
    private(set) var brokerDropped: Int?

    /// Distinct alerts one run keeps, from every poll and push channel together.
    static let observedAlertLimit = AlertList.alertLimit

    static let observedAlertProblem =
        "the SUT reported more than \(observedAlertLimit) distinct alerts during the run, more than a scenario can raise: the harness keeps no more and stops the run"

    /// A run observing `channels` besides its alert list, polled at `pacing`.
    init(limits: Limits, channels: [PushChannel], pacing: PollPacing) {
        self.limits = limits
        pushSeen = channels.map { _ in [:] }
        push = channels.map { PushDelivery(kind: $0) }
        self.pacing = pacing
    }

    /// Request `index` of the plan falls due at `intended`, `lag` after it was scheduled; its device
    /// times are kept for alerts that cite no evidence.
    mutating func due(_ index: Int, _ request: PlannedRequest, intended: Duration, lag: Duration) {
        self.lag.record(Duration.nonNegativeMicroseconds(lag))
        outcomes.append(RequestOutcome())
        self.intended.append(intended)
        reached = request.sendAt
        // Device times travel only in a plan made for alerts without evidence (the last request wins).
        for time in request.deviceTimes { stamped[DeviceTimeStamp(patient: request.patientID, time: time)] = index }
    }

    /// A request the dispatcher skipped as the run had stopped: recorded as not sent.
    mutating func skipped() {
        outcomes.append(notSent)
        intended.append(nil)
    }

    /// A worker takes request `index` off its queue, at `now` when the plan runs at `--speed max`
    /// (a request is then due when a connection is free for it). False when the run has stopped:
    /// the request is recorded as not sent.
    mutating func takes(_ index: Int, dueNow now: Duration?) -> Bool {
        guard !aborted else {
            outcomes[index] = notSent
            return false
        }
        if let now { intended[index] = now }
        return true
    }

    /// The outcome of a request the run did not send because it had stopped.
    var notSent: RequestOutcome {
        RequestOutcome(
            status: nil,
            field: nil,
            error: "not sent: " + (health.abortReason ?? "the SUT stopped answering"),
            attempts: 0
        )
    }

    /// What the runner reports after an answer.
    struct Answered: Equatable, Sendable {
        /// Requests answered so far, and the scenario time the requests sent reach.
        var count: Int
        var reached: Int64
        /// Progress is reported every 50 answers.
        var reportsProgress: Bool { count % 50 == 0 }
    }

    /// Request `index` ended with `outcome` at `now` (on `route`): the acknowledgement latency of its
    /// `readings` recorded, and the run stopped when the outcome calls for it.
    mutating func answered(
        _ index: Int,
        _ outcome: RequestOutcome,
        readings: Int,
        at now: Duration,
        route: String
    ) -> Answered {
        answered += 1
        outcomes[index] = outcome
        if outcome.status == nil {
            // Not sent for want of credentials or a route is a misconfiguration (``RunHealth``), not an
            // unreachable SUT.
            if health.credentialProblem == nil, health.routeProblem == nil { unreachable = true }
            aborted = true
        }
        if let reason = health.answered(outcome.status, route: route) {
            aborted = true
            health.abortReason = health.abortReason ?? reason
        }
        // An outage that outlasted the outage limit (429 or 503 throughout): the SUT is not coming back.
        if let status = outcome.status, RunHealth.outageStatuses.contains(status),
            outcome.waited >= limits.outageLimit.seconds
        {
            aborted = true
            health.abortReason =
                health.abortReason
                ?? "the SUT answered \(status) for longer than \(limits.names[.outageLimit]) without recovering"
        }
        if let status = outcome.status, status < 500, let due = intended[index] {
            ack.record(Duration.nonNegativeMicroseconds(now - due), count: UInt64(readings))
        }
        return Answered(count: answered, reached: reached)
    }

    /// Readings sent alongside the plan (over a BLE link) were acknowledged after `samples` µs.
    mutating func acknowledgedAlongside(_ samples: [UInt64]) {
        for sample in samples { ack.record(sample) }
    }

    /// An answer of the SUT to `method url` with `status`: it was reachable, and a refusal of the
    /// route or an outage is noted for the run's health (the request named only then).
    mutating func replied(_ method: String, _ url: String, status: Int, body: [UInt8]) {
        reachable = true
        if RunHealth.configurationStatuses.contains(status) {
            health.noteRefusal("\(method) \(url)", status: status, body: body)
        } else if RunHealth.outageStatuses.contains(status) {
            health.noteOutage("\(method) \(url)", status: status, body: body)
        }
    }

    /// A request's credentials could not be had: the run stops as misconfigured.
    mutating func lacksCredentials(_ problem: String) {
        health.credentialProblem = health.credentialProblem ?? problem
        aborted = true
    }

    /// A request the profile's routes cannot make: the run stops as misconfigured.
    mutating func unroutable(_ reason: String) {
        health.routeProblem = health.routeProblem ?? reason
        aborted = true
    }

    /// Stops the run at a bound the SUT's answers passed: nothing more is sent or waited for, and
    /// the scenario is not judged (exit 3 naming the bound).
    mutating func reachBound(_ problem: String) {
        health.boundReached = health.boundReached ?? problem
        aborted = true
    }

    /// The harness's own timer woke `late` µs after it asked, at `interval` µs between wake-ups.
    mutating func woke(late: UInt64, interval: UInt64) {
        _ = hiccups.recordCorrectedValue(late, expectedInterval: interval)
    }

    /// The alerts of the run listed so far, in the order first seen.
    var listed: [ObservedAlert] { order.compactMap { firstSeen[$0]?.alert } }

    /// How many things the run has observed (alerts, the SUT's verdicts on MQTT messages): while it
    /// grows, the wait at the run's end goes on.
    var observations: Int { order.count + mqttConfirmed.count + mqttRejections.count }

    /// Whether the poller goes on polling: not once the run stopped, the wait at its end took the
    /// polling over, or a bound was reached.
    var keepsPolling: Bool { !stopped && !quietWait && health.boundReached == nil }

    /// A poll listed `alerts` (the run's own, on device time) at `now`; the new ones are recorded as
    /// first seen then, up to the bound of alerts a run keeps.
    mutating func polled(_ alerts: [ObservedAlert], at now: Duration, unreadable list: AlertList) {
        health.pollSucceeded(unreadable: list)
        for alert in alerts where firstSeen[alert.alertID] == nil {
            guard firstSeen.count < Self.observedAlertLimit else {
                reachBound(Self.observedAlertProblem)
                break
            }
            firstSeen[alert.alertID] = (alert, now)
            order.append(alert.alertID)
        }
    }

    /// A poll failed with `problem` (at a bound of the harness when `atBound`).
    mutating func pollFailed(_ problem: String, atBound: Bool) {
        health.pollFailed(problem)
        if atBound { reachBound(problem) }
    }

    /// What a push observer does after an arrival.
    enum PushAction: Equatable, Sendable {
        case keepObserving
        /// The bound of alerts a run keeps was reached: the observer stops.
        case stop
    }

    /// Push channel `channel` delivered `alert` at `now`; when the channel is the run's only alert
    /// source (`onlySource`), what it pushes is what the SUT lists.
    mutating func pushed(_ alert: ObservedAlert, on channel: Int, onlySource: Bool, at now: Duration) -> PushAction {
        let fresh = pushSeen[channel][alert.alertID] == nil
        if fresh, pushSeen[channel].count >= Self.observedAlertLimit || firstSeen.count >= Self.observedAlertLimit {
            reachBound(Self.observedAlertProblem)
            return .stop
        }
        if onlySource, firstSeen[alert.alertID] == nil {
            firstSeen[alert.alertID] = (alert, now)
            order.append(alert.alertID)
        }
        if fresh {
            pushSeen[channel][alert.alertID] = (alert, now)
        } else {
            push[channel].repeats += 1
        }
        return .keepObserving
    }

    /// The SUT refused MQTT reading `id` with `status`, naming `field`, on `topic`.
    mutating func mqttRefused(_ id: String, status: Int, field: String, topic: String, body: [UInt8]) {
        if mqttRejections[id] == nil { mqttRejections[id] = (status, field) }
        if RunHealth.configurationStatuses.contains(status) {
            health.noteRefusal("MQTT refusal on \(topic)", status: status, body: body)
        }
        if RunHealth.outageStatuses.contains(status) { health.noteMQTTThrottled(topic, status: status, body: body) }
    }

    /// The SUT confirmed the MQTT readings `ids`.
    mutating func mqttConfirmed(_ ids: [String]) { mqttConfirmed.formUnion(ids) }

    /// The broker counted `dropped` messages it could not deliver.
    mutating func brokerDropped(_ dropped: Int) { brokerDropped = dropped }

    /// The wait for quiet at the run's end begins: it polls the alerts from now on.
    mutating func beginQuietWait() { quietWait = true }

    /// The wait for quiet ended with expected alerts still missing, as `waited` says.
    mutating func alertsMissing(_ waited: String) { alertWait = waited }

    /// The run has ended: the poller, the hiccup meter and the verdict reader stop.
    mutating func stop() { stopped = true }
}

extension RunState {
    /// Traffic sent alongside the plan on the same schedule (a BLE link), as its alerts are timed:
    /// the schedule's origin since the run began, and when each alert's evidence was due (virtual ms
    /// from the scenario's start).
    struct AlongsideTiming: Sendable {
        var origin: Duration
        var due: @Sendable (ObservedAlert) -> Int64
    }

    /// An alert the run saw, for its span: the request that carried its cause, and how long ago (at
    /// the run's end) its cause was due and it was first seen.
    struct SeenAlert: Sendable {
        var alert: ObservedAlert
        var carrier: Int?
        var sinceDue: Duration
        var sinceSeen: Duration
    }

    /// What the run observed, once everything has stopped: the SUT's MQTT refusals applied to their
    /// messages, reading → alert latencies timed from the intended send time of each alert's cause
    /// (``AlertCause``: the request that carried its last evidence reading, or the one its device
    /// time points at; for traffic alongside, the moment its evidence was due on the shared
    /// schedule), each push channel's deliveries, the MQTT messages' fate, and any misconfiguration
    /// the answers reveal. `now` is the run's end.
    mutating func observation(
        sent: [SentRequest],
        start: Int64,
        alongside: AlongsideTiming?,
        speed: Double?,
        now: Duration,
        mqtt refusals: Bool?,
        alertURL: String
    ) -> (RunObservation, seen: [SeenAlert]) {
        applyMQTTRejections(sent: sent)
        var evidence = order.compactMap { firstSeen[$0]?.alert.evidence.last }
        for delivery in push { evidence += delivery.alerts.values.compactMap { $0.evidence.last } }
        let cause = AlertCause(
            sent: sent,
            evidence: evidence,
            stamped: stamped,
            start: start,
            alongside: alongside != nil
        )
        let intended = intended
        func due(_ alert: ObservedAlert) -> Duration? {
            if let carrier = cause.request(of: alert) { return intended[carrier] }
            guard let alongside, let speed else { return nil }
            return alongside.origin + .microseconds(Int64(Double(alongside.due(alert)) * 1000 / speed))
        }
        var latency = Histogram<UInt64>.latency()
        var seen: [SeenAlert] = []
        for id in order {
            guard let (alert, at) = firstSeen[id], let due = due(alert) else { continue }
            latency.record(Duration.nonNegativeMicroseconds(at - due))
            seen.append(
                SeenAlert(alert: alert, carrier: cause.request(of: alert), sinceDue: now - due, sinceSeen: now - at)
            )
        }
        for k in push.indices {
            push[k].alerts = pushSeen[k].mapValues(\.alert)
            push[k].delivered = Set(pushSeen[k].keys)
            for (alert, at) in pushSeen[k].values {
                guard let due = due(alert) else { continue }
                push[k].latency.record(Duration.nonNegativeMicroseconds(at - due))
            }
        }
        var observation = RunObservation(
            traffic: TrafficObservation(
                outcomes: outcomes,
                ackLatency: ack,
                schedulingLag: lag,
                unreachable: unreachable
            ),
            alerts: AlertObservation(observed: listed, latency: latency, push: push)
        )
        observation.traffic.requests = sent
        for id in order {
            guard let alert = firstSeen[id]?.alert, alert.evidence.last.flatMap({ cause.carrier[$0] }) == nil,
                let i = cause.request(of: alert)
            else { continue }
            observation.alerts.requests[id] = i
        }
        observation.alerts.wait = alertWait
        observation.alerts.longestPollCycle = pacing.longestCycle
        observation.alerts.pollResolution = pacing.resolution
        observation.hiccups = hiccups
        observation.traffic.mqtt = refusals.map { mqttDelivery(sent: sent, refusals: $0) }
        observation.misconfiguration = health.problem(alertURL: alertURL, answered: answered, names: limits.names)
        return (observation, seen)
    }

    /// Applies the SUT's refusals to the MQTT messages they name. An MQTT message is acknowledged by
    /// the broker's PUBACK; the SUT's verdict on it arrives on its refusals topic (errors/{patientId}),
    /// read as an HTTP refusal is.
    mutating func applyMQTTRejections(sent: [SentRequest]) {
        for (i, request) in sent.enumerated() where request.topic != nil && outcomes[i].status != nil {
            guard let id = request.firstReading, let refusal = mqttRejections[id] else { continue }
            // A refusal for want of credentials is a configuration refusal, as over HTTP (``RunHealth``).
            if RunHealth.configurationStatuses.contains(refusal.status) {
                health.accepted -= 1
                health.refused += 1
            }
            outcomes[i].status = limits.rejectionStatuses.contains(refusal.status) ? 400 : refusal.status
            outcomes[i].field = request.expectedRejection?.canonical(refusal.field) ?? refusal.field
        }
    }

    /// What became of the acknowledged MQTT messages (each carries one reading). Without the SUT's
    /// refusals (`refusals: false`), a corrupted reading it did not confirm is taken as refused.
    func mqttDelivery(sent: [SentRequest], refusals: Bool = true) -> MQTTDelivery {
        var delivery = MQTTDelivery()
        delivery.sutConfirms = !mqttConfirmed.isEmpty
        delivery.brokerDropped = brokerDropped
        for (i, request) in sent.enumerated()
        where request.topic != nil && i < outcomes.count && outcomes[i].status != nil {
            delivery.acknowledged += 1
            guard let id = request.firstReading else { continue }
            if mqttRejections[id] != nil {
                delivery.rejected += 1
            } else if mqttConfirmed.contains(id) {
                delivery.confirmed += 1
            } else if !refusals, request.expectedRejection != nil {
                continue
            } else {
                delivery.unconfirmedCount += 1
                if delivery.unconfirmed.count < MQTTDelivery.namedLimit { delivery.unconfirmed.append(id) }
            }
        }
        return delivery
    }
}
