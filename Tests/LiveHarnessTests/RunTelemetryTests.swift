import Foundation
import InMemoryTracing
import Judge
import LiveHarness
import MetricsTestKit
import Testing
import Tracing
import Traffic

/// The run's OpenTelemetry instrumentation in-process (`--otlp-endpoint` gives it swift-otel's
/// tracer and metrics factory; `IntegrationTests.OTLPExportTests` exports to a real receiver): a
/// span per request and per observed alert, each started in the trace its request's `traceparent`
/// names, labelled with run, shard and scenario; the same counts and histograms as the Prometheus
/// endpoint, through swift-metrics.
struct RunTelemetryTests {
    static let scenario = InProcessRun.path("boundaries", "adult-thresholds")

    @Test func everyRequestAndAlertIsASpanInItsRequestsTraceAndEveryAnswerIsCounted() async throws {
        let tracer = InMemoryTracer()
        let exported = TestMetrics()
        let metrics = HarnessMetrics(run: "otel", shard: "all", exporting: exported)
        let verdict = try await InProcessRun.verdict(Self.scenario) { _ in
        } options: { options in
            options.runID = "otel"
            options.tracer = tracer
            options.metrics = metrics
        }
        #expect(InProcessRun.failures(verdict, latency: false) == [])
        let spans = tracer.finishedSpans
        let requests = spans.filter { $0.operationName.hasPrefix("POST /api/") }
        let alerts = spans.filter { $0.operationName.hasPrefix("alert ") }
        #expect(requests.count + alerts.count == spans.count)
        let labels: [(String, String)] = [("run", "otel"), ("shard", "all"), ("scenario", "adult-thresholds")]
        let sent = try exported.expectCounter("vitalsim.harness.requests_sent", labels)
        #expect(requests.count > 100)
        #expect(sent.totalValue == Int64(requests.count))
        let acknowledged = try exported.expectCounter(
            "vitalsim.harness.readings",
            labels + [("outcome", "acknowledged")]
        )
        let readings = requests.filter { $0.attributes.get("http.response.status_code") == .int64(200) }.map {
            Self.integer($0.attributes.get("vitalsim.readings"))
        }
        #expect(acknowledged.totalValue == readings.reduce(0, +))
        #expect(
            try exported.expectRecorder("vitalsim.harness.reading_to_ack_seconds", labels).values.count
                == requests.count
        )
        #expect(
            try exported.expectRecorder("vitalsim.harness.scheduling_lag_seconds", labels).values.count
                == requests.count
        )
        #expect(try exported.expectGauge("vitalsim.harness.progress_ratio", labels).lastValue == 1)

        // Each span was started from its request's traceparent (attempt 0, the request's own span).
        let parents = tracer.performedContextExtractions.compactMap { $0.carrier as? String }
        #expect(parents.count == spans.count)
        let traceIDs = parents.map { $0.split(separator: "-")[1] }
        #expect(parents.allSatisfy { $0.hasPrefix("00-") && $0.hasSuffix("-01") && $0.count == 55 })
        #expect(Set(traceIDs.prefix(requests.count)).count == requests.count)
        // Each alert span is in a trace the JSON verdict names for that alert.
        // Every alert, the heart-rate ones the reference SUT cites by ids of its own included (found
        // by their time, ``AlertCause``).
        #expect(alerts.count == verdict.alerts.count)
        #expect(verdict.alertTraces.count == verdict.alerts.count)
        #expect(alerts.contains { $0.operationName == "alert hr.bradycardia" })
        #expect(alerts.count == 8)
        for (span, parent) in zip(spans, parents) where span.operationName.hasPrefix("alert ") {
            let id = Self.text(span.attributes.get("vitalsim.alert.id"))
            #expect(verdict.alertTraces[id]?.contains(String(parent.split(separator: "-")[1])) == true, "\(id)")
            #expect(span.attributes.get("vitalsim.run_id") == .string("otel"))
            #expect(span.attributes.get("vitalsim.scenario") == .string("adult-thresholds"))
        }
        // A request span runs from the request's due time to its answer and names its patient and device.
        let first = try #require(requests.first)
        #expect(first.kind == .client)
        #expect(first.attributes.get("http.response.status_code") == .int64(200))
        #expect(first.attributes.get("vitalsim.patient") != nil && first.attributes.get("vitalsim.device") != nil)
        #expect(first.endInstant.nanosecondsSinceEpoch >= first.startInstant.nanosecondsSinceEpoch)
    }

    static func integer(_ attribute: SpanAttribute?) -> Int64 {
        guard case .int64(let number) = attribute else { return 0 }
        return number
    }

    static func text(_ attribute: SpanAttribute?) -> String {
        guard case .string(let text) = attribute else { return "" }
        return text
    }
}
