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

/// Sends a ``TrafficPlan`` over HTTP(S) with libcurl and MQTT 5 with libmosquitto, and observes the
/// SUT's alerts throughout: requests due at their intended times (scaled by `speed`, or back to back
/// with `speed == nil`) on several keep-alive connections in parallel, one patient's deliveries always
/// on the same worker (``TrafficSender``); the alert list polled and push channels read
/// (``AlertObserver``); everything they see goes into the run's state (``RunState``), whose
/// transitions decide what happens next. Latencies are measured on the monotonic clock from the
/// intended send time, so a slow SUT cannot hide its own delay (no coordinated omission).
package final class LiveRunner: Sendable {
    let base: String
    /// Credentials of ingestion requests and alert reads.
    package let auth: RequestAuth
    /// Every request and poll goes through one exchange: a libcurl multi handle (keep-alive
    /// connections, HTTP/2 where offered), or the one a test injects.
    package let client: any HTTPExchange
    /// The libcurl client when the runner made one: its event-loop thread runs the workers.
    let multi: HTTPMultiClient?
    /// The W3C trace context sent with each request and MQTT message (nil: none).
    package let trace: RequestTrace?
    /// What the schedule, retries, waits and latencies are measured on: the monotonic clock, or one a
    /// test injects (a test clock advanced by hand, an immediate one).
    package let clock: AnyClock<Duration>
    /// A moment on ``clock``.
    package typealias Instant = AnyClock<Duration>.Instant
    /// Poll interval for alerts.
    let pollInterval: Duration = .milliseconds(LatencyPath.alertPollMilliseconds)
    let sender: TrafficSender
    let observer: AlertObserver
    /// Push channels observed alongside the alert API.
    let observers: [PushObserver]
    /// Where the SUT's verdicts on MQTT messages are read: the publisher itself, or a connection of
    /// the harness's own when the devices' connection goes through a network's weather.
    let mqttVerdicts: (any MQTTSession)?
    /// Every request of the plan is an MQTT message: the workers run on the MQTT client's thread.
    let mqttOnly: Bool
    /// The MQTT client also reads the (embedded) broker's `$SYS` drop counter.
    let brokerCounters: Bool
    /// Whether the run meters the harness's own hiccups (``Hooks/meterHiccups``).
    let metersHiccups: Bool
    /// What an answer makes of the run (the outage limit, the names of settings, refusal statuses).
    let limits: RunState.Limits
    /// Where the SUT refuses and confirms MQTT readings (nil: it publishes none).
    let rejections: SUTProfile.MQTTRejections?
    let confirmations: SUTProfile.MQTTConfirmations?
    let onProgress: (@Sendable (Progress) -> Void)?
    let onObserved: (@Sendable (ObservedAlert, SentRequest?, Double, Double) -> Void)?

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
        let base = base.hasSuffix("/") ? String(base.dropLast()) : base
        let ingestion = hooks.ingestionBase ?? base
        self.base = base
        self.trace = trace
        self.observers = observers
        clock = hooks.clock
        metersHiccups = hooks.meterHiccups
        onProgress = hooks.progress
        onObserved = hooks.observed
        mqttOnly = mqtt?.only ?? false
        mqttVerdicts = mqtt.map { $0.verdicts ?? $0.client }
        brokerCounters = mqtt?.brokerCounters ?? false
        let workers = max(1, pacing.connections)
        (multi, client) = Self.exchange(target, workers: workers)
        let profile = target.profile
        var credentials = profile.auth
        credentials.headers += target.headers
        contract.use(base: base)
        auth = RequestAuth(credentials, base: base, client: client, contract: contract)
        rejections = profile.mqtt.rejections
        confirmations = profile.mqtt.confirmations
        limits = RunState.Limits(
            outageLimit: pacing.outageLimit,
            names: hooks.names,
            rejectionStatuses: profile.ingestion.rejectionStatuses
        )
        sender = TrafficSender(
            clock: hooks.clock,
            speed: pacing.speed,
            workers: workers,
            client: client,
            auth: auth,
            naming: naming,
            trace: trace,
            ingestionBase: ingestion.hasSuffix("/") ? String(ingestion.dropLast()) : ingestion,
            rejectionField: profile.ingestion.rejectionField,
            rejectionStatuses: profile.ingestion.rejectionStatuses,
            mqtt: mqtt?.client,
            qos: mqtt?.qos ?? 1,
            deviceCredentials: profile.mqtt.deviceCredentials,
            retries: RetryPolicy(outageLimit: pacing.outageLimit),
            requestTimeout: profile.ingestion.timeout,
            isAlive: hooks.isAlive,
            names: hooks.names,
            onDispatch: hooks.dispatched,
            onAnswer: hooks.answered,
            onProgress: hooks.progress
        )
        observer = AlertObserver(
            clock: hooks.clock,
            base: base,
            client: client,
            auth: auth,
            source: profile.alerts,
            mapping: profile.mapping,
            naming: naming,
            keepsPatient: hooks.keepsPatient,
            quiet: pacing.settle,
            note: hooks.note,
            names: hooks.names
        )
    }

    /// The exchange every request goes through: the one `target` injects, else a libcurl multi
    /// client with a connection per worker and one for the alert polls.
    static func exchange(_ target: LiveOptions.Target, workers: Int) -> (HTTPMultiClient?, any HTTPExchange) {
        if let exchange = target.exchange { return (nil, exchange) }
        let libcurl = HTTPMultiClient(
            maxConnections: workers + 1,
            caFile: target.caFile,
            insecure: target.insecure,
            http2: target.http2,
            clientCertificate: target.clientCertificate
        )
        return (libcurl, libcurl)
    }

    /// The topic of the broker's drop counter (mosquitto `$SYS`).
    package static let droppedTopic = TrafficSender.droppedTopic

    /// Sends `plan` (an array, or a ``TrafficPlanStream`` consumed as it is generated: only the requests
    /// not yet sent and the bodiless copies in the result are held) and collects alerts until quiet.
    /// - Parameters:
    ///   - span: the scenario's duration (virtual ms), for progress reports.
    ///   - awaiting: the expected alerts, waited for at the end while not yet listed.
    ///   - startUnixMilliseconds: the scenario's start, to time alerts that cite no evidence.
    ///   - origin: the moment scenario time 0 is due (`--start-at`, so that the shards of a run keep one
    ///     schedule); nil starts the schedule at the first request.
    ///   - barriers: pauses of the schedule at which the care team acts.
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
        if let origin, sender.speed == nil { try? await clock.sleep(until: instant(origin)) }
        let alertClock = observer.source.clock == .server ? AlertClock(start: startUnixMilliseconds) : nil
        let state = RunState(
            limits: limits,
            channels: observers.map(\.kind),
            pacing: PollPacing(interval: pollInterval, tightestLimit: awaiting?.tightest)
        )
        let shared = SharedRunState(state, epoch: clock.now, alertClock: alertClock)
        let scheduleOrigin = (alongside?.origin ?? origin.map(instant)).map(shared.since)
        let workers = sender.workers
        let queues: [TrafficSender.Queue] = (0..<workers).map { _ in
            AsyncStream.makeStream(of: (Int, PlannedRequest, Duration).self)
        }
        // Each worker's queue is bounded, so that a plan generated as it is sent (and any plan at
        // --speed max) is not pulled into the queues ahead of the workers.
        let queued = (0..<workers).map { _ in SendWindow(limit: TrafficSender.queueLimit) }
        // The poller says when it has stopped, so that the wait for quiet never polls beside it.
        let pollerStopped = AsyncStream.makeStream(of: Never.self)
        let sent = await withTaskGroup(of: Void.self) { group in
            addObservingTasks(to: &group, alongside: alongside, pollerStopped: pollerStopped.continuation, shared)
            for worker in 0..<workers {
                // Workers run on the HTTP client's event-loop thread (it is their executor), so an
                // answer resumes its worker, and the worker's next request starts, without a hop
                // between threads; for a plan of MQTT messages only, on the MQTT client's thread.
                group.addTask(executorPreference: workerExecutor) {
                    await self.sender.work(queues[worker].stream, queued: queued[worker], span: span, shared)
                }
            }
            let sent = await sender.dispatch(
                plan,
                to: queues,
                queued: queued,
                origin: scheduleOrigin,
                barriers: barriers,
                shared
            )
            for queue in queues { queue.continuation.finish() }
            // Wait for the senders (the poller and the verdicts' reader run until told to stop).
            var finished = 0
            let senders = workers + (alongside == nil ? 0 : 1)
            while finished < senders, await group.next() != nil { finished += 1 }
            await end(shared, span: span, awaiting: awaiting, pollerStopped: pollerStopped.stream)
            return sent
        }
        return finished(shared, sent: sent, alongside: alongside, start: startUnixMilliseconds, span: span, awaiting)
    }

    /// Starts the tasks beside the senders: the alert poller (which parses the SUT's whole alert list
    /// each time: not on the event loop, where a long list would hold up the workers' requests), the
    /// hiccup meter, the reader of the SUT's verdicts on MQTT messages, the push observers and the
    /// traffic sent alongside. All but the last run until the run stops.
    func addObservingTasks(
        to group: inout TaskGroup<Void>,
        alongside: Alongside?,
        pollerStopped: AsyncStream<Never>.Continuation,
        _ shared: SharedRunState
    ) {
        group.addTask {
            await self.observer.poll(shared)
            pollerStopped.finish()
        }
        if metersHiccups { group.addTask { await self.meterHiccups(shared) } }
        if let mqttVerdicts {
            group.addTask {
                await self.sender.collectVerdicts(
                    mqttVerdicts,
                    rejections: self.rejections,
                    confirmations: self.confirmations,
                    shared
                )
            }
        }
        for (index, pushObserver) in observers.enumerated() {
            group.addTask { await self.observer.collect(pushObserver, index: index, shared) }
        }
        if let alongside {
            group.addTask {
                let samples = await alongside.work()
                shared.withLock { $0.acknowledgedAlongside(samples) }
            }
        }
    }

    /// Once every request is answered: the last progress report, the wait for quiet (unless the run
    /// was stopped), the broker's last counters, then the tasks that run until told are stopped.
    /// `pollerStopped` ends once the poller has handed the polling over to the wait for quiet.
    func end(_ shared: SharedRunState, span: Int64, awaiting: AlertWait?, pollerStopped: AsyncStream<Never>) async {
        if let report = onProgress {
            report(Progress(answered: shared.withLock { $0.answered }, reached: span, span: span))
        }
        if !shared.withLock({ $0.aborted }) {
            await observer.waitForQuiet(shared, awaiting: awaiting, after: pollerStopped)
        }
        observer.notePollCycle(shared)
        // The broker publishes its counters every second: let the last change arrive.
        if brokerCounters { try? await clock.sleep(for: .milliseconds(1200)) }
        shared.withLock { $0.stop() }
        disconnectMQTT()
        for pushObserver in observers { pushObserver.stop() }
    }

    /// The run's observation once everything has stopped, with what the SUT answered logged and any
    /// misconfiguration the run revealed.
    func finished(
        _ shared: SharedRunState,
        sent: [SentRequest],
        alongside: Alongside?,
        start: Int64,
        span: Int64,
        _ awaiting: AlertWait?
    ) -> RunObservation {
        let timing = alongside.map { RunState.AlongsideTiming(origin: shared.since($0.origin), due: $0.due) }
        let now = shared.since(clock.now)
        var (result, seen) = shared.withLock {
            $0.observation(
                sent: sent,
                start: start,
                alongside: timing,
                speed: sender.speed,
                now: now,
                mqtt: sender.mqtt == nil ? nil : rejections != nil,
                alertURL: observer.source.absoluteURL(base: base)
            )
        }
        for alert in seen {
            onObserved?(alert.alert, alert.carrier.map { sent[$0] }, alert.sinceDue.seconds, alert.sinceSeen.seconds)
        }
        sender.logPublished(sent, result.traffic.outcomes)
        result.alerts.citeEvidence = observer.source.fields.evidence != nil
        result.traffic.refusesOverMQTT = rejections != nil
        result.misconfiguration =
            result.misconfiguration
            ?? observer.pushProblem(
                result,
                awaiting: awaiting,
                proven: observers.contains { $0.kind == observer.source.pushOnly && $0.proven() }
            )
            ?? AlertClock.problem(result.alerts.observed, start: start, span: span, clock: observer.source.clock)
        return result
    }

    /// Ends the MQTT connections: the publisher and, when it is one of its own, the verdicts' reader.
    func disconnectMQTT() {
        sender.mqtt?.disconnect()
        if let mqttVerdicts, mqttVerdicts !== sender.mqtt { mqttVerdicts.disconnect() }
    }

    deinit { multi?.close() }

    /// A moment of the monotonic clock (a shared `--start-at` origin) on ``clock``.
    func instant(_ moment: ContinuousClock.Instant) -> Instant {
        clock.now + ContinuousClock.now.duration(to: moment)
    }

    /// Where the workers run: the libcurl client's event-loop thread, or the MQTT client's for a plan
    /// of MQTT messages only; nil (the global executor) with an injected exchange.
    var workerExecutor: (any TaskExecutor)? { mqttOnly ? (sender.mqtt as? any TaskExecutor) ?? multi : multi }

    /// The alerts of the run's patients that the SUT lists before the run has sent anything
    /// (``AlertObserver/leftOverAlerts()``).
    package func leftOverAlerts() async throws(HarnessError) -> [ObservedAlert] { try await observer.leftOverAlerts() }

    /// Why a run cannot be judged when `leftOver` alerts were listed before it began; nil when none were.
    package static func leftOverProblem(_ leftOver: [ObservedAlert]) -> String? {
        guard let first = leftOver.min(by: { ($0.raisedAt, $0.alertID) < ($1.raisedAt, $1.alertID) }) else {
            return nil
        }
        return
            "the SUT already lists \(leftOver.count) alert(s) of this scenario's patients before the run sent anything (first: alert \(first.alertID), \(first.rule) for patient \(first.patientID) at \(Verdict.iso(first.raisedAt))): left by an earlier run, they would read as duplicates or stand in for alerts this run should raise. Reset the SUT's patients between runs (the profile's lifecycle.reset), or give each run its own patient ids ({run} in lifecycle.patient-id)"
    }

    /// Until the run stops: sleeps ``RunObservation/hiccupInterval`` again and again on the runner's
    /// clock and records how much later than asked each wake-up came (jHiccup's method, the wake-ups
    /// a stall kept from happening counted too). The meter does nothing a SUT affects, so what it
    /// sees is the machine and the harness: when it woke late, so did the dispatch of the readings
    /// due then and the alert polls, and every latency measured from an intended send time grew by
    /// as much (``RunObservation/hiccups``).
    func meterHiccups(_ shared: SharedRunState) async {
        let interval = Duration.nonNegativeMicroseconds(RunObservation.hiccupInterval)
        while !shared.withLock({ $0.stopped }) {
            let asked = clock.now.advanced(by: RunObservation.hiccupInterval)
            do { try await clock.sleep(until: asked) } catch { return }
            let late = Duration.nonNegativeMicroseconds(clock.now - asked)
            // A stall of a second is one late wake-up but a hundred missed ones: each is counted
            // (HdrHistogram's correction for coordinated omission), so the percentiles are of time.
            shared.withLock { $0.woke(late: late, interval: interval) }
        }
    }
}
