import Foundation
import Hummingbird
import Judge
import Locking
import RunRecord
import SUTAdapter
import ServiceLifecycle
import Transports
import VitalSimCore

extension ObservedAlert {
    /// An alert from its JSON in the reference SUT's shape (``AlertFields/vitalsim``); nil when it
    /// cannot be read.
    init?(json: [String: Any]) {
        guard case .success(let alert) = AlertFields.vitalsim.read(json, mapping: .init()) else { return nil }
        self = alert
    }

    /// An alert from JSON bytes.
    init?(bytes: [UInt8]) {
        guard let object = try? SUTJSON.document(bytes) as? [String: Any] else { return nil }
        self.init(json: object)
    }
}

/// A push channel the SUT delivers alerts on, observed alongside the alert API: `vitalsim run
/// --observe sse|mqtt`. Each checks that every alert of the API arrived on the channel, once, and
/// measures reading → alert latency as the channel delivers it.
package final class PushObserver: Sendable {
    package typealias Kind = PushChannel

    package let kind: Kind
    /// Alerts as they arrive; ends after ``stop()``, or once the SUT floods the channel
    /// (``boundReached``).
    package let alerts: AsyncStream<ObservedAlert>
    let stopper: @Sendable () -> Void
    let flood: Locked<PushFlood>
    /// True once the channel has shown, without an alert, that the SUT reaches the harness on it (a
    /// Backport Subscription's handshake): an alert that then never comes is missed, not misrouted.
    let proven: @Sendable () -> Bool

    init(
        kind: Kind,
        alerts: AsyncStream<ObservedAlert>,
        flood: Locked<PushFlood>,
        proven: @escaping @Sendable () -> Bool = { false },
        stop: @escaping @Sendable () -> Void
    ) {
        self.kind = kind
        self.alerts = alerts
        self.flood = flood
        self.proven = proven
        stopper = stop
    }

    package func stop() { stopper() }

    /// Why the channel was stopped at one of the harness's bounds (``PushFlood``), if it was.
    package var boundReached: String? { flood.withLock { $0.problem } }

    /// Subscribes to the SUT's SSE alert stream and waits (≤ 2 s) for the server's first bytes.
    /// - Parameters:
    ///   - url: the stream's URL (the profile's `alerts.push.sse` on the base URL).
    ///   - read: an alert of an event's data (the profile's fields), nil when it is none.
    package static func sse(
        url: String,
        caFile: String?,
        insecure: Bool,
        headers: [String],
        clientCertificate: ClientCertificate? = nil,
        read: @escaping @Sendable ([UInt8]) -> ObservedAlert? = { ObservedAlert(bytes: $0) }
    ) -> PushObserver {
        let client = SSEClient(
            url: url,
            caFile: caFile,
            insecure: insecure,
            headers: headers,
            clientCertificate: clientCertificate
        )
        client.start()
        let (stream, continuation) = PushFlood.stream()
        let flood = Locked(PushFlood(channel: "the SSE stream \(url)"))
        Task {
            for await event in client.events {
                client.taken(event)
                // Every event counts against the rate bound, an alert or not.
                let alert = read(Array(event.data.utf8))
                guard alert.map({ PushFlood.pass($0, to: continuation, flood) }) ?? PushFlood.admit(flood) else {
                    client.stop()
                    break
                }
            }
            if let problem = client.boundReached { flood.withLock { $0.problem = $0.problem ?? problem } }
            continuation.finish()
        }
        return PushObserver(kind: .sse, alerts: stream, flood: flood, stop: { client.stop() })
    }

    /// Subscribes to `topic` (SUBACK awaited) on its own connection to the broker.
    package static func mqtt(
        host: String,
        port: Int,
        clientID: String,
        caFile: String? = nil,
        credentials: MQTTCredentials = MQTTCredentials(),
        topic: String = "alerts/+",
        read: @escaping @Sendable ([UInt8]) -> ObservedAlert? = { ObservedAlert(bytes: $0) }
    ) async throws(MQTTError) -> PushObserver {
        let client = try MQTTClient(
            credentials.applied(to: .init(host: host, port: port, clientID: clientID, caFile: caFile))
        )
        try await client.connect()
        try await client.subscribeAcknowledged(topic, qos: 1)
        let (stream, continuation) = PushFlood.stream()
        let flood = Locked(PushFlood(channel: "the MQTT topic filter \(topic)"))
        Task {
            for await message in client.messages {
                let alert = read(message.payload)
                guard alert.map({ PushFlood.pass($0, to: continuation, flood) }) ?? PushFlood.admit(flood) else {
                    client.disconnect()
                    break
                }
            }
            continuation.finish()
        }
        return PushObserver(kind: .mqtt, alerts: stream, flood: flood, stop: { client.disconnect() })
    }
}

extension PushObserver {
    /// The most bytes of one POST a receiver takes: an alert, or a FHIR notification Bundle with
    /// its focus resources, is far smaller.
    static let pushedBodyLimit = 256 << 10

    /// A webhook receiver on `127.0.0.1:port` (0: a free port) that only the SUT can feed: a `POST`
    /// to `/alerts/{key}` (the settings' key, else 128 random bits) carrying the signature the
    /// settings ask for, whose body is an alert, is observed and answered 204; one without the key
    /// or signature is answered 401 and counted in `contract` (never judged); an unreadable body
    /// 400. Returns once listening, with the URL to give the SUT.
    package static func webhook(
        port: Int = 0,
        settings: AlertSource.Webhook = .init(),
        contract: ContractLog? = nil,
        read: @escaping @Sendable ([UInt8]) -> ObservedAlert? = { ObservedAlert(bytes: $0) }
    ) async throws(HarnessError) -> (PushObserver, url: String) {
        let (stream, continuation) = PushFlood.stream()
        let flood = Locked(PushFlood(channel: "the webhook receiver"))
        let gate = WebhookGate(key: settings.key ?? SubscriptionReceiver.newKey(), signature: settings.signature)
        let router = Router()
        let handle: @Sendable (Request, BasicRequestContext) async -> HTTPResponse.Status = { request, context in
            let body: [UInt8]
            switch await LoopbackServer.body(of: request, upTo: pushedBodyLimit) {
            case .success(let bytes): body = bytes
            case .failure(let refusal): return refusal.status
            }
            if let refusal = gate.refusal(request, key: context.parameters.get("key"), body: body) {
                contract?.pushRefused(refusal)
                return .unauthorized
            }
            guard let alert = read(body) else { return .badRequest }
            // Past a bound the receiver answers 429 and keeps nothing more (the run ends unjudged).
            return PushFlood.pass(alert, to: continuation, flood) ? .noContent : .tooManyRequests
        }
        router.post("alerts/:key", use: handle)
        router.post("alerts", use: handle)
        let (listening, stop) = await LoopbackServer.start(router, port: port)
        guard listening > 0 else {
            throw .infrastructure("the webhook receiver could not listen on 127.0.0.1 (port \(port))")
        }
        let observer = PushObserver(
            kind: .webhook,
            alerts: stream,
            flood: flood,
            stop: {
                stop()
                continuation.finish()
            }
        )
        return (observer, "http://127.0.0.1:\(listening)/alerts/\(gate.key)")
    }
}

/// What a webhook POST must show to be taken as the SUT's: the receiver's key in its path and,
/// where configured, a valid signature of its body.
struct WebhookGate: Sendable {
    let key: String
    let signature: WebhookSignature?

    /// Why `request` (to `/alerts/{given}`) is not the SUT's, or nil when it is.
    func refusal(_ request: Request, key given: String?, body: [UInt8]) -> String? {
        guard let given else { return "POST /alerts without the receiver's key" }
        guard Self.same(given, key) else { return "POST /alerts/… with a key that is not the receiver's" }
        guard let signature else { return nil }
        let problem = signature.problem(
            body: body,
            header: { name in request.headers.first { $0.name.canonicalName == name }?.value },
            now: Date()
        )
        return problem.map { "\(signature.scheme.rawValue) signature: \($0)" }
    }

    /// Compares in time independent of where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The bounds of a push channel: alerts waiting for the run to record them (``buffered``), and
/// alerts per second of arrival (``perSecond``). A SUT past either is flooding the channel; the
/// channel is stopped and the run ends unjudged (exit 3) naming the bound, rather than the harness
/// growing without end or falling behind into false latency findings.
package struct PushFlood: Sendable {
    /// Alerts received and not yet recorded by the run, at most.
    package static let buffered = 10_000
    /// Alerts arriving within one second, at most (a ward of 2,500 patients raises a few a second).
    package static let perSecond = 2_000

    let channel: String
    var second = ContinuousClock.now
    var inSecond = 0
    package var problem: String?

    package init(channel: String) { self.channel = channel }

    /// A stream that holds at most ``buffered`` alerts.
    package static func stream() -> (AsyncStream<ObservedAlert>, AsyncStream<ObservedAlert>.Continuation) {
        AsyncStream.makeStream(of: ObservedAlert.self, bufferingPolicy: .bufferingOldest(buffered))
    }

    /// Counts an arrival (an alert or another message) at `now`; the problem once more than
    /// ``perSecond`` arrived within a second.
    mutating func arrive(at now: ContinuousClock.Instant) -> String? {
        if now - second >= .seconds(1) {
            second = now
            inSecond = 0
        }
        inSecond += 1
        guard inSecond > Self.perSecond else { return nil }
        return "\(channel) delivered more than \(Self.perSecond) messages within one second"
    }

    /// Counts the arrival of a message that is not an alert (it counts against the rate bound all
    /// the same); false (and ``problem`` set) past the bound.
    package static func admit(_ flood: Locked<PushFlood>) -> Bool {
        flood.withLock { f in
            guard f.problem == nil else { return false }
            if let problem = f.arrive(at: .now) {
                f.problem = problem + ": the harness stopped reading it"
                return false
            }
            return true
        }
    }

    /// Counts `alert`'s arrival and passes it on; false (and ``problem`` set) when the channel is
    /// past a bound.
    package static func pass(
        _ alert: ObservedAlert,
        to continuation: AsyncStream<ObservedAlert>.Continuation,
        _ flood: Locked<PushFlood>
    ) -> Bool {
        flood.withLock { f in
            guard f.problem == nil else { return false }
            if let problem = f.arrive(at: .now) {
                f.problem = problem + ": the harness stopped reading it"
                return false
            }
            if case .dropped = continuation.yield(alert) {
                f.problem =
                    "\(f.channel) delivered alerts faster than the run could record them (more than \(buffered) waiting): the harness stopped reading it"
                return false
            }
            return true
        }
    }
}
