import Foundation
import Hummingbird
import Judge
import VitalSimCore
import Wire

/// Why an item of an alert list cannot be read as an alert.
package struct UnreadableAlert: Error {
    package let reason: String

    package init(reason: String) { self.reason = reason }
}

extension ObservedAlert {
    /// An alert from its JSON (`{alertId, patientId, rule, severity, raisedAt, evidence}`): the four
    /// strings present and not empty, `raisedAt` an RFC 3339 time stamp, `evidence` (optional) an
    /// array of reading ids; otherwise what is wrong.
    package static func read(_ json: [String: Any]) -> Result<ObservedAlert, UnreadableAlert> {
        var text: [String: String] = [:]
        for key in ["alertId", "patientId", "rule", "severity", "raisedAt"] {
            guard let v = json[key] as? String, !v.isEmpty else {
                return .failure(UnreadableAlert(reason: json[key] == nil ? "it has no \(key)" : "its \(key) is not a non-empty string"))
            }
            text[key] = v
        }
        guard let raisedAt = CivilTime.unixMilliseconds(rfc3339: text["raisedAt"] ?? "") else {
            return .failure(UnreadableAlert(reason: "its raisedAt '\(text["raisedAt"] ?? "")' is not an RFC 3339 time stamp"))
        }
        let evidence = json["evidence"].map { $0 as? [String] } ?? []
        guard let evidence else { return .failure(UnreadableAlert(reason: "its evidence is not an array of reading ids")) }
        return .success(
            ObservedAlert(
                alertID: text["alertId"] ?? "",
                patientID: text["patientId"] ?? "",
                rule: text["rule"] ?? "",
                severity: text["severity"] ?? "",
                raisedAt: raisedAt,
                evidence: evidence
            )
        )
    }

    /// An alert from its JSON; nil when it cannot be read (``read(_:)``).
    init?(json: [String: Any]) {
        guard case .success(let a) = ObservedAlert.read(json) else { return nil }
        self = a
    }

    /// An alert from JSON bytes.
    init?(bytes: [UInt8]) {
        guard let o = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return nil }
        self.init(json: o)
    }
}

/// One answer of the alert API (`GET /api/v1/alerts`), as the run's poller and `vitalsim doctor`
/// read it: the alerts it lists, and the items that cannot be read as alerts.
package struct AlertList {
    package var alerts: [ObservedAlert] = []
    /// Items that are not readable alerts: how many, and the first with why.
    package var unreadable = 0
    package var firstUnreadable: String?

    /// What is wrong with an answer as a whole (not 200, not a JSON array of objects).
    package struct Problem: Error {
        package let text: String
    }

    /// Reads an answer of `url`.
    package static func read(_ reply: HTTPReply, url: String) -> Result<AlertList, Problem> {
        guard reply.status == 200 else {
            return .failure(Problem(text: "GET \(url) answered \(reply.status): \(RunHealth.excerpt(reply.body))"))
        }
        guard let items = try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [[String: Any]] else {
            return .failure(
                Problem(text: "GET \(url) answered 200 with a body that is not a JSON array of alerts: \(RunHealth.excerpt(reply.body))")
            )
        }
        var list = AlertList()
        for json in items {
            switch ObservedAlert.read(json) {
            case .success(let alert): list.alerts.append(alert)
            case .failure(let why):
                list.unreadable += 1
                if list.firstUnreadable == nil {
                    let text = (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])).map { Array($0) } ?? []
                    list.firstUnreadable = "\(why.reason): \(RunHealth.excerpt(text))"
                }
            }
        }
        return .success(list)
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
    package static func sse(base: String, caFile: String?, insecure: Bool, headers: [String]) -> PushObserver {
        let client = SSEClient(url: base + "/api/v1/alerts/stream", caFile: caFile, insecure: insecure, headers: headers)
        client.start()
        let (stream, continuation) = AsyncStream.makeStream(of: ObservedAlert.self, bufferingPolicy: .unbounded)
        Task {
            for await e in client.events { if let a = ObservedAlert(bytes: Array(e.data.utf8)) { continuation.yield(a) } }
            continuation.finish()
        }
        return PushObserver(kind: .sse, alerts: stream, stop: { client.stop() })
    }

    /// Subscribes to `alerts/+` (SUBACK awaited) on its own connection to the broker.
    package static func mqtt(host: String, port: Int, clientID: String, caFile: String? = nil) async throws(MQTTError) -> PushObserver {
        let client = try MQTTClient(.init(host: host, port: port, clientID: clientID, caFile: caFile))
        try await client.connect()
        try await client.subscribeAcknowledged("alerts/+", qos: 1)
        let (stream, continuation) = AsyncStream.makeStream(of: ObservedAlert.self, bufferingPolicy: .unbounded)
        Task {
            for await m in client.messages { if let a = ObservedAlert(bytes: m.payload) { continuation.yield(a) } }
            continuation.finish()
        }
        return PushObserver(kind: .mqtt, alerts: stream, stop: { client.disconnect() })
    }
}

extension PushObserver {
    /// A webhook receiver on `127.0.0.1:port` (0: a free port): every `POST` whose body is an alert is
    /// observed and answered 204; anything else 400. Returns once listening, with the URL to give the SUT.
    package static func webhook(port: Int = 0) async throws(HarnessError) -> (PushObserver, url: String) {
        let (stream, continuation) = AsyncStream.makeStream(of: ObservedAlert.self, bufferingPolicy: .unbounded)
        let router = Router()
        router.post("alerts") { request, _ -> HTTPResponse.Status in
            guard let body = try? await request.body.collect(upTo: 1 << 20), let alert = ObservedAlert(bytes: Array(body.readableBytesView))
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
        let server = Task {
            try? await app.runService(gracefulShutdownSignals: [])
            announce.finish()
        }
        var port = 0
        for await p in bound { port = p }
        guard port > 0 else {
            server.cancel()
            throw .infrastructure("the webhook receiver could not listen on 127.0.0.1 (port \(port))")
        }
        let observer = PushObserver(
            kind: .webhook,
            alerts: stream,
            stop: {
                server.cancel()
                continuation.finish()
            }
        )
        return (observer, "http://127.0.0.1:\(port)/alerts")
    }
}
