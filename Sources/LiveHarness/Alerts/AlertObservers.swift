import Foundation
import Hummingbird
import Judge
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
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return nil }
        self.init(json: object)
    }
}

/// A push channel the SUT delivers alerts on, observed alongside the alert API: `vitalsim run
/// --observe sse|mqtt`. Each checks that every alert of the API arrived on the channel, once, and
/// measures reading → alert latency as the channel delivers it.
package final class PushObserver: Sendable {
    package typealias Kind = PushChannel

    package let kind: Kind
    /// Alerts as they arrive; ends after ``stop()``.
    package let alerts: AsyncStream<ObservedAlert>
    let stopper: @Sendable () -> Void

    init(kind: Kind, alerts: AsyncStream<ObservedAlert>, stop: @escaping @Sendable () -> Void) {
        self.kind = kind
        self.alerts = alerts
        stopper = stop
    }

    package func stop() { stopper() }

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
        let (stream, continuation) = AsyncStream.makeStream(of: ObservedAlert.self, bufferingPolicy: .unbounded)
        Task {
            for await event in client.events {
                if let alert = read(Array(event.data.utf8)) { continuation.yield(alert) }
            }
            continuation.finish()
        }
        return PushObserver(kind: .sse, alerts: stream, stop: { client.stop() })
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
        let (stream, continuation) = AsyncStream.makeStream(of: ObservedAlert.self, bufferingPolicy: .unbounded)
        Task {
            for await message in client.messages { if let alert = read(message.payload) { continuation.yield(alert) } }
            continuation.finish()
        }
        return PushObserver(kind: .mqtt, alerts: stream, stop: { client.disconnect() })
    }
}

extension PushObserver {
    /// A webhook receiver on `127.0.0.1:port` (0: a free port): every `POST` whose body is an alert is
    /// observed and answered 204; anything else 400. Returns once listening, with the URL to give the SUT.
    package static func webhook(
        port: Int = 0,
        read: @escaping @Sendable ([UInt8]) -> ObservedAlert? = { ObservedAlert(bytes: $0) }
    ) async throws(HarnessError) -> (PushObserver, url: String) {
        let (stream, continuation) = AsyncStream.makeStream(of: ObservedAlert.self, bufferingPolicy: .unbounded)
        let router = Router()
        router.post("alerts") { request, _ -> HTTPResponse.Status in
            guard let body = try? await request.body.collect(upTo: 1 << 20),
                let alert = read(Array(body.readableBytesView))
            else { return .badRequest }
            continuation.yield(alert)
            return .noContent
        }
        let (bound, announce) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                announce.yield(channel.localAddress?.port ?? 0)
                announce.finish()
            }
        )
        // Stopped by a graceful shutdown, not by cancelling its task: a cancelled Hummingbird server
        // logs "Already closed" and "CancellationError" as errors on every run's console.
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: app.logger))
        Task {
            try? await group.run()
            announce.finish()
        }
        var port = 0
        for await p in bound { port = p }
        guard port > 0 else {
            await group.triggerGracefulShutdown()
            throw .infrastructure("the webhook receiver could not listen on 127.0.0.1 (port \(port))")
        }
        let observer = PushObserver(
            kind: .webhook,
            alerts: stream,
            stop: {
                Task { await group.triggerGracefulShutdown() }
                continuation.finish()
            }
        )
        return (observer, "http://127.0.0.1:\(port)/alerts")
    }
}
