import Foundation
import HTTPTypes
import Hummingbird
import ReferenceEngine
import VitalSimCore

/// Read-back of stored readings: what the SUT holds is read from its storage, not from
/// memory, so a reading lost or altered after its acknowledgement shows.
extension ReferenceServer {
    /// The answer when storage could not be read: 503, to be retried.
    static var readFailure: Response {
        json(
            .serviceUnavailable,
            ValidationFailure(field: "", message: "the readings could not be read; retry", status: 503).json
        )
    }

    /// Readings per page by default and at most.
    static let readingPage = (default: 100, max: 1000)

    static func readingRoutes(_ router: Router<BasicRequestContext>, _ context: ServerContext) {
        router.get("api/v1/patients/:patient/readings") { request, requestContext in
            await readings(request, patientID(requestContext), context)
        }
        router.get("api/v1/patients/:patient/readings/counts") { request, requestContext in
            await readingCounts(request, patientID(requestContext), context)
        }
        router.get("fhir/Observation") { request, _ in await observationSearch(request, context) }
    }

    /// What a read-back asks for: a reading kind (``kind``, judged on each stored reading) or, for
    /// another signal name, the readings carrying that signal; a device-time range (`from`
    /// inclusive, `to` exclusive, ISO-8601).
    struct ReadingFilter {
        /// The signal the storage query selects on (for a kind, the signal that names it, if one does).
        var signal: Signal?
        /// The reading kind asked for; readings the storage returns are kept only when of this kind.
        var kind: VitalKind?
        var from: Int64?
        var to: Int64?
        /// Leave out the last UTC day of each month (the faulty mode `period-drops-month-end`, on a
        /// filter with a period).
        var dropsMonthEnd = false

        /// The UTC days (`YYYY-MM-DD`, compared as text) the filter takes whole, when it takes
        /// readings of every kind between day boundaries: counts can then come from the counts
        /// table. Nil when it needs the readings themselves.
        var wholeDays: ClosedRange<String>? {
            let day: Int64 = 86_400_000
            guard signal == nil, kind == nil, !dropsMonthEnd, (from ?? 0) % day == 0, (to ?? 0) % day == 0 else {
                return nil
            }
            let first = from.map { String(CivilTime(unixMilliseconds: $0).iso8601().prefix(10)) } ?? ""
            let last = to.map { String(CivilTime(unixMilliseconds: $0 - 1).iso8601().prefix(10)) } ?? "~"
            return first <= last ? first...last : nil
        }

        /// The filter as a faulty SUT applies it (`kind-ignored`, `period-drops-month-end`).
        func applying(_ faults: FaultPlan) -> ReadingFilter {
            var applied = self
            if faults.kindIgnored, applied.kind != nil {
                applied.kind = nil
                applied.signal = nil
            }
            applied.dropsMonthEnd = faults.periodDropsMonthEnd && (from != nil || to != nil)
            return applied
        }

        /// Whether a reading the storage returned is one asked for.
        func keeps(_ observation: Observation) -> Bool {
            if let kind, StoredReadingJSON.vitalKind(observation) != kind { return false }
            return !(dropsMonthEnd && Self.isLastDayOfMonth(observation.time))
        }

        /// Whether a device time falls on the last UTC day of its month.
        static func isLastDayOfMonth(_ time: Int64) -> Bool {
            let day: Int64 = 86_400_000
            let start = time - ((time % day) + day) % day
            let month = CivilTime(unixMilliseconds: start).iso8601().prefix(7)
            return CivilTime(unixMilliseconds: start + day).iso8601().prefix(7) != month
        }

        /// The signal that names a kind in storage, when one alone does.
        static func namingSignal(_ kind: VitalKind) -> Signal? {
            switch kind {
            case .bloodPressure: .systolic
            case .heartRate, .glucose, .cgm, .spo2, .temperature, .weight, .battery, .respirationRate:
                Signal(rawValue: kind.rawValue)
            case .dailySummary: .steps
            case .cuffPressure, .feeding, .symptom, .ecg, .equipment: nil
            }
        }
    }

    /// The names `kind=` takes: the reading kinds, then the other signals.
    static let kindNames: [String] = {
        let kinds = VitalKind.allCases.filter { $0 != .cuffPressure }.map(\.rawValue)
        let signals = Signal.allCases.map(\.rawValue).filter {
            !kinds.contains($0) && $0 != "systolic" && $0 != "diastolic"
        }
        return kinds + signals
    }()

    /// The filter of a read-back's query string; a bad parameter is a 400 naming it.
    static func readingFilter(_ parameter: (String) -> String?) throws(ValidationFailure) -> ReadingFilter {
        var filter = ReadingFilter()
        if let name = parameter("kind") {
            if let kind = VitalKind(rawValue: name), kind != .cuffPressure {
                filter.kind = kind
                filter.signal = ReadingFilter.namingSignal(kind)
            } else if let signal = Signal(rawValue: name), signal != .systolic, signal != .diastolic {
                filter.signal = signal
            } else {
                throw ValidationFailure(
                    field: "kind",
                    message: "unknown kind \(name); valid: \(kindNames.joined(separator: ", "))"
                )
            }
        }
        for (name, bound) in [("from", \ReadingFilter.from), ("to", \ReadingFilter.to)] {
            guard let text = parameter(name) else { continue }
            guard let ms = CivilTime.unixMilliseconds(rfc3339: text) else {
                throw ValidationFailure(
                    field: name,
                    message: "\(name) must be an ISO-8601 time, e.g. 2024-11-07T00:00:00Z"
                )
            }
            filter[keyPath: bound] = ms
        }
        if let from = filter.from, let to = filter.to, to <= from {
            throw ValidationFailure(field: "to", message: "to must be after from")
        }
        return filter
    }

    /// A refusal of a read-back request, as the response to send.
    struct Refusal: Error {
        var response: Response
    }

    /// The credential, patient id and filter of a read-back request, or the response refusing it
    /// (404 for a patient the SUT does not know).
    static func readBackRequest(
        _ request: Request,
        _ id: String,
        _ context: ServerContext
    ) async -> Result<ReadingFilter, Refusal> {
        let scope: Set<String>?
        switch await readScope(request, context, refused: "read readings") {
        case .success(let granted): scope = granted
        case .failure(let refusal): return .failure(refusal)
        }
        if let invalid = invalidPatientID(id) { return .failure(Refusal(response: invalid)) }
        if let refusal = outside(scope, id) { return .failure(Refusal(response: refusal)) }
        let query = request.uri.queryParameters
        let filter: ReadingFilter
        do throws(ValidationFailure) { filter = try readingFilter { query.get($0) } } catch {
            return .failure(Refusal(response: json(.badRequest, error.json)))
        }
        guard await context.store.patient(id) != nil else {
            return .failure(
                Refusal(
                    response: json(
                        .notFound,
                        ValidationFailure(field: "patient", message: "no patient \(id)", status: 404).json
                    )
                )
            )
        }
        await audited(request, context, .read, [id], what: "readings")
        return .success(filter)
    }

    /// `GET /api/v1/patients/{id}/readings[?kind=…&from=…&to=…&limit=…&after=…]` (admin or reader
    /// credential): `{"items": [reading…], "next": CURSOR|null}`, in the order stored; `after=CURSOR`
    /// reads the next page. 404 for a patient the SUT does not know.
    static func readings(_ request: Request, _ id: String, _ context: ServerContext) async -> Response {
        let filter: ReadingFilter
        switch await readBackRequest(request, id, context) {
        case .success(let parsed): filter = parsed.applying(context.faults)
        case .failure(let refusal): return refusal.response
        }
        let q = request.uri.queryParameters
        guard let limit = Int(q.get("limit") ?? String(readingPage.default)), (1...readingPage.max).contains(limit)
        else {
            return json(
                .badRequest,
                ValidationFailure(field: "limit", message: "limit must be 1...\(readingPage.max)").json
            )
        }
        guard let after = Int64(q.get("after") ?? "0"), after >= 0 else {
            return json(
                .badRequest,
                ValidationFailure(field: "after", message: "after must be the next cursor of a previous page").json
            )
        }
        let query = ReadingQuery(
            patient: id,
            from: filter.from,
            to: filter.to,
            signal: filter.signal,
            after: after,
            limit: limit
        )
        do throws(StorageError) {
            let page = try await context.store.storedReadings(query)
            let next: JSONValue = page.count == limit ? .string(String(page[page.count - 1].seq)) : .null
            let items = page.filter { filter.keeps($0.observation) }
            return json(
                .ok,
                .object([("items", .array(items.map { StoredReadingJSON.json($0.observation) })), ("next", next)])
            )
        } catch {
            return readFailure
        }
    }

    /// `GET /api/v1/patients/{id}/readings/counts?by=day|month[&kind=…&from=…&to=…]`: how many
    /// readings of each kind the SUT holds per UTC day or month, `{"patientId", "by", "counts":
    /// [{"period": "2024-11-07", "kind": "heart-rate", "readings": 288}, …]}` by period, then kind.
    static func readingCounts(_ request: Request, _ id: String, _ context: ServerContext) async -> Response {
        let filter: ReadingFilter
        switch await readBackRequest(request, id, context) {
        case .success(let parsed): filter = parsed.applying(context.faults)
        case .failure(let refusal): return refusal.response
        }
        let q = request.uri.queryParameters
        let by = q.get("by") ?? "day"
        guard by == "day" || by == "month" else {
            return json(.badRequest, ValidationFailure(field: "by", message: "by must be day or month").json)
        }
        var counts: [String: Int] = [:]
        var query = ReadingQuery(patient: id, from: filter.from, to: filter.to, signal: filter.signal, limit: 10_000)
        do throws(StorageError) {
            // Whole days of every kind: the counts table, without a scan of the readings.
            if let days = filter.wholeDays {
                for c in try await context.store.storedCounts(patient: id) where days.contains(c.day) {
                    counts[String(c.day.prefix(by == "day" ? 10 : 7)) + " " + c.kind, default: 0] += c.readings
                }
            }
            while filter.wholeDays == nil {
                let page = try await context.store.storedReadings(query)
                for r in page where filter.keeps(r.observation) {
                    let day = String(
                        CivilTime(unixMilliseconds: r.observation.time).iso8601().prefix(by == "day" ? 10 : 7)
                    )
                    counts[day + " " + StoredReadingJSON.kind(r.observation), default: 0] += 1
                }
                guard page.count == query.limit, let last = page.last else { break }
                query.after = last.seq
            }
        } catch {
            return readFailure
        }
        let rows: [JSONValue] = counts.keys.sorted().map { key in
            let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
            return .object([
                ("period", .string(parts[0])), ("kind", .string(parts[1])), ("readings", .int(Int64(counts[key] ?? 0))),
            ])
        }
        return json(.ok, .object([("patientId", .string(id)), ("by", .string(by)), ("counts", .array(rows))]))
    }
}
