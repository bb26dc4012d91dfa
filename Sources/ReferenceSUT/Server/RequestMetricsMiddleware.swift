import HTTPTypes
import Hummingbird
import Logging
import ReferenceEngine

/// Counts requests by route and status for /metrics, and logs each request at info level with its
/// method, route, status and duration — never bodies, query strings or patient ids.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let route = request.uri.path
        let known = [
            "/healthz", "/metrics", "/api/iot-heart-rate", "/api/healthkit", "/api/v1/observations",
            "/fhir/Observation", "/fhir",
            "/api/v1/alerts",
            "/api/v1/alerts/stream",
        ].contains(route)
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.count(
                "vitalsim_http_requests_total",
                ["route": known ? route : "other", "status": String(response.status.code)]
            )
            context.logger.info(
                "request",
                metadata: [
                    "method": "\(request.method)", "route": "\(known ? route : "other")",
                    "status": "\(response.status.code)", "duration": "\(ContinuousClock.now - start)",
                ]
            )
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.count("vitalsim_http_requests_total", ["route": known ? route : "other", "status": String(status)])
            throw error
        }
    }
}
