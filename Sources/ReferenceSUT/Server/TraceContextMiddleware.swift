import HTTPTypes
import Hummingbird
import Logging
import W3CTraceContext

/// The W3C trace context the reference SUT continues: a request's (or MQTT message's) `traceparent`
/// becomes the parent of the SUT's own span for it — the same trace id, a new span id — which is
/// answered in `traceresponse` (Trace Context Level 2), logged as `trace_id`, and carried by the
/// alerts the request raised to the webhook (`traceparent` header) and MQTT (`traceparent` user
/// property). A malformed `traceparent` is ignored, as the W3C recommendation says.
package enum ReferenceTrace {
    /// The span of the request being handled, if its sender sent a trace context.
    @TaskLocal package static var current: TraceContext?

    /// The SUT's span under a `traceparent` value; nil when there is none or it is malformed.
    package static func child(of traceparent: String?) -> TraceContext? {
        guard let traceparent, let parent = try? TraceContext(traceParentHeaderValue: traceparent) else { return nil }
        return TraceContext(traceID: parent.traceID, spanID: .random(), flags: parent.flags, state: parent.state)
    }

    /// A child of `span` for a delivery it causes (a webhook POST, an MQTT publication).
    package static func delivery(under span: TraceContext) -> String {
        TraceContext(traceID: span.traceID, spanID: .random(), flags: span.flags, state: span.state)
            .traceParentHeaderValue
    }

    static let traceparent = HTTPField.Name("traceparent")!
    static let traceresponse = HTTPField.Name("traceresponse")!
}

/// Continues each request's trace (``ReferenceTrace``).
struct TraceContextMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let span = ReferenceTrace.child(of: request.headers[ReferenceTrace.traceparent]) else {
            return try await next(request, context)
        }
        var context = context
        context.logger[metadataKey: "trace_id"] = "\(span.traceID)"
        var response = try await ReferenceTrace.$current.withValue(span) { try await next(request, context) }
        response.headers[ReferenceTrace.traceresponse] = span.traceParentHeaderValue
        return response
    }
}
