import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReferenceEngine
import VitalSimCore

/// The observation batch of `POST /api/v1/observations` and the alert reads.
extension ReferenceServer {
    /// One observation or an array of 1…``maxBatch``; field paths name the item; a patient's reading id twice is
    /// refused.
    static func observationBatch(_ body: JSONInput, now: Int64) throws(ValidationFailure) -> [Observation] {
        var items: [JSONInput] = []
        if case let .array(a) = body { items = a } else { items = [body] }
        guard !items.isEmpty, items.count <= maxBatch else {
            throw ValidationFailure(field: "", message: "send 1 to \(maxBatch) observations")
        }
        var parsed: [Observation] = []
        for (i, item) in items.enumerated() {
            do throws(ValidationFailure) { parsed.append(try PayloadValidation.observation(item, now: now)) } catch {
                throw ValidationFailure(
                    field: items.count > 1 || body.isArray ? "[\(i)].\(error.field)" : error.field,
                    message: error.message
                )
            }
        }
        let keys = parsed.map(ReadingKey.init)
        var held: Set<ReadingKey> = []
        if let dup = keys.indices.first(where: { !held.insert(keys[$0]).inserted }) {
            throw ValidationFailure(
                field: "[\(dup)].readingId",
                message: "readingId \(keys[dup].reading) of patient \(keys[dup].patient) appears twice in one batch"
            )
        }
        return parsed
    }

    /// `GET /api/v1/alerts[?patient=…&since=…]`.
    static func alerts(_ request: Request, _ context: ServerContext) async -> Response {
        await alertList(request, context) { list, fault in
            guard fault == .unreadable else { return .array(list.map(\.json)) }
            return .array(
                list.map { a in
                    guard case let .object(fields) = a.json else { return a.json }
                    return .object(fields.filter { $0.0 != "raisedAt" })
                }
            )
        }
    }

    /// `GET /fhir/DetectedIssue[?patient=…&since=…&_count=…&_offset=…]`: the alerts as a FHIR
    /// searchset Bundle of `DetectedIssue`s (``FHIRDetectedIssue``), 50 per page by default.
    static func detectedIssues(_ request: Request, _ context: ServerContext) async -> Response {
        let query = request.uri.queryParameters
        guard let count = Int(query.get("_count") ?? "50"), (1...1000).contains(count),
            let offset = Int(query.get("_offset") ?? "0"), offset >= 0
        else {
            return json(
                .badRequest,
                ValidationFailure(field: "_count", message: "_count must be 1...1000 and _offset 0 or more").json
            )
        }
        let kept = ["patient", "since"].compactMap { k in
            query.get(k).map { "\(k)=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" }
        }
        return await alertList(request, context) { list, fault in
            FHIRDetectedIssue.bundle(
                list,
                offset: offset,
                count: count,
                query: kept.joined(separator: "&"),
                identified: fault != .unreadable
            )
        }
    }

    /// The alert list (every patient's for the reader, the patients in their care for a person;
    /// `patient` and `since` filters, the alert API faults) rendered by `render`.
    static func alertList(
        _ request: Request,
        _ context: ServerContext,
        render: ([Alert], FaultPlan.AlertAPIFault?) -> JSONValue
    ) async -> Response {
        let scope: Set<String>?
        switch await readScope(request, context, admins: false, refused: "read alerts") {
        case .success(let granted): scope = granted
        case .failure(let refusal): return refusal.response
        }
        let patient = request.uri.queryParameters.get("patient")
        if let patient, let refusal = outside(scope, patient) { return refusal }
        var since: Int64?
        if let granted = request.uri.queryParameters.get("since") {
            guard let ms = PayloadValidation.utcMilliseconds(granted) else {
                return json(
                    .badRequest,
                    ValidationFailure(
                        field: "since",
                        message: "since must be ISO-8601 UTC such as 2024-11-07T00:00:00Z"
                    ).json
                )
            }
            since = ms
        }
        let list = await context.store.alerts(patient: patient, since: since).filter {
            scope?.contains($0.patientID) ?? true
        }
        switch context.faults.alertAPI {
        case .error?: return json(.internalServerError, .object([("error", .string("alert store unavailable"))]))
        case .garbage?:
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "<html>maintenance</html>")))
        case let fault:
            await audited(request, context, .read, list.map(\.patientID), what: "alerts")
            return json(.ok, render(list, fault))
        }
    }

    /// `GET /api/v1/alerts/stream`: server-sent events from `Last-Event-ID` (or `?after=`).
    static func alertStream(_ request: Request, _ context: ServerContext) async -> Response {
        let scope: Set<String>?
        switch await readScope(request, context, admins: false, refused: "read alerts") {
        case .success(let granted): scope = granted
        case .failure(let refusal): return refusal.response
        }
        let patient = request.uri.queryParameters.get("patient")
        if let patient, let refusal = outside(scope, patient) { return refusal }
        var after: Int?
        if let last = request.headers[HTTPField.Name("Last-Event-ID")!] ?? request.uri.queryParameters.get("after") {
            guard let n = Int(last), n >= -1 else {
                return json(
                    .badRequest,
                    ValidationFailure(field: "Last-Event-ID", message: "expected an event id (an integer)").json
                )
            }
            after = n
        }
        let feed = await context.store.feed(patient: patient, after: after)
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": vitalsim alert stream\n\n"))
                for await (sequence, alert) in feed where scope?.contains(alert.patientID) ?? true {
                    try await writer.write(
                        ByteBuffer(string: "id: \(sequence)\nevent: alert\ndata: \(alert.json.serialized())\n\n")
                    )
                }
                try await writer.finish(nil)
            }
        )
    }
}
