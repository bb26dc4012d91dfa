import Foundation
import HTTPTypes
import Hummingbird
import Locking
import NIOCore
import ReferenceEngine
import VitalSimCore

/// The reference SUT's HTTP API (see docs/openapi.yaml).
package enum ReferenceServer {
    /// Largest accepted request body and JSON nesting.
    package static let maxBody = 256 * 1024
    package static let maxDepth = 8
    /// A FHIR Bundle nests its Observations' elements three levels deeper (Bundle, entry, resource).
    package static let maxBundleDepth = maxDepth + 3
    /// Most observations in one batch.
    package static let maxBatch = 1000

    typealias Owner = (patientID: String, deviceID: String)

    /// Every route of the SUT contract.
    package static func router(_ context: ServerContext) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: RequestMetricsMiddleware(metrics: context.metrics))
        router.get("healthz") { _, _ in json(.ok, .object([("status", .string("ok"))])) }
        router.get("metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: context.metrics.render()))
            )
        }
        router.post("api/iot-heart-rate") { request, _ in
            await ingest(request, context, source: "iot-heart-rate") { body, now throws(ValidationFailure) in
                [try PayloadValidation.iotHeartRate(body, now: now)]
            } reply: { o, _ in
                (.ok, .object([("status", .string("accepted")), ("readingId", .string(o[0].readingID))]))
            }
        }
        router.post("api/healthkit") { request, _ in
            await ingest(request, context, source: "healthkit") { body, now throws(ValidationFailure) in
                [try PayloadValidation.healthKitSummary(body, now: now)]
            } reply: { _, _ in
                (.ok, .object([("status", .string("accepted"))]))
            }
        }
        router.post("api/v1/observations") { request, _ in
            await ingest(request, context, source: "observations") { body, now throws(ValidationFailure) in
                try observationBatch(body, now: now)
            } reply: { parsed, fresh in
                let accepted = fresh.filter { $0 }.count
                return (
                    .ok,
                    .object([("accepted", .int(Int64(accepted))), ("duplicates", .int(Int64(parsed.count - accepted)))])
                )
            }
        }
        router.post("fhir/Observation") { request, _ in
            await ingest(request, context, source: "fhir", failure: FHIRObservation.outcome) {
                body,
                now throws(ValidationFailure) in
                [try FHIRObservation.parse(body, now: now)]
            } reply: { o, fresh in
                (
                    fresh[0] ? .created : .ok,
                    .object([("resourceType", .string("Observation")), ("id", .string(o[0].readingID))])
                )
            }
        }
        router.post("fhir") { request, _ in
            // The response Bundle's type answers the request's (transaction or batch).
            let type = Locked("transaction")
            return await ingest(
                request,
                context,
                source: "fhir",
                depth: maxBundleDepth,
                failure: FHIRObservation.outcome
            ) {
                body,
                now throws(ValidationFailure) in
                let observations = try FHIRBundle.parse(body, now: now)
                if case let .object(o) = body, case let .string(t)? = o["type"] { type.withLock { $0 = t } }
                return observations
            } reply: { o, fresh in
                (.ok, FHIRBundle.response(type: type.withLock { $0 }, o, fresh: fresh))
            }
        }
        router.get("api/v1/alerts") { request, _ in await alerts(request, context) }
        router.get("api/v1/alerts/stream") { request, _ in await alertStream(request, context) }
        router.get("fhir/DetectedIssue") { request, _ in await detectedIssues(request, context) }
        patientRoutes(router, context)
        readingRoutes(router, context)
        return router
    }

    /// 401 without a device credential (checked before the body), 403 for another patient's data, 429 over the rate.
    static func ingest(
        _ request: Request,
        _ context: ServerContext,
        source: String,
        depth: Int = maxDepth,
        failure: @escaping @Sendable (ValidationFailure) -> JSONValue = { $0.json },
        parse: @escaping @Sendable (JSONInput, Int64) throws(ValidationFailure) -> [Observation],
        reply: @escaping @Sendable ([Observation], [Bool]) -> (HTTPResponse.Status, JSONValue)
    ) async -> Response {
        let receivedAt = ContinuousClock.now
        let metrics = context.metrics
        if context.faults.unavailable {
            return json(
                .serviceUnavailable,
                failure(ValidationFailure(field: "", message: "service unavailable", status: 503))
            )
        }
        var owner: Owner?
        if context.credentials.enforced {
            guard
                let token = Credentials.token(
                    request.headers[.authorization],
                    apiKey: request.headers[HTTPField.Name("X-API-Key")!]
                ),
                let o = context.credentials.devices[token]
            else {
                metrics.count("vitalsim_readings_total", ["source": source, "outcome": "unauthorized"])
                return json(
                    .unauthorized,
                    failure(
                        ValidationFailure(
                            field: "Authorization",
                            message: "a device credential is required (Authorization: Bearer TOKEN or X-API-Key)",
                            status: 401
                        )
                    )
                )
            }
            owner = o
        }
        guard let buffer = try? await request.body.collect(upTo: maxBody) else {
            return json(
                .contentTooLarge,
                failure(ValidationFailure(field: "", message: "the body exceeds \(maxBody) bytes"))
            )
        }
        let observations: [Observation]
        do throws(ValidationFailure) {
            let input = try JSONInput.parse(Array(buffer.readableBytesView), maxDepth: depth)
            observations = try parse(input, context.clock())
        } catch {
            metrics.count("vitalsim_readings_total", ["source": source, "outcome": "rejected"])
            if context.faults.acceptInvalid {
                return json(source == "fhir" ? .created : .ok, .object([("status", .string("accepted"))]))
            }
            if context.faults.bareRefusals {
                let bare = ValidationFailure(field: "", message: "Invalid data", status: error.status)
                return json(HTTPResponse.Status(code: error.status), failure(bare))
            }
            return json(HTTPResponse.Status(code: error.status), failure(error))
        }
        if context.faults.refuseSummaries, source == "healthkit" {
            metrics.count("vitalsim_readings_total", ["source": source, "outcome": "rejected"])
            let refusal = ValidationFailure(
                field: "",
                message: "daily summaries are not taken (fault refuse-summaries)"
            )
            return json(.badRequest, failure(refusal))
        }
        if let owner, let other = observations.first(where: { $0.patientID != owner.patientID }) {
            metrics.count("vitalsim_readings_total", ["source": source, "outcome": "forbidden"])
            return json(
                .forbidden,
                failure(
                    ValidationFailure(
                        field: "patient",
                        message:
                            "device \(owner.deviceID) may post only for patient \(owner.patientID), not \(other.patientID)",
                        status: 403
                    )
                )
            )
        }
        let key =
            owner.map { "\($0.patientID)/\($0.deviceID)" } ?? observations.first.map {
                "\($0.patientID)/\($0.deviceID)"
            } ?? ""
        if let wait = context.limiter.take(key, cost: Double(observations.count)) {
            metrics.count(
                "vitalsim_readings_total",
                ["source": source, "outcome": "rate-limited"],
                by: Double(observations.count)
            )
            var r = json(
                .tooManyRequests,
                failure(
                    ValidationFailure(
                        field: "",
                        message:
                            "rate limit of \(Int(context.limiter.rate)) readings/s per device exceeded; retry later",
                        status: 429
                    )
                )
            )
            r.headers[.retryAfter] = String(max(1, Int(wait.rounded(.up))))
            return r
        }
        do throws(StorageError) {
            let fresh = try await context.store.ingest(observations, receivedAt: receivedAt, source: source)
            let (status, value) = reply(observations, fresh)
            return json(status, value)
        } catch {
            return json(
                .serviceUnavailable,
                failure(ValidationFailure(field: "", message: "the reading could not be stored; retry", status: 503))
            )
        }
    }

    /// Nil when the request may read alerts; otherwise the 401/403 response.
    static func authorizeReader(_ request: Request, _ context: ServerContext) -> Response? {
        authorize(request, context, admins: false, readers: true, required: "a reader", refused: "read alerts")
    }

    /// Nil when no credentials are configured, or the request carries an admin token (`admins`) or a
    /// reader token (`readers`); otherwise 401 (`required` credential) or 403 (may not `refused`).
    static func authorize(
        _ request: Request,
        _ context: ServerContext,
        admins: Bool,
        readers: Bool,
        required: String,
        refused: String
    ) -> Response? {
        guard context.credentials.enforced else { return nil }
        guard
            let token = Credentials.token(
                request.headers[.authorization],
                apiKey: request.headers[HTTPField.Name("X-API-Key")!]
            )
        else {
            return json(
                .unauthorized,
                ValidationFailure(
                    field: "Authorization",
                    message: "\(required) credential is required (Authorization: Bearer TOKEN)",
                    status: 401
                )
                .json
            )
        }
        // A token the SUT does not know is no valid credential (401, as `docs/openapi.yaml` says);
        // a known one without the right, 403.
        let credentials = context.credentials
        guard
            credentials.admins.contains(token) || credentials.readers.contains(token)
                || credentials.devices[token] != nil
        else {
            return json(
                .unauthorized,
                ValidationFailure(field: "Authorization", message: "the credential is not known", status: 401).json
            )
        }
        guard (admins && credentials.admins.contains(token)) || (readers && credentials.readers.contains(token))
        else {
            return json(
                .forbidden,
                ValidationFailure(field: "Authorization", message: "this credential may not \(refused)", status: 403)
                    .json
            )
        }
        return nil
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: value.serialized()))
        )
    }
}

extension JSONInput {
    var isArray: Bool { if case .array = self { true } else { false } }
}
