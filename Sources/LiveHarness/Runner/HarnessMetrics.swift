import CoreMetrics
import Hummingbird
import Logging
import Prometheus

/// The harness's own progress as Prometheus metrics (swift-prometheus), for a long or sharded run
/// watched from the team's Prometheus or Grafana while it goes (`vitalsim run --metrics-port`):
/// requests sent and answered by outcome, readings acknowledged, latency histograms of reading →
/// acknowledgement and of the harness's own scheduling lag, and how far each scenario's time has
/// got — each labelled with the run id, the shard and the scenario. The same instruments go to an
/// OpenTelemetry exporter's metrics factory when one is given (`--otlp-endpoint`), named with dots
/// (`vitalsim.harness.requests_sent`) as OpenTelemetry names are.
package final class HarnessMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let run: String
    let shard: String
    /// Where the instruments are exported besides the Prometheus registry (swift-metrics).
    let exported: (any MetricsFactory)?

    /// Histogram bucket upper bounds, seconds (also those of its OpenTelemetry export).
    package static let bounds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// Metrics of run `run` (shard `I/N`, or `all`), also recorded through `exporting`.
    package init(run: String, shard: String, exporting: (any MetricsFactory)? = nil) {
        self.run = run
        self.shard = shard
        exported = exporting
    }

    func labels(_ scenario: String, _ more: [(String, String)] = []) -> [(String, String)] {
        [("run", run), ("shard", shard), ("scenario", scenario)] + more
    }

    static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// A request dispatched, `lagSeconds` after it was due.
    package func dispatched(scenario: String, lagSeconds: Double) {
        registry.makeCounter(
            descriptor: Self.descriptor("vitalsim_harness_requests_sent_total", "Requests and MQTT messages sent."),
            labels: labels(scenario)
        ).increment()
        registry.makeValueHistogram(
            descriptor: Self.descriptor(
                "vitalsim_harness_scheduling_lag_seconds",
                "How late the harness itself dispatched requests against the schedule."
            ),
            labels: labels(scenario),
            buckets: Self.bounds
        ).record(lagSeconds)
        if let exported {
            Counter(label: "vitalsim.harness.requests_sent", dimensions: labels(scenario), factory: exported)
                .increment()
            Recorder(
                label: "vitalsim.harness.scheduling_lag_seconds",
                dimensions: labels(scenario),
                aggregate: true,
                factory: exported
            ).record(lagSeconds)
        }
    }

    /// A request's final answer: `status` (nil: none came), its `readings`, and the latency from
    /// when it was due.
    package func answered(scenario: String, status: Int?, readings: Int, latencySeconds: Double) {
        let outcome =
            switch status {
            case .some(let s) where s < 300: "acknowledged"
            case .some(let s) where s < 500: "rejected"
            default: "failed"
            }
        registry.makeCounter(
            descriptor: Self.descriptor(
                "vitalsim_harness_readings_total",
                "Readings by their request's final outcome (acknowledged 2xx, rejected 3xx/4xx, failed: 5xx or none)."
            ),
            labels: labels(scenario, [("outcome", outcome)])
        ).increment(by: Int64(readings))
        if let exported {
            Counter(
                label: "vitalsim.harness.readings",
                dimensions: labels(scenario, [("outcome", outcome)]),
                factory: exported
            )
            .increment(by: readings)
        }
        guard let status, status < 500 else { return }
        registry.makeValueHistogram(
            descriptor: Self.descriptor(
                "vitalsim_harness_reading_to_ack_seconds",
                "Reading → acknowledgement, from each request's intended send time."
            ),
            labels: labels(scenario),
            buckets: Self.bounds
        ).record(latencySeconds)
        if let exported {
            Recorder(
                label: "vitalsim.harness.reading_to_ack_seconds",
                dimensions: labels(scenario),
                aggregate: true,
                factory: exported
            ).record(latencySeconds)
        }
    }

    /// How far the scenario's time has got (0…1).
    package func progress(scenario: String, fraction: Double) {
        registry.makeGauge(
            descriptor: Self.descriptor("vitalsim_harness_progress_ratio", "Share of the scenario's time reached."),
            labels: labels(scenario)
        ).set(to: fraction)
        if let exported {
            Gauge(label: "vitalsim.harness.progress_ratio", dimensions: labels(scenario), factory: exported).record(
                fraction
            )
        }
    }

    /// Prometheus exposition text.
    package func render() -> String { registry.emitToString() }

    /// Serves `GET /metrics` on 127.0.0.1:`port` (0: any free port) until `stop` is called; returns
    /// the port it listens on.
    package func serve(port: Int) async throws(HarnessError) -> (port: Int, stop: @Sendable () -> Void) {
        let router = Router()
        router.get("metrics") { [self] _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: render()))
            )
        }
        var logger = Logger(label: "vitalsim.metrics")
        logger.logLevel = .warning
        let (listening, stop) = await LoopbackServer.start(router, port: port, logger: logger)
        guard listening > 0 else { throw .usage("--metrics-port: cannot listen on 127.0.0.1:\(port) (in use?)") }
        return (listening, stop)
    }
}
