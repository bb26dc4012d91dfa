import Clocks
import Foundation
import Histogram
import Judge
import Locking
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// Sends a ``TrafficPlan`` over HTTP(S) with libcurl and MQTT 5 with libmosquitto: requests due at
/// their intended times (scaled by `speed`, or back to back with `speed == nil`), several keep-alive
/// connections in parallel with one patient's deliveries always on the same worker, HTTP and MQTT
/// alike (MQTT messages pipelined, an HTTP request sent only once the worker's messages are
/// acknowledged, so their order holds across transports), retries with
/// backoff on transport errors, 429 and 503; alerts are polled throughout. Latencies are measured
/// on the monotonic clock from the intended send time, so a slow SUT cannot hide its own delay
/// (no coordinated omission).
package final class LiveRunner: Sendable {
    let base: String
    /// Credentials of ingestion requests and alert reads.
    let auth: RequestAuth
    /// Where alerts are read, and how their names map to VitalSim's.
    let alertSource: AlertSource
    /// Where a 4xx body names the rejected field (a SUT profile's `ingestion.rejection-field`).
    let rejectionField: JSONPointer?
    /// The statuses with which the SUT refuses an invalid reading (`ingestion.rejection-status`).
    let rejectionStatuses: Set<Int>
    let mapping: SUTProfile.NameMapping
    let speed: Double?
    /// Every request and poll goes through one exchange: a libcurl multi handle (keep-alive
    /// connections, HTTP/2 where offered), or the one a test injects.
    let client: any HTTPExchange
    /// The libcurl client when the runner made one: its event-loop thread runs the workers.
    let multi: HTTPMultiClient?
    /// Ordered workers: one patient's deliveries always on the same one.
    let workers: Int
    let onDispatch: (@Sendable (Double) -> Void)?
    let onAnswer: (@Sendable (PlannedRequest, RequestOutcome, Double) -> Void)?
    let onObserved: (@Sendable (ObservedAlert, SentRequest?, Double, Double) -> Void)?
    /// The W3C trace context sent with each request and MQTT message (nil: none).
    let trace: RequestTrace?
    /// Poll interval for alerts, and how long the alert list must stay unchanged at the end.
    let pollInterval: Duration = .milliseconds(LatencyPath.alertPollMilliseconds)
    let quiet: Duration
    /// How long a request is retried through an outage of a SUT that has answered before (a restart):
    /// meanwhile its worker's later requests, and the plan's generator, wait behind it, so nothing is
    /// skipped and a patient's order holds. A SUT that has never answered gets six attempts. MQTT
    /// publishes are retried as long (the broker answered the connection before the run).
    let outageLimit: Duration
    /// When a request or message is retried, and when given up (``outageLimit`` included).
    var retries: RetryPolicy { RetryPolicy(outageLimit: outageLimit) }
    /// False once the SUT is known to be gone (the embedded SUT's process ended): no more retries.
    let isAlive: @Sendable () -> Bool
    /// A connected MQTT client, subscribed to `errors/+`, for plans with MQTT messages; the run disconnects it at the
    /// end.
    let mqtt: (any MQTTSession)?
    /// Where the SUT's verdicts on MQTT messages are read: ``mqtt`` itself, or a connection of the
    /// harness's own when the devices' connection goes through a network's weather.
    let mqttVerdicts: (any MQTTSession)?
    /// Every request of the plan is an MQTT message: the workers run on the MQTT client's thread.
    let mqttOnly: Bool
    let qos: Int
    /// Push channels observed alongside the alert API.
    let observers: [PushObserver]
    /// The MQTT client also reads the (embedded) broker's `$SYS` drop counter.
    let brokerCounters: Bool
    /// Called as the run goes (every 50 answers, and once at the end).
    let onProgress: (@Sendable (Progress) -> Void)?
    /// Messages for the user: what the run waits for at its end.
    let note: @Sendable (String) -> Void
    /// What the schedule, retries, waits and latencies are measured on: the monotonic clock, or one a
    /// test injects (a test clock advanced by hand, an immediate one).
    package let clock: AnyClock<Duration>
    /// Whether the run meters the harness's own hiccups (``Hooks/meterHiccups``).
    let metersHiccups: Bool
    /// A moment on ``clock``.
    package typealias Instant = AnyClock<Duration>.Instant
    /// How messages name the settings they point at.
    let names: SettingNames
    /// The ids of the run's patients and devices at the SUT: what the SUT reports is renamed back,
    /// and alerts of patients outside the run are left out.
    let naming: WireNaming
    /// Whether an alert of this (scenario) patient belongs to the run: in a sharded run, alerts of
    /// the patients of other shards are theirs to judge.
    let keepsPatient: @Sendable (String) -> Bool
    /// Where readings are sent: the base URL, or a network proxy in front of it (`--network`).
    let ingestionBase: String
    /// Where the SUT refuses MQTT readings (nil: it publishes no refusals, `mqtt.rejections: none`).
    let rejections: SUTProfile.MQTTRejections?
    /// Where the SUT confirms stored MQTT readings (nil: it publishes none, `mqtt.confirmations: none`).
    let confirmations: SUTProfile.MQTTConfirmations?
    /// Whether MQTT messages carry their device's credential (`mqtt.device-credentials`).
    let deviceCredentials: SUTProfile.DeviceCredentialCarriage

    /// How far a run is: requests answered, and the scenario time (virtual ms from its start) that the
    /// requests sent so far reach, out of `span` (the scenario's duration; 0 when not known).
    package struct Progress: Sendable {
        package var answered: Int
        package var reached: Int64
        package var span: Int64
        /// reached / span, 0...1 (1 when the span is not known).
        package var fraction: Double { span > 0 ? min(1, max(0, Double(reached) / Double(span))) : 1 }
    }

    /// The MQTT side of a run: a connected client (subscribed to `errors/+`; the run disconnects it at
    /// the end), the QoS of its messages, whether every request of the plan is an MQTT message (the
    /// workers then run on the client's thread), and whether the (embedded) broker's `$SYS` drop
    /// counter is read. With `verdicts`, the client only publishes (through a network's weather) and
    /// the SUT's refusals and confirmations are read on that second connection, which no weather cuts.
    package struct MQTTLink: Sendable {
        package var client: any MQTTSession
        package var verdicts: (any MQTTSession)?
        package var qos: Int
        package var only: Bool
        package var brokerCounters: Bool

        package init(
            client: any MQTTSession,
            verdicts: (any MQTTSession)? = nil,
            qos: Int,
            only: Bool,
            brokerCounters: Bool
        ) {
            self.client = client
            self.verdicts = verdicts
            self.qos = qos
            self.only = only
            self.brokerCounters = brokerCounters
        }
    }

    /// What a run reports and consults as it goes.
    package struct Hooks: Sendable {
        /// Called every 50 answers, and once at the end.
        package var progress: (@Sendable (Progress) -> Void)?
        /// False once the SUT is known to be gone (the embedded SUT's process ended): no more retries.
        package var isAlive: @Sendable () -> Bool = { true }
        /// Where readings are sent when not to the base URL: a ``WeatherProxy`` in front of it.
        package var ingestionBase: String?
        /// Whether an alert of this (scenario) patient belongs to the run (a shard judges its own).
        package var keepsPatient: @Sendable (String) -> Bool = { _ in true }
        /// Messages for the user: what the run waits for at its end.
        package var note: @Sendable (String) -> Void = { _ in }
        /// How messages name the settings they point at.
        package var names = SettingNames.words
        /// What the schedule, retries, waits and latencies are measured on (a test injects its own).
        package var clock = AnyClock(ContinuousClock())
        /// Whether the hiccup meter runs (``meterHiccups(_:)``): off for a test that steps a virtual
        /// clock by hand, where it would add a step every 10 ms and could never wake late.
        package var meterHiccups = true
        /// Each request as it is dispatched (how late, seconds) and answered (the request, its
        /// outcome, seconds since it was due): live metrics (``HarnessMetrics``) and spans (``RunSpans``).
        package var dispatched: (@Sendable (Double) -> Void)?
        package var answered: (@Sendable (PlannedRequest, RequestOutcome, Double) -> Void)?
        /// Each alert the run saw, once it ends: the request that carried its last evidence reading,
        /// seconds since that reading was due and since the alert was first seen (``RunSpans``).
        package var observed: (@Sendable (ObservedAlert, SentRequest?, Double, Double) -> Void)?

        package init() {}
    }

    /// - Parameters:
    ///   - base: the SUT's base URL (the target's, or the embedded SUT's).
    ///   - target: how the SUT is reached and spoken to (TLS, HTTP/2, headers, its profile, or an
    ///     exchange that answers in memory).
    ///   - pacing: speed, connections, settle and outage limit.
    ///   - naming: the ids of the run's patients and devices at the SUT.
    ///   - contract: where every endpoint's answers are counted.
    package init(
        base: String,
        target: LiveOptions.Target,
        pacing: LiveOptions.Pacing,
        mqtt: MQTTLink? = nil,
        observers: [PushObserver] = [],
        naming: WireNaming = .identity,
        contract: ContractLog = ContractLog(),
        trace: RequestTrace? = nil,
        hooks: Hooks = Hooks()
    ) {
        self.naming = naming
        self.trace = trace
        keepsPatient = hooks.keepsPatient
        let ingestion = hooks.ingestionBase ?? base
        ingestionBase = ingestion.hasSuffix("/") ? String(ingestion.dropLast()) : ingestion
        isAlive = hooks.isAlive
        note = hooks.note
        names = hooks.names
        clock = hooks.clock
        metersHiccups = hooks.meterHiccups
        onProgress = hooks.progress
        onDispatch = hooks.dispatched
        onAnswer = hooks.answered
        onObserved = hooks.observed
        mqttOnly = mqtt?.only ?? false
        outageLimit = pacing.outageLimit
        self.observers = observers
        self.mqtt = mqtt?.client
        mqttVerdicts = mqtt.map { $0.verdicts ?? $0.client }
        qos = mqtt?.qos ?? 1
        brokerCounters = mqtt?.brokerCounters ?? false
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        speed = pacing.speed
        workers = max(1, pacing.connections)
        if let exchange = target.exchange {
            multi = nil
            client = exchange
        } else {
            let libcurl = HTTPMultiClient(
                maxConnections: workers + 1,
                caFile: target.caFile,
                insecure: target.insecure,
                http2: target.http2,
                clientCertificate: target.clientCertificate
            )
            multi = libcurl
            client = libcurl
        }
        let profile = target.profile
        var credentials = profile.auth
        credentials.headers += target.headers
        contract.use(base: self.base)
        auth = RequestAuth(credentials, base: self.base, client: client, contract: contract)
        alertSource = profile.alerts
        rejectionField = profile.ingestion.rejectionField
        rejectionStatuses = profile.ingestion.rejectionStatuses
        mapping = profile.mapping
        rejections = profile.mqtt.rejections
        confirmations = profile.mqtt.confirmations
        deviceCredentials = profile.mqtt.deviceCredentials
        quiet = pacing.settle
    }

    struct Shared {
        var outcomes: [RequestOutcome]
        var ack = Histogram<UInt64>.latency()
        var lag = Histogram<UInt64>.latency()
        /// How late the harness's own timer woke (``meterHiccups(_:)``), µs.
        var hiccups = Histogram<UInt64>.latency()
        /// Intended send time of each request (its readings'), by plan index.
        var intended: [Instant?]
        var firstSeen: [String: (ObservedAlert, Instant)] = [:]
        /// Each alert a push channel delivered and when it first arrived, by channel (``observers``'
        /// order); the result's ``PushDelivery`` values are made from it.
        var pushSeen: [[String: (ObservedAlert, Instant)]]
        var order: [String] = []
        var unreachable = false
        var stopped = false
        /// Set once a request got no answer after every retry, an outage outlasted --outage-limit, or
        /// every answer so far refused the run's requests (``RunHealth``): the rest are not sent.
        var aborted = false
        /// Rejections the SUT published on `errors/{patientId}`, by reading id.
        var mqttRejections: [String: (status: Int, field: String)] = [:]
        /// Readings the SUT confirmed on `acks/{patientId}`.
        var mqttConfirmed: Set<String> = []
        /// The broker's latest `$SYS/broker/publish/messages/dropped` (embedded broker only).
        var brokerDropped: Int?
        var push: [PushDelivery] = []
        var answered = 0
        /// True once the SUT has answered any request.
        var reachable = false
        /// Scenario time (virtual ms) of the latest request dispatched.
        var reached: Int64 = 0
        /// What the end of the run waited for, when expected alerts were missing (see ``AlertWait``).
        var alertWait: String?
        /// True once the wait for quiet at the run's end polls the alerts (the poller then stops).
        var quietWait = false
        /// The longest time from one alert poll's start to the next's (``pollPause(after:_:)``).
        var longestPollCycle: Duration = .zero
        /// Each poll's usual cycle (``RunObservation/pollResolution``).
        var usualPollCycles = PollCycleTally()
        /// The longest pause ``pollPause(after:_:)`` chose.
        var longestPause: Duration = .zero
        /// How long the last few alert polls took, the latest last.
        var recentPolls: [Duration] = []
        /// The longest pause between alert polls: a quarter of the golden file's tightest reading →
        /// alert limit (nil: no limit, the pause is bounded only by ``pollPauseFactor``).
        var longestPollPause: Duration?
        /// Answers that point at a misconfiguration rather than at the SUT's clinical behaviour.
        var health = RunHealth()
        /// The last request carrying a reading of a patient stamped at a device time (only from a plan
        /// that keeps device times: a profile whose alerts cite no evidence).
        var stamped: [Stamp: Int] = [:]
        /// For alerts on the server's clock: when each patient's requests were sent.
        var serverClock: AlertClock?
    }

    /// A patient and a device time (virtual ms).
    /// A patient's device time (scenario ms): the key of the last request carrying a reading stamped then.
    package struct Stamp: Hashable {
        var patient: String
        var time: Int64
    }

    /// The run's shared state (a class, so that tasks can share the lock).
    final class State: Sendable {
        let lock: Locked<Shared>
        init(_ shared: Shared) { lock = Locked(shared) }
        func withLock<T: Sendable>(_ body: (inout Shared) -> T) -> T { lock.withLock { body(&$0) } }
    }

    /// Traffic sent alongside the plan on the same schedule (a BLE link): run concurrently with the
    /// plan's requests, awaited before the final quiet period.
    package struct Alongside: Sendable {
        /// The moment of the scenario's start on the runner's ``LiveRunner/clock``, shared with the
        /// plan's schedule.
        package var origin: Instant
        /// The scenario's start (Unix ms): an alert whose evidence the plan did not carry is timed from
        /// the moment its device time was due.
        package var startUnixMilliseconds: Int64
        /// Sends the other traffic; returns reading → acknowledgement latencies (µs) to add.
        package var work: @Sendable () async -> [UInt64]
        /// When the evidence of an alert could first reach the SUT (virtual ms from the start); by
        /// default its device time, later for records a device could hand over only after a reconnection.
        package var due: @Sendable (ObservedAlert) -> Int64

        package init(
            origin: Instant,
            startUnixMilliseconds: Int64,
            due: (@Sendable (ObservedAlert) -> Int64)? = nil,
            work: @escaping @Sendable () async -> [UInt64]
        ) {
            self.origin = origin
            self.startUnixMilliseconds = startUnixMilliseconds
            self.work = work
            self.due = due ?? { $0.raisedAt - startUnixMilliseconds }
        }
    }

    /// A worker's queue: requests with their index in the plan and their intended send time.
    typealias Queue = (
        stream: AsyncStream<(Int, PlannedRequest, Instant)>,
        continuation: AsyncStream<(Int, PlannedRequest, Instant)>.Continuation
    )

    /// Sends `plan` (an array, or a ``TrafficPlanStream`` consumed as it is generated: only the requests
    /// not yet sent and the bodiless copies in the result are held) and collects alerts until quiet.
    /// - Parameters:
    ///   - span: the scenario's duration (virtual ms), for progress reports.
    ///   - awaiting: the expected alerts, waited for at the end while not yet listed.
    ///   - startUnixMilliseconds: the scenario's start, to time alerts that cite no evidence.
    ///   - origin: the moment scenario time 0 is due (`--start-at`, so that the shards of a run keep one
    ///     schedule); nil starts the schedule at the first request.
    package func run<Plan: Sequence<PlannedRequest>>(
        _ plan: Plan,
        span: Int64 = 0,
        startUnixMilliseconds: Int64 = 0,
        alongside: Alongside? = nil,
        origin: ContinuousClock.Instant? = nil,
        awaiting: AlertWait? = nil,
        barriers: [RunBarrier] = []
    ) async -> RunObservation {
        // At --speed max the schedule is the SUT's pace: shards that keep one origin begin together.
        if let origin, speed == nil { try? await clock.sleep(until: instant(origin)) }
        let serverClock = alertSource.clock == .server ? AlertClock(start: startUnixMilliseconds) : nil
        let shared = State(
            Shared(
                outcomes: [],
                intended: [],
                pushSeen: observers.map { _ in [:] },
                push: observers.map { PushDelivery(kind: $0.kind) },
                serverClock: serverClock
            )
        )
        if let tightest = awaiting?.tightest, tightest > .zero {
            shared.withLock { $0.longestPollPause = max(pollInterval, tightest / 4) }
        }
        var sent: [SentRequest] = []
        let queues: [Queue] = (0..<workers).map { _ in
            AsyncStream.makeStream(of: (Int, PlannedRequest, Instant).self)
        }
        // Each worker's queue is bounded, so that a plan generated as it is sent (and any plan at
        // --speed max) is not pulled into the queues ahead of the workers.
        let queued = (0..<workers).map { _ in SendWindow(limit: LiveRunner.queueLimit) }
        await withTaskGroup(of: Void.self) { group in
            // The poller parses the SUT's whole alert list each time: not on the event loop, where a
            // long list would hold up the workers' requests.
            group.addTask { await self.poll(shared) }
            if metersHiccups { group.addTask { await self.meterHiccups(shared) } }
            if let mqttVerdicts { group.addTask { await self.collectVerdicts(mqttVerdicts, shared) } }
            for (k, observer) in observers.enumerated() {
                group.addTask { await self.collect(observer, index: k, shared) }
            }
            if let alongside {
                group.addTask {
                    let samples = await alongside.work()
                    shared.withLock { s in for v in samples { s.ack.record(v) } }
                }
            }
            for w in 0..<workers {
                // Workers run on the HTTP client's event-loop thread (it is their executor), so an
                // answer resumes its worker, and the worker's next request starts, without a hop
                // between threads; for a plan of MQTT messages only, on the MQTT client's thread.
                group.addTask(executorPreference: workerExecutor) {
                    await self.work(queues[w].stream, queued: queued[w], span: span, alertClock: serverClock, shared)
                }
            }
            sent = await dispatch(
                plan,
                to: queues,
                queued: queued,
                origin: alongside?.origin ?? origin.map(instant),
                barriers: barriers,
                shared
            )
            for q in queues { q.continuation.finish() }
            // Wait for the senders (the poller and the rejection collector run until told to stop).
            var finished = 0
            let senders = workers + (alongside == nil ? 0 : 1)
            while finished < senders, await group.next() != nil { finished += 1 }
            if let report = onProgress {
                report(Progress(answered: shared.withLock { $0.answered }, reached: span, span: span))
            }
            if !shared.withLock({ $0.aborted }) { await waitForQuiet(shared, awaiting: awaiting) }
            notePollCycle(shared)
            // The broker publishes its counters every second: let the last change arrive.
            if brokerCounters { try? await clock.sleep(for: .milliseconds(1200)) }
            shared.withLock { $0.stopped = true }
            disconnectMQTT()
            for o in observers { o.stop() }
        }
        return finished(shared, sent: sent, alongside: alongside, start: startUnixMilliseconds, span: span, awaiting)
    }

    /// The run's result once everything has stopped, with what the SUT answered logged and any
    /// misconfiguration the run revealed.
    func finished(
        _ shared: State,
        sent: [SentRequest],
        alongside: Alongside?,
        start: Int64,
        span: Int64,
        _ awaiting: AlertWait?
    ) -> RunObservation {
        var result = result(shared, sent: sent, alongside: alongside, start: start)
        LiveRunner.log(sent, result.traffic.outcomes, naming: naming, to: auth.contract)
        result.alerts.citeEvidence = alertSource.fields.evidence != nil
        result.traffic.refusesOverMQTT = rejections != nil
        result.misconfiguration =
            result.misconfiguration ?? pushProblem(result, awaiting: awaiting)
            ?? AlertClock.problem(result.alerts.observed, start: start, span: span, clock: alertSource.clock)
        return result
    }

    /// Records what a push observer sees: each alert's first arrival, and repeats.
    func collect(_ observer: PushObserver, index k: Int, _ shared: State) async {
        let only = observer.kind == alertSource.pushOnly
        for await wire in observer.alerts {
            let mine = scenarioAlert(wire)
            // The only alert source: what it pushes is what the SUT lists.
            if only { auth.contract.listed(read: mine.map { [$0] } ?? [], outside: mine == nil ? [wire.alertID] : []) }
            guard let mine else { continue }
            let now = clock.now
            let full = shared.withLock { s -> Bool in
                let alert = s.serverClock?.onDeviceTime(mine) ?? mine
                let fresh = s.pushSeen[k][alert.alertID] == nil
                if fresh, s.pushSeen[k].count >= Self.observedAlertLimit || s.firstSeen.count >= Self.observedAlertLimit
                {
                    reachBound(Self.observedAlertProblem, &s)
                    return true
                }
                if only, s.firstSeen[alert.alertID] == nil {
                    s.firstSeen[alert.alertID] = (alert, now)
                    s.order.append(alert.alertID)
                }
                if fresh {
                    s.pushSeen[k][alert.alertID] = (alert, now)
                } else {
                    s.push[k].repeats += 1
                }
                return false
            }
            if full {
                observer.stop()
                break
            }
        }
        if let problem = observer.boundReached { shared.withLock { reachBound(problem, &$0) } }
    }

    /// Hands the plan's requests to the workers on schedule (one patient always to the same worker),
    /// recording each one's intended send time and the harness's own lag; returns what was sent.
    /// - Parameter origin: the moment of the scenario's start when other traffic shares the schedule.
    func dispatch<Plan: Sequence<PlannedRequest>>(
        _ plan: Plan,
        to queues: [Queue],
        queued: [SendWindow],
        origin: Instant?,
        barriers: [RunBarrier] = [],
        _ shared: State
    ) async -> [SentRequest] {
        // With traffic alongside, both follow the scenario's own time axis from a shared origin.
        var start = origin ?? clock.now
        var t0: Int64? = origin == nil ? nil : 0
        var sent: [SentRequest] = []
        var pending = barriers.sorted { $0.at < $1.at }[...]
        for (i, request) in plan.enumerated() {
            // A pause of the scenario (a care-team action) due before this request: the schedule
            // resumes where it left off.
            while let barrier = pending.first, request.sendAt > barrier.at {
                pending.removeFirst()
                start = start.advanced(by: await pause(at: barrier, after: i, shared))
            }
            sent.append(SentRequest(request))
            if shared.withLock({ $0.aborted }) {
                shared.withLock { s in
                    s.outcomes.append(LiveRunner.notSent(s))
                    s.intended.append(nil)
                }
                continue
            }
            var intended = clock.now
            if let speed {
                let first = t0 ?? request.sendAt
                t0 = first
                intended = start + .milliseconds(Int64(Double(request.sendAt - first) / speed))
                if intended > clock.now { try? await clock.sleep(until: intended) }
            }
            let lag = clock.now - intended
            onDispatch?(lag.seconds)
            let worker = Int(SeededRandom.fnv1a(request.patientID) % UInt64(workers))
            shared.withLock { s in
                s.lag.record(Duration.nonNegativeMicroseconds(lag))
                s.outcomes.append(RequestOutcome())
                s.intended.append(intended)
                s.reached = request.sendAt
                // Device times travel only in a plan made for alerts without evidence (the last request wins).
                for t in request.deviceTimes { s.stamped[Stamp(patient: request.patientID, time: t)] = i }
            }
            await queued[worker].acquire()
            queues[worker].continuation.yield((i, request, intended))
        }
        for barrier in pending { _ = await pause(at: barrier, after: sent.count, shared) }
        return sent
    }

    /// Waits until the `count` requests handed out so far are answered, then runs `barrier`'s
    /// action with the alerts listed so far; returns how long the pause took (skipped once the run
    /// has stopped).
    func pause(at barrier: RunBarrier, after count: Int, _ shared: State) async -> Duration {
        let began = clock.now
        while !shared.withLock({ $0.aborted || $0.answered >= count }) {
            try? await clock.sleep(for: .milliseconds(2))
        }
        guard !shared.withLock({ $0.aborted }) else { return .zero }
        await barrier.act { shared.withLock { s in s.order.compactMap { s.firstSeen[$0]?.0 } } }
        return began.duration(to: clock.now)
    }

    /// One worker: sends its queue's requests in order. MQTT messages are pipelined (a bounded
    /// number awaiting their PUBACK; MQTT keeps their order on the connection); an HTTP request waits
    /// until they are all acknowledged, so that a patient's order holds across transports. Each send
    /// is noted on `alertClock` when the profile's alerts are on the server's clock.
    func work(
        _ queue: AsyncStream<(Int, PlannedRequest, Instant)>,
        queued: SendWindow,
        span: Int64,
        alertClock: AlertClock?,
        _ shared: State
    ) async {
        let window = SendWindow(limit: LiveRunner.mqttWindow, resumeAt: LiveRunner.mqttWindow / 2)
        for await (i, request, scheduled) in queue {
            queued.release()
            if shared.withLock({ $0.aborted }) {
                shared.withLock { s in s.outcomes[i] = LiveRunner.notSent(s) }
                continue
            }
            // Without a schedule (speed max) a request is due when a connection is free for it.
            let intended = speed == nil ? clock.now : scheduled
            if speed == nil { shared.withLock { $0.intended[i] = intended } }
            let outcome: RequestOutcome
            alertClock?.sent(patient: request.patientID, time: request.deviceTimes.max() ?? request.sendAt)
            if let mqtt, request.topic != nil {
                await window.acquire()
                if publishPipelined(request, index: i, intended: intended, via: mqtt, span: span, shared, window) {
                    continue
                }
                window.release()
                outcome = await publish(request, via: mqtt)
            } else {
                await window.drain()
                outcome = await send(request, shared)
            }
            finish(i, request, outcome, intended: intended, span: span, route: RunHealth.route(of: request), shared)
        }
        await window.drain()
    }

    /// Ends the MQTT connections: the publisher and, when it is one of its own, the verdicts' reader.
    func disconnectMQTT() {
        mqtt?.disconnect()
        if let mqttVerdicts, mqttVerdicts !== mqtt { mqttVerdicts.disconnect() }
    }

    /// The run's result: MQTT rejections applied to their messages, and reading → alert latencies
    /// timed from the intended send time of each alert's last evidence reading.
    func result(_ shared: State, sent: [SentRequest], alongside: Alongside?, start: Int64) -> RunObservation {
        shared.withLock { s in
            applyMQTTRejections(&s, sent: sent)
            var evidence = s.order.compactMap { s.firstSeen[$0]?.0.evidence.last }
            for p in s.push { evidence += p.alerts.values.compactMap { $0.evidence.last } }
            let cause = AlertCause(
                sent: sent,
                evidence: evidence,
                stamped: s.stamped,
                start: start,
                alongside: alongside != nil
            )
            // The intended send time of the request an alert came from (``AlertCause``), or (traffic
            // sent alongside, e.g. over BLE, whose readings the SUT names itself) the moment the
            // alert's device time was due on the shared schedule.
            func intended(_ observedAlert: ObservedAlert) -> Instant? {
                if let i = cause.request(of: observedAlert) { return s.intended[i] }
                guard let alongside, let speed = self.speed else { return nil }
                return alongside.origin + .microseconds(Int64(Double(alongside.due(observedAlert)) * 1000 / speed))
            }
            var alertLatency = Histogram<UInt64>.latency()
            let now = clock.now
            for id in s.order {
                guard let (a, seen) = s.firstSeen[id], let due = intended(a) else { continue }
                alertLatency.record(Duration.nonNegativeMicroseconds(seen - due))
                onObserved?(a, cause.request(of: a).map { sent[$0] }, (now - due).seconds, (now - seen).seconds)
            }
            for k in s.push.indices {
                s.push[k].alerts = s.pushSeen[k].mapValues(\.0)
                s.push[k].delivered = Set(s.pushSeen[k].keys)
                for (a, seen) in s.pushSeen[k].values {
                    guard let due = intended(a) else { continue }
                    s.push[k].latency.record(Duration.nonNegativeMicroseconds(seen - due))
                }
            }
            var result = RunObservation(
                traffic: TrafficObservation(
                    outcomes: s.outcomes,
                    ackLatency: s.ack,
                    schedulingLag: s.lag,
                    unreachable: s.unreachable
                ),
                alerts: AlertObservation(
                    observed: s.order.compactMap { s.firstSeen[$0]?.0 },
                    latency: alertLatency,
                    push: s.push
                )
            )
            result.traffic.requests = sent
            for id in s.order {
                guard let a = s.firstSeen[id]?.0, a.evidence.last.flatMap({ cause.carrier[$0] }) == nil,
                    let i = cause.request(of: a)
                else { continue }
                result.alerts.requests[id] = i
            }
            result.alerts.wait = s.alertWait
            result.alerts.longestPollCycle = s.longestPollCycle
            result.alerts.pollResolution = s.usualPollCycles.median
            result.hiccups = s.hiccups
            result.traffic.mqtt =
                mqtt == nil ? nil : LiveRunner.mqttDelivery(s, sent: sent, refusals: rejections != nil)
            result.misconfiguration = s.health.problem(
                alertURL: alertSource.absoluteURL(base: base),
                answered: s.answered,
                names: names
            )
            return result
        }
    }

    deinit { multi?.close() }

    /// A moment of the monotonic clock (a shared `--start-at` origin) on ``clock``.
    func instant(_ moment: ContinuousClock.Instant) -> Instant {
        clock.now + ContinuousClock.now.duration(to: moment)
    }

    /// Where the workers run: the libcurl client's event-loop thread, or the MQTT client's for a plan
    /// of MQTT messages only; nil (the global executor) with an injected exchange.
    var workerExecutor: (any TaskExecutor)? { mqttOnly ? (mqtt as? any TaskExecutor) ?? multi : multi }

    /// One request with retries on transport errors, 429 and 503, backing off 250 ms doubling to 4 s:
    /// six attempts while the SUT has never answered, then for up to ``outageLimit`` from the first
    /// failure (stopping at once if the embedded SUT's process is gone).
    func send(_ plannedRequest: PlannedRequest, _ shared: State) async -> RequestOutcome {
        var outcome = RequestOutcome()
        var backoff = RetryPolicy.Backoff()
        var firstFailure: Instant?
        var renewed = false
        if let reason = plannedRequest.unroutable { return unroutable(reason, shared) }
        let url = plannedRequest.url(base: ingestionBase)
        let wire = (
            patient: naming.patient(plannedRequest.patientID),
            device: naming.device(plannedRequest.deviceID, of: plannedRequest.patientID)
        )
        while true {
            let credentials: [String]
            let token: String?
            switch await auth.ingestion(patient: plannedRequest.patientID, device: plannedRequest.deviceID, wire: wire)
            {
            case .success(let c): (credentials, token) = c
            case .failure(let problem):
                shared.withLock { s in
                    s.health.credentialProblem = s.health.credentialProblem ?? problem.message
                    s.aborted = true
                }
                return RequestOutcome(
                    status: nil,
                    field: nil,
                    error: "not sent: \(problem.message)",
                    attempts: outcome.attempts
                )
            }
            outcome.attempts += 1
            do throws(HTTPTransportError) {
                let traced =
                    trace.map { t in
                        [
                            "\(RequestTrace.header): "
                                + t.traceparent(
                                    firstReading: RequestTrace.key(plannedRequest),
                                    attempt: outcome.attempts
                                )
                        ]
                    } ?? []
                let reply = try await attempt(plannedRequest, url: url, credentials: credentials + traced, wire: wire)
                // A token the SUT no longer accepts (expired early, revoked): one more try with a new one.
                if reply.status == 401, !renewed, auth.refused(token: token) {
                    renewed = true
                    continue
                }
                record(reply, of: plannedRequest, in: &outcome)
                note(reply, of: plannedRequest, shared)
            } catch {
                outcome.status = nil
                outcome.error = error.reason
            }
            let now = clock.now
            if let firstFailure { outcome.waited = (now - firstFailure).seconds }
            if let status = outcome.status, !RunHealth.outageStatuses.contains(status) { return outcome }
            if outcome.status == nil, !isAlive() { return outcome }
            let since = firstFailure ?? now
            firstFailure = since
            // A SUT that answered before is in an outage (a restart): keep trying for outageLimit.
            let reachable = shared.withLock { $0.reachable }
            if retries.givesUp(attempts: outcome.attempts, sinceFirstFailure: now - since, reachable: reachable) {
                if let status = outcome.status {
                    outcome.error =
                        "still answering \(status) after retrying for \(Int(outcome.waited)) s (\(names[.outageLimit]))"
                }
                return outcome
            }
            try? await clock.sleep(for: backoff.next())
        }
    }

    /// One attempt at request `r`, its answer (or its failure) recorded in the SUT contract.
    func attempt(
        _ plannedRequest: PlannedRequest,
        url: String,
        credentials: [String],
        wire: (patient: String, device: String)
    ) async throws(HTTPTransportError) -> HTTPReply {
        do throws(HTTPTransportError) {
            let reply = try await client.post(
                url,
                body: plannedRequest.body,
                headers: ["Content-Type: " + plannedRequest.contentType] + credentials,
                method: plannedRequest.method
            )
            auth.contract.answered(
                .ingestion,
                method: plannedRequest.method,
                url: url,
                status: reply.status,
                body: reply.body,
                patient: wire.patient,
                device: wire.device
            )
            return reply
        } catch {
            auth.contract.unanswered(
                .ingestion,
                method: plannedRequest.method,
                url: url,
                reason: error.reason,
                patient: wire.patient,
                device: wire.device
            )
            throw error
        }
    }

    /// A request the profile's routes cannot make: the run stops as misconfigured (``RunHealth``).
    func unroutable(_ reason: String, _ shared: State) -> RequestOutcome {
        shared.withLock { s in
            s.health.routeProblem = s.health.routeProblem ?? reason
            s.aborted = true
        }
        return RequestOutcome(status: nil, field: nil, error: "not sent: \(reason)", attempts: 0)
    }

    /// A final answer into `outcome`: status, HTTP version and, for a refusal, the field it names
    /// as the golden files name it.
    func record(_ reply: HTTPReply, of plannedRequest: PlannedRequest, in outcome: inout RequestOutcome) {
        // The SUT's statuses for an invalid reading (`ingestion.rejection-status`) are judged as the golden files' 400.
        outcome.status = rejectionStatuses.contains(reply.status) ? 400 : reply.status
        outcome.httpVersion = reply.httpVersion
        outcome.error = nil
        guard reply.status >= 400 else { return }
        let named = LiveRunner.field(reply.body, at: rejectionField)
        outcome.field = plannedRequest.expectedRejection?.canonical(named) ?? named
    }

    /// What an answer says of the SUT's health: reachable, refusing the route, or in an outage.
    func note(_ reply: HTTPReply, of plannedRequest: PlannedRequest, _ shared: State) {
        shared.withLock { s in
            s.reachable = true
            if RunHealth.configurationStatuses.contains(reply.status) {
                s.health.noteRefusal(
                    "\(plannedRequest.method) \(plannedRequest.url(base: ingestionBase))",
                    status: reply.status,
                    body: reply.body
                )
            } else if RunHealth.outageStatuses.contains(reply.status) {
                s.health.noteOutage(
                    "\(plannedRequest.method) \(plannedRequest.url(base: ingestionBase))",
                    status: reply.status,
                    body: reply.body
                )
            }
        }
    }

    /// The outcome of a request the run did not send because it had stopped.
    static func notSent(_ shared: Shared) -> RequestOutcome {
        RequestOutcome(
            status: nil,
            field: nil,
            error: "not sent: " + (shared.health.abortReason ?? "the SUT stopped answering"),
            attempts: 0
        )
    }

    /// The MQTT message of a planned request (topic, body, the run's QoS, user properties).
    func message(for plannedRequest: PlannedRequest) -> MQTTMessage {
        var properties = plannedRequest.userProperties.map { UserProperty($0.name, $0.value) }
        if let trace {
            let value = trace.traceparent(firstReading: RequestTrace.key(plannedRequest), attempt: 1)
            properties.append(UserProperty(RequestTrace.header, value))
        }
        if deviceCredentials == .userProperties {
            let wire = (
                patient: naming.patient(plannedRequest.patientID),
                device: naming.device(plannedRequest.deviceID, of: plannedRequest.patientID)
            )
            for property in auth.deviceProperties(
                patient: plannedRequest.patientID,
                device: plannedRequest.deviceID,
                wire: wire
            ) ?? [] {
                properties.append(UserProperty(property.name, property.value))
            }
        }
        return MQTTMessage(
            topic: plannedRequest.topic ?? "",
            payload: plannedRequest.body,
            qos: qos,
            userProperties: properties
        )
    }

    /// MQTT messages of one worker awaiting their acknowledgement at once; a full window lets its
    /// worker publish again once half of them are acknowledged (one wake-up per 32 messages rather
    /// than per message; docs/performance.md).
    static let mqttWindow = 64
    /// Requests waiting in one worker's queue at most.
    static let queueLimit = 128

    /// Records request `i`'s outcome: progress, acknowledgement latency (from `intended`), an
    /// unanswered request stopping the run.
    func finish(
        _ i: Int,
        _ request: PlannedRequest,
        _ outcome: RequestOutcome,
        intended: Instant,
        span: Int64,
        route: String,
        _ shared: State
    ) {
        let now = clock.now
        let readings = request.readings.count
        let (answered, reached) = shared.withLock { s -> (Int, Int64) in
            s.answered += 1
            s.outcomes[i] = outcome
            if outcome.status == nil {
                // Not sent for want of credentials or a route is a misconfiguration (``RunHealth``), not an unreachable
                // SUT.
                if s.health.credentialProblem == nil, s.health.routeProblem == nil { s.unreachable = true }
                s.aborted = true
            }
            if let reason = s.health.answered(outcome.status, route: route) {
                s.aborted = true
                s.health.abortReason = s.health.abortReason ?? reason
            }
            // An outage that outlasted --outage-limit (429 or 503 throughout): the SUT is not coming back.
            if let status = outcome.status, RunHealth.outageStatuses.contains(status),
                outcome.waited >= outageLimit.seconds
            {
                s.aborted = true
                s.health.abortReason =
                    s.health.abortReason
                    ?? "the SUT answered \(status) for longer than \(names[.outageLimit]) without recovering"
            }
            if let status = outcome.status, status < 500 {
                s.ack.record(Duration.nonNegativeMicroseconds(now - intended), count: UInt64(readings))
            }
            return (s.answered, s.reached)
        }
        onAnswer?(request, outcome, (now - intended).seconds)
        if let report = onProgress, answered % 50 == 0 {
            report(Progress(answered: answered, reached: reached, span: span))
        }
    }

    /// Publishes request `i` without awaiting its acknowledgement: the outcome is recorded when the
    /// broker acknowledges (a failed or timed-out publish is retried as ``publish(_:via:)`` does) and
    /// the window place is freed then. False when the message could not even be queued.
    func publishPipelined(
        _ plannedRequest: PlannedRequest,
        index i: Int,
        intended: Instant,
        via mqtt: any MQTTSession,
        span: Int64,
        _ shared: State,
        _ window: SendWindow
    ) -> Bool {
        let message = message(for: plannedRequest)
        do throws(MQTTError) {
            try mqtt.publish(message) { reason in
                if reason >= 0, reason < 0x80 {
                    self.finish(
                        i,
                        plannedRequest,
                        RequestOutcome(status: 200, attempts: 1),
                        intended: intended,
                        span: span,
                        route: RunHealth.mqttRoute,
                        shared
                    )
                    window.release()
                    return
                }
                Task {
                    var outcome = await self.publish(plannedRequest, via: mqtt)
                    outcome.attempts += 1
                    self.finish(
                        i,
                        plannedRequest,
                        outcome,
                        intended: intended,
                        span: span,
                        route: RunHealth.mqttRoute,
                        shared
                    )
                    window.release()
                }
            }
            return true
        } catch {
            return false
        }
    }

    /// Publishes one MQTT message (QoS ≥ 1 waits for the broker's acknowledgement) with retries
    /// backing off 250 ms doubling to 4 s for up to ``outageLimit`` from the first failure (the
    /// broker answered the connection before the run, so a failure is an outage: libmosquitto
    /// reconnects meanwhile); a PUBACK counts as acknowledged (recorded as status 200) unless the
    /// SUT reports a rejection on `errors/{patientId}`.
    func publish(_ plannedRequest: PlannedRequest, via mqtt: any MQTTSession) async -> RequestOutcome {
        let message = message(for: plannedRequest)
        var outcome = RequestOutcome()
        var backoff = RetryPolicy.Backoff()
        var firstFailure: Instant?
        while true {
            outcome.attempts += 1
            do throws(MQTTError) {
                try await mqtt.publish(message)
                outcome.status = 200
                outcome.error = nil
                if let firstFailure { outcome.waited = (clock.now - firstFailure).seconds }
                return outcome
            } catch {
                outcome.error = error.description
            }
            let now = clock.now
            let since = firstFailure ?? now
            firstFailure = since
            outcome.waited = (now - since).seconds
            // The broker answered the connection before the run: a failure is an outage.
            if retries.givesUp(attempts: outcome.attempts, sinceFirstFailure: now - since, reachable: true) {
                return outcome
            }
            try? await clock.sleep(for: backoff.next())
        }
    }

    /// The indices of the requests and MQTT messages of each patient, in plan (due) order.
    static func requestsByPatient(_ sent: [SentRequest]) -> [String: [Int]] {
        var out: [String: [Int]] = [:]
        for (i, r) in sent.enumerated() { out[r.patientID, default: []].append(i) }
        return out
    }

    /// The offending field named by an error body: at `pointer` (a SUT profile's `rejection-field`),
    /// else `field`, else a FHIR OperationOutcome's first `issue[].expression`.
    static func field(_ body: [UInt8], at pointer: JSONPointer? = nil) -> String? {
        if let pointer {
            guard let value = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) else {
                return nil
            }
            return pointer.values(in: value).first.flatMap { $0 as? String }
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        if let named = object["field"] as? String { return named }
        if let issues = object["issue"] as? [[String: Any]],
            let expression = (issues.first?["expression"] as? [String])?.first
        {
            return expression
        }
        return nil
    }
}
