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
        if context.traced { router.add(middleware: TracingMiddleware()) }
        router.add(middleware: TraceContextMiddleware())
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
        notificationRoutes(router, context)
        auditRoutes(router, context)
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
        switch principal(request, context, required: "a device") {
        case .success(nil): break
        case .success(.device(let patient, let device)?): owner = (patient, device)
        case .success:
            metrics.count("vitalsim_readings_total", ["source": source, "outcome": "forbidden"])
            let refusal = ValidationFailure(
                field: "Authorization",
                message: "only a device's credential may post readings",
                status: 403
            )
            return json(.forbidden, failure(refusal))
        case .failure(let refusal):
            metrics.count("vitalsim_readings_total", ["source": source, "outcome": "unauthorized"])
            return json(.unauthorized, failure(refusal))
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
            var response = json(
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
            response.headers[.retryAfter] = String(max(1, Int(wait.rounded(.up))))
            return response
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

    /// Who made `request` (nil when no credentials are configured: the API is open), or the 401
    /// refusing a missing, unknown, expired or revoked credential; `required` names the credential
    /// asked for.
    static func principal(
        _ request: Request,
        _ context: ServerContext,
        required: String
    ) -> Result<Principal?, ValidationFailure> {
        guard context.credentials.enforced else { return .success(nil) }
        guard
            let token = Credentials.token(
                request.headers[.authorization],
                apiKey: request.headers[HTTPField.Name("X-API-Key")!]
            )
        else {
            return .failure(
                ValidationFailure(
                    field: "Authorization",
                    message: "\(required) credential is required (Authorization: Bearer TOKEN or X-API-Key)",
                    status: 401
                )
            )
        }
        // A token the SUT does not know (or no longer honours) is no valid credential: 401, as
        // `docs/openapi.yaml` says; a valid one without the right, 403.
        switch context.credentials.principal(token, now: context.clock(), honourStale: context.faults.staleCredentials)
        {
        case .success(let who): return .success(who)
        case .failure(let problem):
            return .failure(ValidationFailure(field: "Authorization", message: problem.message, status: 401))
        }
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
        switch principal(request, context, required: required) {
        case .failure(let failure): return json(.unauthorized, failure.json)
        case .success(nil): return nil
        case .success(.admin?) where admins, .success(.reader?) where readers: return nil
        case .success: return refusal(.forbidden, "this credential may not \(refused)")
        }
    }

    /// Whose data a request may read: nil for every patient's (the reader, an admin when `admins`,
    /// or an open API), else the patients in the care of the person presenting it (a patient: their
    /// own); or the 401/403 refusing it (a device's credential reads nothing, nor an admin's when
    /// not `admins`). The `cross-patient-read` fault lets every person read everything.
    static func readScope(
        _ request: Request,
        _ context: ServerContext,
        admins: Bool = true,
        refused: String
    ) async -> Result<Set<String>?, Refusal> {
        switch principal(request, context, required: "a reader's or a person's") {
        case .failure(let failure): return .failure(Refusal(response: json(.unauthorized, failure.json)))
        case .success(nil), .success(.reader?): return .success(nil)
        case .success(.admin?) where admins: return .success(nil)
        case .success(.admin?):
            return .failure(Refusal(response: refusal(.forbidden, "this credential may not \(refused)")))
        case .success(.device?):
            return .failure(Refusal(response: refusal(.forbidden, "a device's credential may not \(refused)")))
        case .success(.person(let person)?):
            if context.faults.crossPatientRead { return .success(nil) }
            if person.role == .patient { return .success([person.id]) }
            return .success(await context.store.patients(caredForBy: person.id))
        }
    }

    /// The 403 refusing a read of `patient` outside `scope`, or nil when it may be read.
    static func outside(_ scope: Set<String>?, _ patient: String) -> Response? {
        guard let scope, !scope.contains(patient) else { return nil }
        return refusal(.forbidden, "this credential may not read the data of patient \(patient)")
    }

    /// A 401 or 403 naming the `Authorization` field.
    static func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(status, ValidationFailure(field: "Authorization", message: message, status: Int(status.code)).json)
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
