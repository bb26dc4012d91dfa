import Foundation
import ReferenceEngine
import Synchronization
import Transports
import VitalSimCore
import W3CTraceContext

/// Fans published alerts out to every delivery channel: SSE subscribers, a webhook (ordered,
/// retried with exponential backoff) and MQTT `alerts/{patientId}` (QoS 1). Polling reads the
/// store directly.
package actor AlertHub {
    /// Where alerts go besides SSE and polling.
    package struct Channels: Sendable {
        package var webhook: String?
        package var webhookAttempts: Int
        /// How each webhook POST is signed; nil: unsigned.
        package var webhookSignature: WebhookSignature?
        package var mqtt: MQTTClient?
        package init(
            webhook: String? = nil,
            webhookSignature: WebhookSignature? = nil,
            webhookAttempts: Int = 8,
            mqtt: MQTTClient? = nil
        ) {
            self.webhook = webhook
            self.webhookSignature = webhookSignature
            self.webhookAttempts = webhookAttempts
            self.mqtt = mqtt
        }
    }

    struct Subscriber {
        var patient: String?
        var continuation: AsyncStream<(Int, Alert)>.Continuation
    }

    let channels: Channels
    let metrics: ServerMetrics
    let poster = HTTPPoster(label: "vitalsim.serve.webhook")
    var subscribers: [Int: Subscriber] = [:]
    var nextSubscriber = 0
    var webhookQueue: [(alert: Alert, trace: TraceContext?)] = []
    var webhookRunning = false
    var closed = false

    package init(channels: Channels = Channels(), metrics: ServerMetrics) {
        self.channels = channels
        self.metrics = metrics
    }

    /// Delivers one alert (its position in the published sequence is `sequence`).
    func deliver(_ alert: Alert, sequence: Int, trace: TraceContext? = nil) {
        for s in subscribers.values where s.patient == nil || s.patient == alert.patientID {
            s.continuation.yield((sequence, alert))
        }
        if channels.webhook != nil {
            webhookQueue.append((alert, trace))
            if !webhookRunning {
                webhookRunning = true
                Task { await self.drainWebhook() }
            }
        }
        if let mqtt = channels.mqtt {
            let metrics = self.metrics
            let message = MQTTMessage(
                topic: "alerts/\(alert.patientID)",
                payload: Array(alert.json.serialized().utf8),
                qos: 1,
                userProperties: [UserProperty("alert-id", alert.alertID), UserProperty("rule", alert.rule)]
                    + (trace.map { [UserProperty("traceparent", ReferenceTrace.delivery(under: $0))] } ?? [])
            )
            Task {
                do throws(MQTTError) {
                    try await mqtt.publish(message)
                    metrics.count("vitalsim_alert_deliveries_total", ["channel": "mqtt", "outcome": "delivered"])
                } catch {
                    metrics.count("vitalsim_alert_deliveries_total", ["channel": "mqtt", "outcome": "failed"])
                }
            }
        }
    }

    /// Posts queued alerts in order; each is retried with backoff 0.25 s, 0.5 s, … (capped at 8 s).
    func drainWebhook() async {
        guard let url = channels.webhook else { return }
        while !webhookQueue.isEmpty {
            let (alert, trace) = webhookQueue.removeFirst()
            let body = Array(alert.json.serialized().utf8)
            let traced = trace.map { ["traceparent: " + ReferenceTrace.delivery(under: $0)] } ?? []
            // Standard Webhooks' id is the alert's (the same on every retry); its time the server's.
            let signed =
                channels.webhookSignature?.headers(
                    for: body,
                    id: alert.alertID,
                    timestamp: Int(Date().timeIntervalSince1970)
                ) ?? []
            var delivered = false
            for attempt in 0..<channels.webhookAttempts {
                if attempt > 0 {
                    metrics.count("vitalsim_alert_webhook_retries_total")
                    try? await Task.sleep(for: .milliseconds(min(8000, 250 << (attempt - 1))))
                }
                if let reply = try? await poster.post(
                    url,
                    body: body,
                    headers: ["Content-Type: application/json", "X-VitalSim-Alert-Id: \(alert.alertID)"] + traced
                        + signed
                ),
                    (200..<300).contains(reply.status)
                {
                    delivered = true
                    break
                }
            }
            metrics.count(
                "vitalsim_alert_deliveries_total",
                ["channel": "webhook", "outcome": delivered ? "delivered" : "failed"]
            )
        }
        webhookRunning = false
    }

    /// A stream of `(sequence, alert)` for SSE; ends when the server shuts down.
    func subscribe(patient: String?) -> (Int, AsyncStream<(Int, Alert)>) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: (Int, Alert).self,
            bufferingPolicy: .bufferingNewest(10_000)
        )
        if closed {
            continuation.finish()
            return (-1, stream)
        }
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = Subscriber(patient: patient, continuation: continuation)
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return (id, stream)
    }

    func unsubscribe(_ id: Int) { subscribers[id] = nil }

    /// Ends every SSE stream (graceful shutdown) and waits briefly for queued webhook deliveries.
    package func close() async {
        closed = true
        for s in subscribers.values { s.continuation.finish() }
        subscribers = [:]
        for _ in 0..<50 where webhookRunning { try? await Task.sleep(for: .milliseconds(100)) }
    }
}
