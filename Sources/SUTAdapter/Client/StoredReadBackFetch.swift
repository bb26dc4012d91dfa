import Foundation
import RunRecord
import Transports

/// Reads back what a SUT holds after a run, through the profile's `stored-readings:`: every page of
/// each patient's stored readings and, when the profile names a counts query, the SUT's counts per
/// day and month. Every request carries the reader credential (renewed once after a 401 when it is
/// an OAuth2 token). Anything but a readable answer is a problem with the profile or the SUT's
/// read-back API, reported as such, never as lost readings.
///
/// Bounded whatever the SUT answers (`docs/reliability.md`): at most ``pageLimit`` pages and
/// ``readingLimit(sent:)`` readings per patient, no page URL followed twice (a cursor that cycles),
/// and the whole read-back within ``deadline``; past any of them the read-back stops with a
/// problem that names the bound (exit 3), never an unbounded wait or allocation.
package struct StoredReadBackFetch {
    let client: any HTTPExchange
    let base: String
    let source: StoredReadingsSource
    let auth: RequestAuth
    /// Readings the run sent, by patient id at the SUT (for ``readingLimit(sent:)``).
    package var sent: [String: Int] = [:]
    /// The scenario's ids of the readings the run sent corrupt and the SUT never acknowledged valid:
    /// a stored copy of one that cannot be read is passed over (its missed refusal is the finding).
    package var corrupted: Set<String> = []
    /// The scenario ids of the patients whose read-back is also asked narrowed (by period, by kind);
    /// nil: the first ``ReadBackQuery/patientLimit`` of those fetched.
    package var narrowedPatients: Set<String>?
    /// How long the whole read-back may take (nil: ``deadline(patients:)``).
    package var deadline: Duration?
    /// The time the deadline is measured on (a test injects its own).
    package var now: @Sendable () -> ContinuousClock.Instant = { .now }

    /// Pages followed for one patient at most.
    package static let pageLimit = 10_000
    /// The read-back of a run's patients ends within this (about 10 ms a page for the pages at
    /// most a run's readings fill, with room for a slow SUT)...
    package static let defaultDeadline = Duration.seconds(300)
    /// ...and 10 ms for each patient past 30,000: a ward of 250,000 patients asks for two pages of
    /// each, one after the other, which took longer than 300 s against the reference SUT. A shard
    /// counts the whole scenario's patients: the shards read back at once, from one SUT.
    package static func deadline(patients: Int) -> Duration {
        max(defaultDeadline, .milliseconds(10 * patients))
    }

    /// Stored readings read back for a patient at most: twice what the run sent (every reading
    /// stored twice is a finding to report, not a reason to stop) and 10,000 more.
    package static func readingLimit(sent: Int) -> Int { 2 * sent + 10_000 }

    package init(client: any HTTPExchange, base: String, source: StoredReadingsSource, auth: RequestAuth) {
        self.client = client
        self.base = base
        self.source = source
        self.auth = auth
    }

    /// The stored readings and counts of each patient: `patients` pairs the scenario's id with the
    /// id at the SUT; `readingID` maps an id at the SUT back to the scenario's.
    package func fetch(
        patients: [(scenario: String, wire: String)],
        readingID: (String) -> String
    ) async -> Result<StoredReadBack, AlertList.Problem> {
        var out = StoredReadBack()
        if source.counts != nil { out.counts = [:] }
        let deadline = self.deadline ?? Self.deadline(patients: patients.count)
        let ends = ReadBackEnd(at: now() + deadline, within: deadline)
        let asked = narrowedPatients ?? Set(patients.prefix(ReadBackQuery.patientLimit).map(\.scenario))
        for p in patients {
            let url = StoredReadingsSource.url(source.url, patient: p.wire, base: base)
            switch await readings(from: url, patient: p.wire, readingID: readingID, until: ends) {
            case .failure(let problem): return .failure(problem)
            case .success(nil): out.unknownPatients.insert(p.scenario)
            case .success(let readings?):
                out.readings[p.scenario] = readings
                if asked.contains(p.scenario), !readings.isEmpty, source.byPeriod != nil || source.byKind != nil {
                    switch await narrowed(readings, patient: p.wire, readingID: readingID, until: ends) {
                    case .failure(let problem): return .failure(problem)
                    case .success(let answers): out.queries[p.scenario] = answers
                    }
                }
                guard source.counts != nil else { continue }
                switch await counts(patient: p.wire) {
                case .failure(let problem): return .failure(problem)
                case .success(let c): out.counts?[p.scenario] = c
                }
            }
        }
        return .success(out)
    }

    /// The SUT's answers to the narrowed read-backs (``ReadBackQuery/planned(for:kinds:periods:byKind:)``)
    /// of a patient whose full read-back gave `held`.
    func narrowed(
        _ held: [StoredReading],
        patient: String,
        readingID: (String) -> String,
        until ends: ReadBackEnd
    ) async -> Result<[ReadBackAnswer], AlertList.Problem> {
        let queries = ReadBackQuery.planned(
            for: held,
            kinds: source.kinds,
            periods: source.byPeriod != nil,
            byKind: source.byKind != nil
        )
        var answers: [ReadBackAnswer] = []
        for query in queries {
            guard let url = source.url(of: query, patient: patient, base: base) else { continue }
            switch await readings(from: url, patient: patient, readingID: readingID, until: ends) {
            case .failure(let problem): return .failure(problem)
            case .success(nil):
                let key = if case .period = query { "by-period" } else { "by-kind" }
                return .failure(
                    AlertList.Problem(
                        text:
                            "GET \(url) (stored-readings.\(key)) answered 404 for a patient whose readings were read; check the URL"
                    )
                )
            case .success(let readings?): answers.append(ReadBackAnswer(query: query, readings: readings))
            }
        }
        return .success(answers)
    }

    /// Every page of one patient's stored readings from `url` on; nil when the SUT does not know the
    /// patient (404).
    func readings(
        from start: String,
        patient: String,
        readingID: (String) -> String,
        until ends: ReadBackEnd
    ) async -> Result<[StoredReading]?, AlertList.Problem> {
        var url = start
        var readings: [StoredReading] = []
        var visited: Set<String> = [url]
        let limit = Self.readingLimit(sent: sent[patient] ?? 0)
        for _ in 0..<Self.pageLimit {
            if let late = past(ends, url: url) { return .failure(late) }
            let document: Any
            switch await get(url, patient: patient) {
            case .failure(let problem): return .failure(problem)
            case .success(nil):
                return readings.isEmpty
                    ? .success(nil) : .failure(AlertList.Problem(text: "GET \(url) answered 404 on a later page"))
            case .success(let fetched?): document = fetched
            }
            guard let items = source.items(in: document) else {
                return .failure(
                    AlertList.Problem(
                        text:
                            "GET \(url) answered 200 without a list of readings at '\(source.list)' (stored-readings.list)"
                    )
                )
            }
            for item in items {
                switch source.read(item) {
                case .reading(var r):
                    r.id = r.id.map(readingID)
                    readings.append(r)
                case .notAReading:
                    continue
                case .unreadable(let id, _) where id.map(readingID).map(corrupted.contains) == true:
                    // A reading sent corrupt that the SUT stored: its refusal check fails; its
                    // stored copy is not data to judge.
                    continue
                case .unreadable(_, let why):
                    let text =
                        (try? JSONSerialization.data(withJSONObject: item, options: [.sortedKeys, .fragmentsAllowed]))
                        .map { Array($0) }
                        ?? []
                    return .failure(
                        AlertList.Problem(
                            text:
                                "GET \(url): a stored reading cannot be read (stored-readings.fields): \(why.reason): \(RunHealth.excerpt(text))"
                        )
                    )
                }
            }
            guard readings.count <= limit else {
                let problem =
                    "the SUT lists more than \(limit) stored readings for patient \(patient) (the run sent \(sent[patient] ?? 0); the harness reads back at most twice that and 10,000 more), last page \(url): check stored-readings.url and paging, or whether the patient holds another run's readings"
                return .failure(AlertList.Problem(text: problem, atBound: true))
            }
            guard let next = source.paging.next(document, current: url, base: base) else { return .success(readings) }
            guard visited.insert(next).inserted else {
                let problem =
                    next == url
                    ? "GET \(url) names itself as the next page: the read-back would never end; check stored-readings.paging"
                    : "GET \(url) names \(next), a page already read, as the next page: the cursor cycles and the read-back would never end; check stored-readings.paging"
                return .failure(AlertList.Problem(text: problem, atBound: true))
            }
            url = next
        }
        return .failure(
            AlertList.Problem(
                text:
                    "the read-back names a next page after \(Self.pageLimit) pages (last: \(url)); check stored-readings.paging",
                atBound: true
            )
        )
    }

    /// The problem once the read-back's deadline has passed, before requesting `url`.
    func past(_ ends: ReadBackEnd, url: String) -> AlertList.Problem? {
        guard now() >= ends.at else { return nil }
        return AlertList.Problem(
            text:
                "the read-back did not end within \(ends.within) (next page: \(url)): the harness stops reading back; check how fast the SUT's stored-readings.url answers and its paging",
            atBound: true
        )
    }

    /// The SUT's counts of one patient per day and per month, in one table.
    func counts(patient: String) async -> Result<[String: Int], AlertList.Problem> {
        guard let counts = source.counts else { return .success([:]) }
        var all: [String: Int] = [:]
        for by in ["day", "month"] {
            let url = StoredReadingsSource.url(counts.url, patient: patient, by: by, base: base)
            switch await get(url, patient: patient) {
            case .failure(let problem): return .failure(problem)
            case .success(nil):
                return .failure(
                    AlertList.Problem(text: "GET \(url) answered 404 for a patient whose readings were read")
                )
            case .success(let document?):
                switch source.counted(in: document) {
                case .failure(let why): return .failure(AlertList.Problem(text: "GET \(url): \(why.reason)"))
                case .success(let c): all.merge(c) { $0 + $1 }
                }
            }
        }
        return .success(all)
    }

    /// One answer, parsed: nil for 404 (a patient the SUT does not know), a problem for anything but
    /// 200 with JSON.
    func get(_ url: String, patient: String) async -> Result<Any?, AlertList.Problem> {
        let reply: HTTPReply
        switch await auth.readerGet(client, url, role: .readBack, patient: patient, timeout: source.timeout) {
        case .failure(let problem): return .failure(problem)
        case .success(let answer): reply = answer
        }
        if reply.status == 404 { return .success(nil) }
        guard reply.status == 200 else {
            return .failure(
                AlertList.Problem(text: "GET \(url) answered \(reply.status): \(RunHealth.excerpt(reply.body))")
            )
        }
        do throws(SUTJSON.Problem) { return .success(try SUTJSON.document(reply.body)) } catch {
            return .failure(
                AlertList.Problem(
                    text: "GET \(url) answered 200 with a body that is \(error): \(RunHealth.excerpt(reply.body))"
                )
            )
        }
    }
}

/// When a whole read-back must end, and the time it was given.
struct ReadBackEnd {
    let at: ContinuousClock.Instant
    let within: Duration
}
