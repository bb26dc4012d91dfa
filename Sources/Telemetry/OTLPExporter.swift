import CoreMetrics
import Logging
import ServiceLifecycle
import Tracing

#if OTLP
import OTel
#endif

/// A process's OpenTelemetry export over OTLP/HTTP (swift-otel, with the package's OTLP trait): a
/// tracer whose spans are batched and posted to the collector, and a metrics factory whose
/// instruments are exported every ``OTLPDestination/metricsInterval``. Nothing is bootstrapped
/// globally: the harness and the reference SUT are handed ``tracer`` and ``metrics``. The standard
/// `OTEL_EXPORTER_OTLP_*` environment variables override the destination, as in every OpenTelemetry
/// SDK. ``shutdown()`` exports what is left and stops.
package final class OTLPExporter: Sendable {
    /// Spans started here are exported.
    package let tracer: any Tracer
    /// Instruments made here are exported.
    package let metrics: any MetricsFactory
    let group: ServiceGroup
    let running: Task<Void, Never>

    /// Whether this build can export (the OTLP trait).
    package static var isAvailable: Bool {
        #if OTLP
        true
        #else
        false
        #endif
    }

    init(tracer: any Tracer, metrics: any MetricsFactory, services: [any Service], logger: Logger) {
        self.tracer = tracer
        self.metrics = metrics
        let group = ServiceGroup(
            configuration: .init(
                services: services.map {
                    .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup)
                },
                logger: logger
            )
        )
        self.group = group
        running = Task { try? await group.run() }
    }

    /// Starts exporting to `destination`; swift-otel's own diagnostics go to `logger`.
    package static func start(_ destination: OTLPDestination, logger: Logger) throws(TelemetryError) -> OTLPExporter {
        #if OTLP
        var configuration = OTel.Configuration.default
        configuration.serviceName = destination.serviceName
        configuration.resourceAttributes = destination.attributes
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = diagnosticLevel(logger.logLevel)
        configuration.logs.enabled = false
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.traces.otlpExporter.endpoint = destination.tracesURL
        configuration.traces.otlpExporter.timeout = destination.timeout
        configuration.traces.batchSpanProcessor.scheduleDelay = .seconds(1)
        configuration.metrics.otlpExporter.protocol = .httpProtobuf
        configuration.metrics.otlpExporter.endpoint = destination.metricsURL
        configuration.metrics.otlpExporter.timeout = destination.timeout
        configuration.metrics.exportInterval = destination.metricsInterval
        if !destination.histogramBuckets.isEmpty {
            configuration.metrics.defaultValueHistogramBuckets = destination.histogramBuckets
        }
        do {
            let (tracer, tracing) = try OTel.makeTracingBackend(configuration: configuration)
            let (metrics, metering) = try OTel.makeMetricsBackend(configuration: configuration)
            return OTLPExporter(tracer: tracer, metrics: metrics, services: [tracing, metering], logger: logger)
        } catch {
            throw .refused(String(describing: error))
        }
        #else
        throw .notBuilt
        #endif
    }

    #if OTLP
    /// swift-otel's own level for its diagnostics, from the logger's.
    static func diagnosticLevel(_ level: Logger.Level) -> OTel.Configuration.LogLevel {
        switch level {
        case .trace: .trace
        case .debug: .debug
        case .info, .notice: .info
        case .warning: .warning
        case .error, .critical: .error
        }
    }
    #endif

    /// Makes ``tracer`` the process's tracer (`InstrumentationSystem`), for libraries that trace
    /// through it (Hummingbird's tracing middleware). Once per process.
    package func bootstrapInstrumentation() {
        InstrumentationSystem.bootstrap(tracer)
    }

    /// Exports the spans and metrics not yet exported, then stops.
    package func shutdown() async {
        await group.triggerGracefulShutdown()
        await running.value
    }
}
