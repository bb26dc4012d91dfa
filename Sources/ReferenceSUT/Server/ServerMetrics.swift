import Locking
import Prometheus
import ReferenceEngine

/// Counters and the alert-latency histogram behind `GET /metrics` (Prometheus text format 0.0.4,
/// written by swift-prometheus). Labels carry routes, statuses, rules and channels — never patient
/// ids or health values.
package final class ServerMetrics: Sendable {
    struct Key: Hashable {
        var name: String
        var labels: [String]
    }

    struct State {
        var counters: [Key: Counter] = [:]
        var recent: [Double] = []
        var recentNext = 0
        var quantiles: [Gauge] = []
    }

    /// Histogram bucket upper bounds, seconds.
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// The quantiles of the recent alert latencies shown as gauges.
    static let recentQuantiles: [Double] = [0.5, 0.9, 0.99, 0.999, 1]
    static let help: [String: String] = [
        "vitalsim_http_requests_total": "HTTP requests by route and status.",
        "vitalsim_readings_total": "Readings by source and outcome (accepted, duplicate, rejected, rate-limited).",
        "vitalsim_alerts_total": "Alerts published, by rule and severity.",
        "vitalsim_alert_deliveries_total": "Alert deliveries by channel and outcome.",
        "vitalsim_alert_webhook_retries_total": "Webhook delivery retries.",
        "vitalsim_storage_commits_total": "Group commits to storage (one transaction and sync each).",
        "vitalsim_storage_committed_readings_total": "Readings written by group commits.",
        "vitalsim_mqtt_messages_total": "MQTT messages received on vitals/#, by outcome.",
        "vitalsim_alert_actions_total": "People's actions on alerts (acknowledge, dismiss, respond).",
        "vitalsim_audit_events_total":
            "Audit trail entries recorded, by FHIR action (C, R, U, D); outcome failed: not stored.",
    ]
    let registry = PrometheusCollectorRegistry()
    let latency: ValueHistogram
    let state = Locked(State())

    package init() {
        latency = registry.makeValueHistogram(
            descriptor: Self.descriptor(
                "vitalsim_alert_latency_seconds",
                "Server-side alert latency: receipt of the reading to publication."
            ),
            buckets: Self.bounds
        )
    }

    /// A metric's whole name (no namespace or unit parts of its own) and its `# HELP` text.
    static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// Adds `by` (not negative) to a counter.
    package func count(_ name: String, _ labels: [String: String] = [:], by: Double = 1) {
        guard by >= 0 else { return }
        let pairs = labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let key = Key(name: name, labels: pairs.flatMap { [$0.0, $0.1] })
        let counter = state.withLock { s in
            if let c = s.counters[key] { return c }
            let c = registry.makeCounter(descriptor: Self.descriptor(name, Self.help[name] ?? name), labels: pairs)
            s.counters[key] = c
            return c
        }
        if by == by.rounded(), by < 9e18 { counter.increment(by: Int64(by)) } else { counter.increment(by: by) }
    }

    /// Records the server-side alert latency: receipt of the reading that raised it → publication.
    package func observeAlertLatency(seconds: Double) {
        latency.record(seconds)
        state.withLock { s in
            if s.recent.count < 100_000 {
                s.recent.append(seconds)
            } else {
                s.recent[s.recentNext] = seconds
                s.recentNext = (s.recentNext + 1) % 100_000
            }
            if s.quantiles.isEmpty {
                // Shown once there is a latency to show.
                s.quantiles = Self.recentQuantiles.map { q in
                    registry.makeGauge(
                        descriptor: Self.descriptor(
                            "vitalsim_alert_latency_recent_seconds",
                            "Exact alert-latency quantiles over the last 100,000 alerts."
                        ),
                        labels: [("quantile", format(q))]
                    )
                }
            }
        }
    }

    /// Quantile of the most recent 100,000 alert latencies (nil with none).
    package func alertLatencyQuantile(_ q: Double) -> Double? {
        ServerMetrics.quantile(state.withLock { $0.recent }.sorted(), q)
    }

    /// Nearest-rank quantile of sorted values.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = max(1, Int((q * Double(sorted.count)).rounded(.up)))
        return sorted[min(sorted.count, rank) - 1]
    }

    /// Prometheus exposition text.
    package func render() -> String {
        let (recent, gauges) = state.withLock { ($0.recent, $0.quantiles) }
        let sorted = recent.sorted()
        for (q, gauge) in zip(Self.recentQuantiles, gauges) { gauge.set(to: Self.quantile(sorted, q) ?? 0) }
        return registry.emitToString()
    }

    func format(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v) }
}
