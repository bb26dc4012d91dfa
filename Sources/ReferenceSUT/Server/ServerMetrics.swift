import Locking
import ReferenceEngine

/// Counters and the alert-latency histogram behind `GET /metrics` (Prometheus text format 0.0.4).
/// Labels carry routes, statuses, rules and channels — never patient ids or health values.
package final class ServerMetrics: Sendable {
    struct Key: Hashable, Comparable {
        var name: String
        var labels: String
        static func < (a: Key, b: Key) -> Bool { (a.name, a.labels) < (b.name, b.labels) }
    }

    struct State {
        var counters: [Key: Double] = [:]
        var latencyBuckets = [Int](repeating: 0, count: ServerMetrics.bounds.count)
        var latencySum = 0.0
        var latencyCount = 0
        var recent: [Double] = []
        var recentNext = 0
    }

    /// Histogram bucket upper bounds, seconds.
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
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
    let state = Locked(State())

    package init() {}

    /// Adds `by` to a counter.
    package func count(_ name: String, _ labels: [String: String] = [:], by: Double = 1) {
        let text = labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",")
        state.withLock { $0.counters[Key(name: name, labels: text), default: 0] += by }
    }

    /// Records the server-side alert latency: receipt of the reading that raised it → publication.
    package func observeAlertLatency(seconds: Double) {
        state.withLock { s in
            if let i = ServerMetrics.bounds.firstIndex(where: { seconds <= $0 }) { s.latencyBuckets[i] += 1 }
            s.latencySum += seconds
            s.latencyCount += 1
            if s.recent.count < 100_000 {
                s.recent.append(seconds)
            } else {
                s.recent[s.recentNext] = seconds
                s.recentNext = (s.recentNext + 1) % 100_000
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

    /// The value of one counter (tests and benchmarks).
    package func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        let text = labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",")
        return state.withLock { $0.counters[Key(name: name, labels: text)] ?? 0 }
    }

    /// Prometheus exposition text.
    package func render() -> String {
        let s = state.withLock { $0 }
        var out = ""
        var lastName = ""
        for (key, value) in s.counters.sorted(by: { $0.key < $1.key }) {
            if key.name != lastName {
                out += "# HELP \(key.name) \(ServerMetrics.help[key.name] ?? key.name)\n# TYPE \(key.name) counter\n"
                lastName = key.name
            }
            out +=
                key.labels.isEmpty ? "\(key.name) \(format(value))\n" : "\(key.name){\(key.labels)} \(format(value))\n"
        }
        out +=
            "# HELP vitalsim_alert_latency_seconds Server-side alert latency: receipt of the reading to publication.\n"
        out += "# TYPE vitalsim_alert_latency_seconds histogram\n"
        var cumulative = 0
        for (i, bound) in ServerMetrics.bounds.enumerated() {
            cumulative += s.latencyBuckets[i]
            out += "vitalsim_alert_latency_seconds_bucket{le=\"\(format(bound))\"} \(cumulative)\n"
        }
        out += "vitalsim_alert_latency_seconds_bucket{le=\"+Inf\"} \(s.latencyCount)\n"
        out +=
            "vitalsim_alert_latency_seconds_sum \(format(s.latencySum))\nvitalsim_alert_latency_seconds_count \(s.latencyCount)\n"
        if !s.recent.isEmpty {
            out +=
                "# HELP vitalsim_alert_latency_recent_seconds Exact alert-latency quantiles over the last 100,000 alerts.\n"
            out += "# TYPE vitalsim_alert_latency_recent_seconds gauge\n"
            let sorted = s.recent.sorted()
            for q in [0.5, 0.9, 0.99, 0.999, 1] {
                out +=
                    "vitalsim_alert_latency_recent_seconds{quantile=\"\(format(q))\"} \(ServerMetrics.quantile(sorted, q) ?? 0)\n"
            }
        }
        return out
    }

    func format(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v) }
}
