import ArgumentParser
import Logging
import Telemetry

/// `--otlp-endpoint`: OpenTelemetry export of a run's or the reference SUT's spans and metrics.
struct TelemetryFlags: ParsableArguments {
    @Option(
        name: .customLong("otlp-endpoint"),
        help: ArgumentHelp(
            "Export spans and metrics over OTLP/HTTP (protobuf) to this OpenTelemetry collector while the command runs, e.g. http://127.0.0.1:4318 (its /v1/traces and /v1/metrics). The OTEL_EXPORTER_OTLP_* variables apply as in any OpenTelemetry SDK. Needs a build with --traits OTLP.",
            valueName: "URL"
        )
    ) var otlpEndpoint: String?

    /// Starts the export as service `service` with the resource `attributes` and value histograms
    /// of `buckets`; nil without the flag.
    func start(service: String, attributes: [String: String], buckets: [Double] = []) throws -> OTLPExporter? {
        guard let otlpEndpoint else { return nil }
        do throws(TelemetryError) {
            let destination = try OTLPDestination(
                endpoint: otlpEndpoint,
                serviceName: service,
                attributes: attributes,
                histogramBuckets: buckets
            )
            var logger = Logger(label: "vitalsim.otlp")
            logger.logLevel = .warning
            let exporter = try OTLPExporter.start(destination, logger: logger)
            printError("OpenTelemetry: spans and metrics to \(destination.tracesURL) and \(destination.metricsURL)")
            return exporter
        } catch {
            throw CommandFailure.input(error.description)
        }
    }
}
