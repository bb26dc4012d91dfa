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
    public static func router(store: ReferenceStore, credentials: Credentials = Credentials(), clock: @escaping @Sendable () -> Int64) -> Router<BasicRequestContext> {
        let router = Router()
        /// 401 without a known device token (checked before the body is validated).
        @Sendable func authenticate(_ request: Request) throws(ValidationFailure) -> (patientID: String, deviceID: String)? {
            guard credentials.enforced else { return nil }
            guard let token = Credentials.bearer(request.headers[.authorization]), let owner = credentials.devices[token] else {
                throw ValidationFailure(field: "Authorization", message: "a device bearer token is required", status: 401)
            }
            return owner
        }
        /// 403 when the payload names another patient than the token's device belongs to.
        @Sendable func authorize(_ owner: (patientID: String, deviceID: String)?, patients: [String]) throws(ValidationFailure) {
            guard let owner, let other = patients.first(where: { $0 != owner.patientID }) else { return }
            throw ValidationFailure(field: "patient", message: "device \(owner.deviceID) may post only for patient \(owner.patientID), not \(other)", status: 403)
        }
        router.get("healthz") { _, _ in json(.ok, .object([("status", .string("ok"))])) }
        router.post("api/iot-heart-rate") { request, _ in
            await handle(request) { body throws(ValidationFailure) in
                let owner = try authenticate(request)
                let o = try PayloadValidation.iotHeartRate(body, now: clock())
                try authorize(owner, patients: [o.patientID])
                await store.ingest(o)
                return (.ok, .object([("status", .string("accepted")), ("readingId", .string(o.readingID))]))
            }
        }
        router.post("api/healthkit") { request, _ in
            await handle(request) { body throws(ValidationFailure) in
                let owner = try authenticate(request)
                let s = try PayloadValidation.healthKitSummary(body, now: clock())
                try authorize(owner, patients: [s.patientID])
                await store.ingestSummary(patientID: s.patientID, time: s.time, steps: s.steps, calories: s.calories)
                return (.ok, .object([("status", .string("accepted"))]))
            }
        }
        router.post("api/v1/observations") { request, _ in
            await handle(request) { body throws(ValidationFailure) in
                let owner = try authenticate(request)
                var items: [JSONInput] = []
                if case let .array(a) = body { items = a } else { items = [body] }
                guard !items.isEmpty, items.count <= 1000 else { throw ValidationFailure(field: "", message: "send 1 to 1000 observations") }
                var parsed: [Observation] = []
                for (i, item) in items.enumerated() {
                    do throws(ValidationFailure) { parsed.append(try PayloadValidation.observation(item, now: clock())) } catch {
                        throw ValidationFailure(field: items.count > 1 ? "[\(i)].\(error.field)" : error.field, message: error.message)
                    }
                }
                try authorize(owner, patients: parsed.map(\.patientID))
                var accepted = 0
                for o in parsed where await store.ingest(o) { accepted += 1 }
                return (.ok, .object([("accepted", .int(Int64(accepted))), ("duplicates", .int(Int64(parsed.count - accepted)))]))
            }
        }
        router.post("fhir/Observation") { request, _ in
            await handle(request, failure: FHIRObservation.outcome) { body throws(ValidationFailure) in
                let owner = try authenticate(request)
                let o = try FHIRObservation.parse(body, now: clock())
                try authorize(owner, patients: [o.patientID])
                let stored = await store.ingest(o)
                return (stored ? .created : .ok, .object([("resourceType", .string("Observation")), ("id", .string(o.readingID))]))
            }
        }
        router.get("api/v1/alerts") { request, _ in
            if credentials.enforced {
                guard let token = Credentials.bearer(request.headers[.authorization]) else {
                    return json(.unauthorized, ValidationFailure(field: "Authorization", message: "a reader bearer token is required").json)
                }
                guard credentials.readers.contains(token) else {
                    return json(.forbidden, ValidationFailure(field: "Authorization", message: "this token may not read alerts").json)
                }
            }
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

    static func handle(_ request: Request, failure: @Sendable (ValidationFailure) -> JSONValue = { $0.json },
                       _ body: @Sendable (JSONInput) async throws(ValidationFailure) -> (HTTPResponse.Status, JSONValue)) async -> Response {
        guard let buffer = try? await request.body.collect(upTo: maxBody) else {
            return json(.contentTooLarge, failure(ValidationFailure(field: "", message: "the body exceeds \(maxBody) bytes")))
        }
        guard let input = JSONInput.parse(Array(buffer.readableBytesView)) else {
            return json(.badRequest, failure(ValidationFailure(field: "", message: "the body is not valid JSON")))
        }
        guard input.depth <= maxDepth else { return json(.badRequest, failure(ValidationFailure(field: "", message: "JSON nested deeper than \(maxDepth)"))) }
        do {
            let (status, value) = try await body(input)
            return json(status, value)
        } catch {
            return json(HTTPResponse.Status(code: error.status), failure(error))
        }
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: value.serialized())))
    }
}
