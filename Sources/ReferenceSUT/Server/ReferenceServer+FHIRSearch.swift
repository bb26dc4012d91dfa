import Foundation
import HTTPTypes
import Hummingbird
import ReferenceEngine
import VitalSimCore

/// `GET /fhir/Observation`: FHIR search over the stored readings, read from storage.
extension ReferenceServer {
    /// `GET /fhir/Observation?patient=ID[&code=LOINC][&date=geT&date=ltT][&_count=N][&_cursor=C]`
    /// (admin or reader credential): a `searchset` Bundle of ``FHIRObservationSearch`` resources in
    /// the order stored, with a `next` link while there may be more. `date` takes the prefixes `eq`
    /// (default), `ge`, `gt`, `le`, `lt` and a day (`2024-11-07`, the whole UTC day) or an ISO-8601
    /// time (to its precision: a second, or a millisecond). A bad parameter is a 400
    /// OperationOutcome naming it; a patient with no readings gives an empty Bundle.
    static func observationSearch(_ request: Request, _ context: ServerContext) async -> Response {
        let scope: Set<String>?
        switch await readScope(request, context, refused: "read readings") {
        case .success(let granted): scope = granted
        case .failure(let refusal): return refusal.response
        }
        let q = request.uri.queryParameters
        let query: ReadingQuery
        do throws(ValidationFailure) {
            query = try observationQuery { q[values: Substring($0)].map(String.init) }
        } catch {
            return json(.badRequest, FHIRObservation.outcome(error))
        }
        if let refusal = outside(scope, query.patient) { return refusal }
        let page: [StoredReading]
        do throws(StorageError) { page = try await context.store.storedReadings(query) } catch {
            return json(
                .serviceUnavailable,
                FHIRObservation.outcome(
                    ValidationFailure(field: "", message: "the readings could not be read; retry", status: 503)
                )
            )
        }
        await audited(request, context, .read, [query.patient], what: "readings")
        var kept = [("patient", query.patient)]
        if let code = q.get("code") { kept.append(("code", code)) }
        kept += q[values: "date"].map { ("date", String($0)) }
        let base = kept.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }
            .joined(
                separator: "&"
            )
        func link(_ relation: String, _ cursor: Int64) -> JSONValue {
            .object([
                ("relation", .string(relation)),
                ("url", .string("/fhir/Observation?\(base)&_count=\(query.limit)&_cursor=\(cursor)")),
            ])
        }
        var links = [link("self", query.after)]
        if page.count == query.limit, let last = page.last { links.append(link("next", last.seq)) }
        let entries: [JSONValue] = page.compactMap { r in
            FHIRObservationSearch.resource(r.observation, seq: r.seq).map { resource in
                .object([
                    ("fullUrl", .string("Observation/r\(r.seq)")), ("resource", resource),
                    ("search", .object([("mode", .string("match"))])),
                ])
            }
        }
        var bundle: [(String, JSONValue)] = [
            ("resourceType", .string("Bundle")), ("type", .string("searchset")), ("link", .array(links)),
        ]
        if !entries.isEmpty { bundle.append(("entry", .array(entries))) }
        return json(.ok, .object(bundle))
    }

    /// The storage query of a search's parameters (`values` gives every value of a parameter).
    static func observationQuery(_ values: (String) -> [String]) throws(ValidationFailure) -> ReadingQuery {
        guard var id = values("patient").first, !id.isEmpty else {
            throw ValidationFailure(field: "patient", message: "patient is required (patient=ID or patient=Patient/ID)")
        }
        if id.hasPrefix("Patient/") { id = String(id.dropFirst("Patient/".count)) }
        guard validPatientID(id) else {
            throw ValidationFailure(
                field: "patient",
                message: "a patient id is 1 to 64 characters, without '/' or control characters"
            )
        }
        var query = ReadingQuery(patient: id, limit: 50)
        if let code = values("code").first {
            guard let signal = FHIRObservationSearch.signal(code: code) else {
                throw ValidationFailure(
                    field: "code",
                    message: "no readings are listed under code \(code); give a LOINC code such as 8867-4"
                )
            }
            query.signal = signal
        }
        for text in values("date") { try narrow(&query, date: text) }
        let count = values("_count").first ?? "50"
        guard let n = Int(count), (1...readingPage.max).contains(n) else {
            throw ValidationFailure(field: "_count", message: "_count must be 1...\(readingPage.max)")
        }
        query.limit = n
        if let cursor = values("_cursor").first {
            guard let position = Int64(cursor), position >= 0 else {
                throw ValidationFailure(field: "_cursor", message: "_cursor must come from a next link")
            }
            query.after = position
        }
        return query
    }

    /// Narrows `query` by one `date` parameter (see ``observationSearch(_:_:)``).
    static func narrow(_ query: inout ReadingQuery, date text: String) throws(ValidationFailure) {
        let prefixes = ["eq", "ge", "gt", "le", "lt"]
        let prefix = prefixes.first { text.hasPrefix($0) } ?? ""
        let value = String(text.dropFirst(prefix.count))
        let start: Int64
        let end: Int64
        if value.count == 10, let day = CivilTime.unixMilliseconds(rfc3339: value + "T00:00:00Z") {
            (start, end) = (day, day + 86_400_000)
        } else if let time = CivilTime.unixMilliseconds(rfc3339: value) {
            (start, end) = (time, time + (value.contains(".") ? 1 : 1000))
        } else {
            throw ValidationFailure(
                field: "date",
                message: "date must be [eq|ge|gt|le|lt] and a day (2024-11-07) or an ISO-8601 time, got \(text)"
            )
        }
        var from = start
        var to = end
        switch prefix {
        case "ge": to = Int64.max
        case "gt": (from, to) = (end, Int64.max)
        case "le": from = Int64.min
        case "lt": (from, to) = (Int64.min, start)
        default: break
        }
        if from != Int64.min { query.from = max(query.from ?? from, from) }
        if to != Int64.max { query.to = min(query.to ?? to, to) }
    }
}
