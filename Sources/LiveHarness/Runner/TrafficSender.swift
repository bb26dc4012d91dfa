import Clocks
import Foundation
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// The runner's sender: hands the plan's requests to ordered workers on schedule (one patient always
/// to the same worker), and each worker sends its queue in order — MQTT messages pipelined (a bounded
/// number awaiting their PUBACK), an HTTP request only once the worker's messages are acknowledged, so
/// that a patient's order holds across transports — with retries with backoff on transport errors,
/// 429 and 503. What happens goes into the run's ``RunState``; latencies are measured on the clock
/// from each request's intended send time, so a slow SUT cannot hide its own delay.
struct TrafficSender: Sendable {
    /// A worker's queue: requests with their index in the plan and their intended send time.
    typealias Queue = (
        stream: AsyncStream<(Int, PlannedRequest, Duration)>,
        continuation: AsyncStream<(Int, PlannedRequest, Duration)>.Continuation
    )

    /// MQTT messages of one worker awaiting their acknowledgement at once; a full window lets its
    /// worker publish again once half of them are acknowledged (one wake-up per 32 messages rather
    /// than per message; docs/performance.md).
    static let mqttWindow = 64
    /// Requests waiting in one worker's queue at most.
    static let queueLimit = 128

    let clock: AnyClock<Duration>
    /// The plan's pace (nil: back to back, `--speed max`).
    let speed: Double?
    let workers: Int
    let client: any HTTPExchange
    let auth: RequestAuth
    let naming: WireNaming
    /// The W3C trace context sent with each request and MQTT message (nil: none).
    let trace: RequestTrace?
    /// Where readings are sent: the base URL, or a network proxy in front of it.
    let ingestionBase: String
    /// Where a 4xx body names the rejected field (a SUT profile's `ingestion.rejection-field`).
    let rejectionField: JSONPointer?
    /// The statuses with which the SUT refuses an invalid reading (`ingestion.rejection-status`).
    let rejectionStatuses: Set<Int>
    /// The connected MQTT publisher, for plans with MQTT messages.
    let mqtt: (any MQTTSession)?
    let qos: Int
    /// Whether MQTT messages carry their device's credential (`mqtt.device-credentials`).
    let deviceCredentials: SUTProfile.DeviceCredentialCarriage
    /// When a request or message is retried, and when given up.
    let retries: RetryPolicy
    /// Seconds one request may take (the profile's `ingestion.timeout`).
    let requestTimeout: Double
    /// False once the SUT is known to be gone (the embedded SUT's process ended): no more retries.
    let isAlive: @Sendable () -> Bool
    let names: SettingNames
    let onDispatch: (@Sendable (Double) -> Void)?
    let onAnswer: (@Sendable (PlannedRequest, RequestOutcome, Double) -> Void)?
    let onProgress: (@Sendable (LiveRunner.Progress) -> Void)?

    /// Hands the plan's requests to the workers on schedule, recording each one's intended send time
    /// and the harness's own lag; returns what was sent. With `origin` (the moment of the scenario's
    /// start when other traffic shares the schedule) both follow the scenario's own time axis.
    func dispatch<Plan: Sequence<PlannedRequest>>(
        _ plan: Plan,
        to queues: [Queue],
        queued: [SendWindow],
        origin: Duration?,
        barriers: [RunBarrier],
        _ shared: SharedRunState
    ) async -> [SentRequest] {
        var start = origin ?? shared.since(clock.now)
        var firstDue: Int64? = origin == nil ? nil : 0
        var sent: [SentRequest] = []
        var pending = barriers.sorted { $0.at < $1.at }[...]
        for (index, request) in plan.enumerated() {
            // A pause of the scenario (a care-team action) due before this request: the schedule
            // resumes where it left off.
            while let barrier = pending.first, request.sendAt > barrier.at {
                pending.removeFirst()
                start += await pause(at: barrier, after: index, shared)
            }
            sent.append(SentRequest(request))
            if shared.withLock({ $0.aborted }) {
                shared.withLock { $0.skipped() }
                continue
            }
            var intended = shared.since(clock.now)
            if let speed {
                let first = firstDue ?? request.sendAt
                firstDue = first
                intended = start + .milliseconds(Int64(Double(request.sendAt - first) / speed))
                if intended > shared.since(clock.now) { try? await clock.sleep(until: shared.moment(intended)) }
            }
            let lag = shared.since(clock.now) - intended
            onDispatch?(lag.seconds)
            let worker = Int(SeededRandom.fnv1a(request.patientID) % UInt64(workers))
            shared.withLock { $0.due(index, request, intended: intended, lag: lag) }
            await queued[worker].acquire()
            queues[worker].continuation.yield((index, request, intended))
        }
        for barrier in pending { _ = await pause(at: barrier, after: sent.count, shared) }
        return sent
    }

    /// Waits until the `count` requests handed out so far are answered, then runs `barrier`'s
    /// action with the alerts listed so far; returns how long the pause took (skipped once the run
    /// has stopped).
    func pause(at barrier: RunBarrier, after count: Int, _ shared: SharedRunState) async -> Duration {
        let began = clock.now
        while !shared.withLock({ $0.aborted || $0.answered >= count }) {
            try? await clock.sleep(for: .milliseconds(2))
        }
        guard !shared.withLock({ $0.aborted }) else { return .zero }
        await barrier.act { shared.withLock { $0.listed } }
        return began.duration(to: clock.now)
    }

    /// One worker: sends its queue's requests in order. MQTT messages are pipelined (a bounded
    /// number awaiting their PUBACK; MQTT keeps their order on the connection); an HTTP request waits
    /// until they are all acknowledged, so that a patient's order holds across transports. Each send
    /// is noted on the run's alert clock when the profile's alerts are on the server's clock.
    func work(
        _ queue: AsyncStream<(Int, PlannedRequest, Duration)>,
        queued: SendWindow,
        span: Int64,
        _ shared: SharedRunState
    ) async {
        let window = SendWindow(limit: Self.mqttWindow, resumeAt: Self.mqttWindow / 2)
        for await (index, request, scheduled) in queue {
            queued.release()
            // Without a schedule (speed max) a request is due when a connection is free for it.
            let now = speed == nil ? shared.since(clock.now) : nil
            guard shared.withLock({ $0.takes(index, dueNow: now) }) else { continue }
            let intended = now ?? scheduled
            let outcome: RequestOutcome
            shared.alertClock?.sent(patient: request.patientID, time: request.deviceTimes.max() ?? request.sendAt)
            if let mqtt, request.topic != nil {
                await window.acquire()
                if publishPipelined(request, index: index, intended: intended, via: mqtt, span: span, shared, window) {
                    continue
                }
                window.release()
                outcome = await publish(request, via: mqtt)
            } else {
                await window.drain()
                outcome = await send(request, shared)
            }
            finish(index, request, outcome, intended: intended, span: span, route: RunHealth.route(of: request), shared)
        }
        await window.drain()
    }

    /// Records request `index`'s outcome in the run's state, and reports its answer and the run's progress.
    func finish(
        _ index: Int,
        _ request: PlannedRequest,
        _ outcome: RequestOutcome,
        intended: Duration,
        span: Int64,
        route: String,
        _ shared: SharedRunState
    ) {
        let now = shared.since(clock.now)
        let answered = shared.withLock {
            $0.answered(index, outcome, readings: request.readings.count, at: now, route: route)
        }
        onAnswer?(request, outcome, (now - intended).seconds)
        if let report = onProgress, answered.reportsProgress {
            report(LiveRunner.Progress(answered: answered.count, reached: answered.reached, span: span))
        }
    }

    /// One request with retries on transport errors, 429 and 503, backing off 250 ms doubling to 4 s:
    /// six attempts while the SUT has never answered, then for up to the outage limit from the first
    /// failure (stopping at once if the embedded SUT's process is gone).
    func send(_ plannedRequest: PlannedRequest, _ shared: SharedRunState) async -> RequestOutcome {
        var outcome = RequestOutcome()
        var backoff = RetryPolicy.Backoff()
        var firstFailure: AnyClock<Duration>.Instant?
        var renewed = false
        if let reason = plannedRequest.unroutable {
            shared.withLock { $0.unroutable(reason) }
            return RequestOutcome(status: nil, field: nil, error: "not sent: \(reason)", attempts: 0)
        }
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
            case .success(let held): (credentials, token) = held
            case .failure(let problem):
                shared.withLock { $0.lacksCredentials(problem.message) }
                return RequestOutcome(error: "not sent: \(problem.message)", attempts: outcome.attempts)
            }
            outcome.attempts += 1
            do throws(HTTPTransportError) {
                let traced = trace.map { trace in
                    let key = RequestTrace.key(plannedRequest)
                    return [
                        "\(RequestTrace.header): " + trace.traceparent(firstReading: key, attempt: outcome.attempts)
                    ]
                }
                let reply = try await attempt(
                    plannedRequest,
                    url: url,
                    credentials: credentials + (traced ?? []),
                    wire: wire
                )
                // A token the SUT no longer accepts (expired early, revoked): one more try with a new one.
                if reply.status == 401, !renewed, auth.refused(token: token) {
                    renewed = true
                    continue
                }
                record(reply, of: plannedRequest, in: &outcome)
                shared.withLock { $0.replied(plannedRequest.method, url, status: reply.status, body: reply.body) }
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
            // A SUT that answered before is in an outage (a restart): keep trying for the outage limit.
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

    /// One attempt at a request, its answer (or its failure) recorded in the SUT contract.
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
                headers: ["Content-Type: " + plannedRequest.contentType] + plannedRequest.headers + credentials,
                method: plannedRequest.method,
                timeout: requestTimeout
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

    /// A final answer into `outcome`: status, HTTP version and, for a refusal, the field it names
    /// as the golden files name it.
    func record(_ reply: HTTPReply, of plannedRequest: PlannedRequest, in outcome: inout RequestOutcome) {
        // The SUT's statuses for an invalid reading (`ingestion.rejection-status`) are judged as the golden files' 400.
        outcome.status = rejectionStatuses.contains(reply.status) ? 400 : reply.status
        outcome.httpVersion = reply.httpVersion
        outcome.error = nil
        guard reply.status >= 400 else { return }
        let named = RefusalBody(reply.body).field(at: rejectionField)
        outcome.field = plannedRequest.expectedRejection?.canonical(named) ?? named
    }
}

/// The body of a refusal, as the SUT names the field it refused.
struct RefusalBody {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The offending field named: at `pointer` (a SUT profile's `rejection-field`), else `field`,
    /// else a FHIR OperationOutcome's first `issue[].expression`.
    func field(at pointer: JSONPointer? = nil) -> String? {
        if let pointer {
            guard let value = try? SUTJSON.document(bytes) else {
                return nil
            }
            return pointer.values(in: value).first.flatMap { $0 as? String }
        }
        guard let object = try? SUTJSON.document(bytes) as? [String: Any] else { return nil }
        if let named = object["field"] as? String { return named }
        if let issues = object["issue"] as? [[String: Any]],
            let expression = (issues.first?["expression"] as? [String])?.first
        {
            return expression
        }
        return nil
    }
}
