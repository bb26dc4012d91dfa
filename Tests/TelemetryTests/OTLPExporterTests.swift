import Logging
import Telemetry
import Testing
import Tracing

/// The OTLP destination's checks and the exporter's life cycle, in-process; what a real collector
/// receives is `IntegrationTests.OTLPExportTests`.
struct OTLPExporterTests {
    @Test func theCollectorsBaseURLNamesBothSignalsPaths() throws {
        let destination = try OTLPDestination(endpoint: "http://127.0.0.1:4318/", serviceName: "vitalsim")
        #expect(destination.endpoint == "http://127.0.0.1:4318")
        #expect(destination.tracesURL == "http://127.0.0.1:4318/v1/traces")
        #expect(destination.metricsURL == "http://127.0.0.1:4318/v1/metrics")
        #expect(
            try OTLPDestination(endpoint: "https://[::1]:4318/otel", serviceName: "s").tracesURL
                == "https://[::1]:4318/otel/v1/traces"
        )
    }

    @Test(arguments: [
        (
            "127.0.0.1:4318",
            "--otlp-endpoint 127.0.0.1:4318: expected an http:// or https:// URL such as http://127.0.0.1:4318"
        ),
        (
            "ftp://127.0.0.1",
            "--otlp-endpoint ftp://127.0.0.1: expected an http:// or https:// URL such as http://127.0.0.1:4318"
        ),
        (
            "http://127.0.0.1:4318/v1/traces",
            "--otlp-endpoint http://127.0.0.1:4318/v1/traces: give the collector's base URL; /v1/traces and /v1/metrics are added"
        ),
    ])
    func aMistakenEndpointIsNamed(_ endpoint: String, _ message: String) {
        #expect(throws: TelemetryError.self) { try OTLPDestination(endpoint: endpoint, serviceName: "s") }
        do {
            _ = try OTLPDestination(endpoint: endpoint, serviceName: "s")
        } catch {
            #expect(error.description == message)
        }
    }

    #if OTLP
    /// A collector that is not there costs the process nothing but the export's own timeout: the
    /// spans are dropped (with a warning at the logger's level) and shutting down returns.
    @Test(.timeLimit(.minutes(1))) func anAbsentCollectorDoesNotHoldTheProcess() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let destination = try OTLPDestination(endpoint: "http://127.0.0.1:9", serviceName: "test", timeout: .seconds(1))
        let exporter = try OTLPExporter.start(destination, logger: logger)
        #expect(OTLPExporter.isAvailable)
        let span = exporter.tracer.startSpan("probe", context: .topLevel)
        span.end()
        await exporter.shutdown()
    }
    #else
    @Test func aBuildWithoutTheTraitSaysHowToGetIt() throws {
        #expect(!OTLPExporter.isAvailable)
        let destination = try OTLPDestination(endpoint: "http://127.0.0.1:4318", serviceName: "test")
        #expect(throws: TelemetryError.notBuilt) { try OTLPExporter.start(destination, logger: Logger(label: "test")) }
        #expect(TelemetryError.notBuilt.description.contains("swift build -c release --traits OTLP"))
    }
    #endif
}
