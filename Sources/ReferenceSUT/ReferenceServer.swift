import Foundation
import Hummingbird
import NIOCore
import VitalSimCore

/// The reference SUT's HTTP API (plain HTTP for now; TLS, credentials, MQTT, storage and alert
/// delivery other than polling are not built yet — see docs/alert-rules.md "Status").
public enum ReferenceServer {
    /// Largest accepted request body and JSON nesting.
    public static let maxBody = 256 * 1024
    public static let maxDepth = 8

    /// Routes of the SUT contract built so far.
    public static func router(store: ReferenceStore, clock: @escaping @Sendable () -> Int64) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("healthz") { _, _ in json(.ok, .object([("status", .string("ok"))])) }
        router.post("api/iot-heart-rate") { request, _ in
            await handle(request) { body throws(ValidationFailure) in
                let o = try PayloadValidation.iotHeartRate(body, now: clock())
                await store.ingest(o)
                return (.ok, .object([("status", .string("accepted")), ("readingId", .string(o.readingID))]))
            }
        }
        router.post("api/healthkit") { request, _ in
            await handle(request) { body throws(ValidationFailure) in
                let s = try PayloadValidation.healthKitSummary(body, now: clock())
                await store.ingestSummary(patientID: s.patientID, time: s.time, steps: s.steps, calories: s.calories)
                return (.ok, .object([("status", .string("accepted"))]))
            }
        }
        router.post("api/v1/observations") { request, _ in
            await handle(request) { body throws(ValidationFailure) in
                var items: [JSONInput] = []
                if case let .array(a) = body { items = a } else { items = [body] }
                guard !items.isEmpty, items.count <= 1000 else { throw ValidationFailure(field: "", message: "send 1 to 1000 observations") }
                var parsed: [Observation] = []
                for (i, item) in items.enumerated() {
                    do throws(ValidationFailure) { parsed.append(try PayloadValidation.observation(item, now: clock())) } catch {
                        throw ValidationFailure(field: items.count > 1 ? "[\(i)].\(error.field)" : error.field, message: error.message)
                    }
                }
                var accepted = 0
                for o in parsed where await store.ingest(o) { accepted += 1 }
                return (.ok, .object([("accepted", .int(Int64(accepted))), ("duplicates", .int(Int64(parsed.count - accepted)))]))
            }
        }
        router.get("api/v1/alerts") { request, _ in
            let patient = request.uri.queryParameters.get("patient")
            var since: Int64?
            if let s = request.uri.queryParameters.get("since") {
                guard let c = CivilTime(iso8601: s) else { return json(.badRequest, ValidationFailure(field: "since", message: "since must be ISO-8601 UTC").json) }
                since = c.unixMilliseconds
            }
            return json(.ok, .array(await store.alerts(patient: patient, since: since).map(\.json)))
        }
        return router
    }

    static func handle(_ request: Request, _ body: @Sendable (JSONInput) async throws(ValidationFailure) -> (HTTPResponse.Status, JSONValue)) async -> Response {
        guard let buffer = try? await request.body.collect(upTo: maxBody) else {
            return json(.contentTooLarge, ValidationFailure(field: "", message: "the body exceeds \(maxBody) bytes").json)
        }
        guard let input = JSONInput.parse(Array(buffer.readableBytesView)) else {
            return json(.badRequest, ValidationFailure(field: "", message: "the body is not valid JSON").json)
        }
        guard input.depth <= maxDepth else { return json(.badRequest, ValidationFailure(field: "", message: "JSON nested deeper than \(maxDepth)").json) }
        do {
            let (status, value) = try await body(input)
            return json(status, value)
        } catch {
            return json(.badRequest, error.json)
        }
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: value.serialized())))
    }
}
