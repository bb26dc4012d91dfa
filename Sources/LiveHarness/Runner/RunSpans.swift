import Judge
import RunRecord
import Tracing
import Traffic

/// The run's spans, for a team's tracing system (`--otlp-endpoint`, OpenTelemetry): one client span
/// per request from its intended send time to its final answer, and one span per observed alert from
/// the intended send time of its last evidence reading to the moment the harness first saw it. Each
/// is in the trace the request's `traceparent` names (``RequestTrace``), as a child of the request's
/// own span id (attempt 0, which is never on the wire): the SUT's spans of each attempt share the
/// trace. Every span carries the run id, shard and scenario. Spans are told in wall-clock time (the
/// run's clock may be virtual): the moments are placed before `now` by how long ago they were.
package struct RunSpans: Sendable {
    let tracer: any Tracer
    let trace: RequestTrace
    let shard: String

    /// Spans of the run `trace` names (its run id and scenario), shard `I/N` or `all`.
    package init(tracer: any Tracer, trace: RequestTrace, shard: String) {
        self.tracer = tracer
        self.trace = trace
        self.shard = shard
    }

    /// The request's final answer, `sinceIntended` seconds after it was due; `now` the wall clock.
    package func answered(
        _ request: PlannedRequest,
        _ outcome: RequestOutcome,
        sinceIntended: Double,
        now: DefaultTracerClock.Timestamp = DefaultTracerClock.now
    ) {
        let name = request.topic.map { "publish \($0)" } ?? "\(request.method) \(request.path)"
        let span = tracer.startSpan(
            name,
            context: context(RequestTrace.key(request)),
            ofKind: request.topic == nil ? .client : .producer,
            at: Self.before(now, seconds: sinceIntended)
        )
        describe(span, patient: request.patientID, device: request.deviceID)
        span.attributes["vitalsim.readings"] = request.readings.count
        if let first = request.readings.first?.id { span.attributes["vitalsim.first_reading"] = first }
        span.attributes["vitalsim.attempts"] = outcome.attempts
        if let expected = request.expectedRejection { span.attributes["vitalsim.expected_rejection"] = expected.field }
        if let status = outcome.status {
            span.attributes[request.topic == nil ? "http.response.status_code" : "mqtt.reason"] = status
        }
        if outcome.status == nil || outcome.status! >= 500 {
            span.setStatus(SpanStatus(code: .error, message: outcome.error ?? outcome.status.map { "status \($0)" }))
        }
        span.end(at: now)
    }

    /// An alert first seen `sinceSeen` seconds ago, `sinceDue` seconds after its last evidence
    /// reading was due; `carrier` the request that carried that reading (nil: none known, no span).
    package func observed(
        _ alert: ObservedAlert,
        carrier: SentRequest?,
        sinceDue: Double,
        sinceSeen: Double,
        now: DefaultTracerClock.Timestamp = DefaultTracerClock.now
    ) {
        guard let carrier else { return }
        let span = tracer.startSpan(
            "alert \(alert.rule)",
            context: context(RequestTrace.key(carrier)),
            ofKind: .consumer,
            at: Self.before(now, seconds: sinceDue)
        )
        describe(span, patient: alert.patientID, device: carrier.deviceID)
        span.attributes["vitalsim.alert.id"] = alert.alertID
        span.attributes["vitalsim.alert.rule"] = alert.rule
        span.attributes["vitalsim.alert.severity"] = alert.severity
        span.end(at: Self.before(now, seconds: sinceSeen))
    }

    func describe(_ span: any Span, patient: String, device: String) {
        span.attributes["vitalsim.run_id"] = trace.run
        span.attributes["vitalsim.shard"] = shard
        span.attributes["vitalsim.scenario"] = trace.scenario
        span.attributes["vitalsim.patient"] = patient
        span.attributes["vitalsim.device"] = device
    }

    /// The context whose parent is the request's own span (attempt 0) in the request's trace.
    func context(_ key: String) -> ServiceContext {
        var context = ServiceContext.topLevel
        tracer.extract(trace.traceparent(firstReading: key, attempt: 0), into: &context, using: TraceparentCarrier())
        return context
    }

    static func before(_ now: DefaultTracerClock.Timestamp, seconds: Double) -> DefaultTracerClock.Timestamp {
        let back = UInt64(max(0, seconds) * 1e9)
        return DefaultTracerClock.Timestamp(
            nanosecondsSinceEpoch: now.nanosecondsSinceEpoch - min(back, now.nanosecondsSinceEpoch)
        )
    }
}

/// A `traceparent` value as the carrier the tracer's propagator reads.
struct TraceparentCarrier: Extractor {
    func extract(key: String, from carrier: String) -> String? {
        key == RequestTrace.header ? carrier : nil
    }
}
