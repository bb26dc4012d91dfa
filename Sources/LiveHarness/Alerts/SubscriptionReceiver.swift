import Foundation
import Hummingbird
import Locking
import RunRecord
import SUTAdapter
import VitalSimCore

/// The harness's endpoint for a FHIR server's Subscription notifications (`alerts.source:
/// fhir-subscription`): on 127.0.0.1, each Subscription notifying its own URL
/// `…/fhir/{key}` (a random key, so only the server told it can notify), `POST` for a Backport
/// Bundle or an R4 notification, `PUT …/fhir/{key}/{type}/{id}` for an R4 notification sent as an
/// update. What the notifications mean is ``SubscriptionNotifications``'; the alerts they start go
/// to the run as a push observer's.
final class SubscriptionReceiver: Sendable {
    let notifications: Locked<SubscriptionNotifications>
    let settings: FHIRSubscriptions
    let continuation: AsyncStream<ObservedAlert>.Continuation
    let flood: Locked<PushFlood>
    let contract: ContractLog
    /// Reads a focus reference of an id-only notification (set once the run's client exists).
    let fetcher = Locked<(@Sendable (String) async -> [UInt8]?)?>(nil)
    /// The receiver's base URL, `http://127.0.0.1:PORT/fhir/`.
    let url: String
    let observer: PushObserver

    private init(
        settings: FHIRSubscriptions,
        contract: ContractLog,
        url: String,
        stream: (AsyncStream<ObservedAlert>, AsyncStream<ObservedAlert>.Continuation),
        flood: Locked<PushFlood>,
        stop: @escaping @Sendable () -> Void
    ) {
        let notifications = Locked(SubscriptionNotifications(settings))
        self.notifications = notifications
        self.settings = settings
        continuation = stream.1
        self.flood = flood
        self.contract = contract
        self.url = url
        let continuation = stream.1
        observer = PushObserver(
            kind: .webhook,
            alerts: stream.0,
            flood: flood,
            proven: { notifications.withLock { $0.allHandshaken } },
            stop: {
                stop()
                continuation.finish()
            }
        )
    }

    /// Starts listening on 127.0.0.1:`port` (0: a free port).
    static func start(
        settings: FHIRSubscriptions,
        port: Int,
        contract: ContractLog
    ) async throws(HarnessError) -> SubscriptionReceiver {
        let holder = Locked<SubscriptionReceiver?>(nil)
        let router = Router()
        let handle: @Sendable (Request, BasicRequestContext) async -> HTTPResponse.Status = { request, context in
            guard let receiver = holder.withLock({ $0 }), let key = context.parameters.get("key") else {
                return .serviceUnavailable
            }
            switch await LoopbackServer.body(of: request, upTo: PushObserver.pushedBodyLimit) {
            case .success(let body): return receiver.receive(key: key, body: body)
            case .failure(let refusal): return refusal.status
            }
        }
        router.post("fhir/:key", use: handle)
        router.put("fhir/:key/**", use: handle)
        let (listening, stop) = await LoopbackServer.start(router, port: port)
        guard listening > 0 else {
            throw .infrastructure("the FHIR Subscription receiver could not listen on 127.0.0.1 (port \(port))")
        }
        let receiver = SubscriptionReceiver(
            settings: settings,
            contract: contract,
            url: "http://127.0.0.1:\(listening)/fhir/",
            stream: PushFlood.stream(),
            flood: Locked(PushFlood(channel: "the FHIR Subscription receiver")),
            stop: stop
        )
        holder.withLock { $0 = receiver }
        return receiver
    }

    /// The endpoint of the Subscription with key `key`, as the server is told it.
    func endpoint(_ key: String) -> String { (settings.endpointBase ?? url) + key }

    /// A new endpoint key: 128 random bits in hex (a credential, not traffic: it shapes nothing judged).
    static func newKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
    }

    /// Takes one notification: the status to answer, its alerts passed on, its focus references
    /// fetched (after the answer, so the server's notifier is not held up).
    func receive(key: String, body: [UInt8]) -> HTTPResponse.Status {
        let reception = notifications.withLock { $0.receive(key: key, body: body) }
        if reception.status == 404 {
            // Not an endpoint this run gave a server: whoever sent it, it is not judged.
            contract.pushRefused(reception.refusal ?? "a notification on an endpoint no Subscription of this run has")
        } else if let refusal = reception.refusal {
            contract.pushedUnreadable(refusal)
        }
        for alert in reception.alerts where !PushFlood.pass(alert, to: continuation, flood) { return .tooManyRequests }
        if !reception.fetch.isEmpty, let fetch = fetcher.withLock({ $0 }) {
            Task { await self.resolve(reception.fetch, key: key, fetch: fetch) }
        }
        return HTTPResponse.Status(code: reception.status)
    }

    /// Reads the focus resources of an id-only notification and takes them as if they had come with it.
    func resolve(_ references: [String], key: String, fetch: @Sendable (String) async -> [UInt8]?) async {
        for reference in references {
            guard let bytes = await fetch(reference),
                let resource = try? SUTJSON.document(bytes) as? [String: Any]
            else {
                contract.pushedUnreadable("the focus \(reference) of an id-only notification could not be read")
                continue
            }
            let reception = notifications.withLock { $0.resolved(key: key, resource: resource) }
            if let refusal = reception.refusal { contract.pushedUnreadable(refusal) }
            for alert in reception.alerts { _ = PushFlood.pass(alert, to: continuation, flood) }
        }
    }
}

extension String {
    /// The string with zeros before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
