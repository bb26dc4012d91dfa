import Foundation

/// Where and as whom a process exports its OpenTelemetry spans and metrics over OTLP/HTTP
/// (`--otlp-endpoint`): the collector's base URL (its `/v1/traces` and `/v1/metrics` are posted
/// to), the service name and the resource attributes every span and metric carries.
package struct OTLPDestination: Sendable, Equatable {
    /// The collector's base URL, as `http://127.0.0.1:4318` (no trailing `/v1/…`).
    package var endpoint: String
    /// `service.name` of the resource.
    package var serviceName: String
    /// Further resource attributes (the run id, the shard).
    package var attributes: [String: String]
    /// How often metrics are exported while the process runs (and once more as it ends).
    package var metricsInterval: Duration
    /// How long one export may take, its retries included (OTLP's default: 10 s).
    package var timeout: Duration
    /// The upper bounds of the value histograms' buckets (the exporting process's own; empty:
    /// swift-otel's default).
    package var histogramBuckets: [Double]

    /// A destination at `endpoint`, checked: an absolute http:// or https:// URL with a host.
    package init(
        endpoint: String,
        serviceName: String,
        attributes: [String: String] = [:],
        metricsInterval: Duration = .seconds(5),
        timeout: Duration = .seconds(10),
        histogramBuckets: [Double] = []
    ) throws(TelemetryError) {
        var base = endpoint
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw .badEndpoint(endpoint, "expected an http:// or https:// URL such as http://127.0.0.1:4318")
        }
        guard !url.path.hasSuffix("/v1/traces"), !url.path.hasSuffix("/v1/metrics") else {
            throw .badEndpoint(endpoint, "give the collector's base URL; /v1/traces and /v1/metrics are added")
        }
        self.endpoint = base
        self.serviceName = serviceName
        self.attributes = attributes
        self.metricsInterval = metricsInterval
        self.timeout = timeout
        self.histogramBuckets = histogramBuckets
    }

    /// The URL spans are posted to.
    package var tracesURL: String { endpoint + "/v1/traces" }
    /// The URL metrics are posted to.
    package var metricsURL: String { endpoint + "/v1/metrics" }
}

/// Why OpenTelemetry export could not start.
package enum TelemetryError: Error, Equatable, CustomStringConvertible {
    /// This `vitalsim` was built without the OTLP trait.
    case notBuilt
    /// The endpoint given is not one an exporter can post to.
    case badEndpoint(String, String)
    /// swift-otel refused the configuration.
    case refused(String)

    package var description: String {
        switch self {
        case .notBuilt:
            "--otlp-endpoint: this vitalsim was built without OpenTelemetry export; build it with "
                + "`swift build -c release --traits OTLP` (docs/live-runs.md, \"OpenTelemetry\")"
        case .badEndpoint(let endpoint, let why): "--otlp-endpoint \(endpoint): \(why)"
        case .refused(let why): "--otlp-endpoint: the OpenTelemetry exporter refused its configuration: \(why)"
        }
    }
}
