import Foundation
import RunRecord
import Transports

/// One answer (one page) of the SUT's alert source, as the run's poller and `vitalsim doctor` read
/// it through the profile's ``AlertSource``: the alerts it lists, the items that cannot be read as
/// alerts, and the URL of the next page.
package struct AlertList {
    package var alerts: [ObservedAlert] = []
    /// Items that are not readable alerts: how many, and the first with why.
    package var unreadable = 0
    package var firstUnreadable: String?
    /// The next page's URL, if the source pages.
    package var next: String?
    /// What the SUT said beside the alerts: each FHIR OperationOutcome listed among them (a
    /// searchset's `search.mode: outcome` entry, a server saying it ignored a search parameter),
    /// as its issues' text. Passed over, not read as alerts.
    package var outcomes: [String] = []

    /// A list holding nothing yet.
    package init() {}

    /// What is wrong with an answer as a whole (not 200, not JSON, no list where the profile says).
    package struct Problem: Error {
        package let text: String
        /// True when the answer passed one of the harness's bounds (its size, its alerts, its
        /// pages): the run stops at once and is not judged (exit 3), rather than retried.
        package var atBound = false

        package init(text: String, atBound: Bool = false) {
            self.text = text
            self.atBound = atBound
        }
    }

    /// Reads an answer of `url` (later pages resolved against `base`).
    package static func read(
        _ reply: HTTPReply,
        url: String,
        source: AlertSource = .vitalsim,
        mapping: SUTProfile.NameMapping = .init(),
        base: String = ""
    ) -> Result<AlertList, Problem> {
        guard reply.status == 200 else {
            return .failure(Problem(text: "GET \(url) answered \(reply.status): \(RunHealth.excerpt(reply.body))"))
        }
        let document: Any
        do throws(SUTJSON.Problem) { document = try SUTJSON.document(reply.body) } catch {
            // Past the JSON bounds the run stops at once, as past the alert bound.
            return .failure(
                Problem(
                    text: "GET \(url) answered 200 with a body that is \(error): \(RunHealth.excerpt(reply.body))",
                    atBound: error != .notJSON
                )
            )
        }
        let where_ = source.list.tokens.isEmpty ? "" : " at \(source.list) (alerts.list of the profile)"
        guard let items = source.items(in: document) else {
            return .failure(
                Problem(
                    text:
                        "GET \(url) answered 200 with a body that is not a JSON array of alerts\(where_): \(RunHealth.excerpt(reply.body))"
                )
            )
        }
        var list = AlertList()
        for item in items {
            if let outcome = item as? [String: Any], outcome["resourceType"] as? String == "OperationOutcome" {
                list.outcomes.append(Self.issues(of: outcome))
                continue
            }
            switch source.fields.read(item, mapping: mapping) {
            case .success(let alert): list.alerts.append(alert)
            case .failure(let why):
                list.unreadable += 1
                if list.firstUnreadable == nil {
                    let text =
                        (try? JSONSerialization.data(withJSONObject: item, options: [.sortedKeys, .fragmentsAllowed]))
                        .map { Array($0) }
                        ?? []
                    list.firstUnreadable = "\(why.reason): \(RunHealth.excerpt(text))"
                }
            }
        }
        list.next = source.nextPage(document, current: url, base: base)
        return .success(list)
    }

    /// An OperationOutcome's issues, as "severity code: diagnostics" joined by "; ".
    static func issues(of outcome: [String: Any]) -> String {
        let issues = (outcome["issue"] as? [[String: Any]] ?? []).map { issue in
            let text =
                issue["diagnostics"] as? String
                ?? ((issue["details"] as? [String: Any])?["text"] as? String) ?? "no diagnostics"
            return "\(issue["severity"] as? String ?? "?") \(issue["code"] as? String ?? "?"): \(text)"
        }
        return issues.isEmpty ? "an OperationOutcome without issues" : issues.joined(separator: "; ")
    }

    /// Adds a later page's alerts.
    mutating func append(_ page: AlertList) {
        alerts += page.alerts
        outcomes += page.outcomes
        unreadable += page.unreadable
        firstUnreadable = firstUnreadable ?? page.firstUnreadable
        next = page.next
    }
}

extension AlertList {
    /// Pages followed in one read at most (a source that always names a next page is a problem).
    package static let pageLimit = 100
    /// Alerts kept from one read of the alert source (every page and URL): a scenario expects tens
    /// or hundreds; a source listing more is read no further and ends the run (exit 3).
    package static let alertLimit = 100_000

    /// Reads the whole alert list at each of the source's ``AlertSource/urls`` (one per patient when
    /// its URL names `{patient}`), an alert listed at several of them kept once; the first reply is
    /// returned too.
    package static func fetch(
        _ client: any HTTPExchange,
        base: String,
        source: AlertSource,
        mapping: SUTProfile.NameMapping,
        auth: RequestAuth
    ) async -> (Result<AlertList, Problem>, first: HTTPReply?) {
        var whole: AlertList?
        var first: HTTPReply?
        var seen: Set<String> = []
        for url in source.urls {
            let (read, reply) = await fetch(
                client,
                url: SUTProfile.resolve(url, base: base),
                base: base,
                source: source,
                mapping: mapping,
                auth: auth
            )
            first = first ?? reply
            switch read {
            case .failure(let problem): return (.failure(problem), first)
            case .success(var list):
                list.alerts = list.alerts.filter { seen.insert($0.alertID).inserted }
                if whole == nil { whole = list } else { whole?.append(list) }
                if let problem = overLimit(whole?.alerts.count ?? 0, url: url) { return (.failure(problem), first) }
            }
        }
        return (.success(whole ?? AlertList()), first)
    }

    /// The problem of a read that has gathered `count` alerts, if that passes ``alertLimit``.
    static func overLimit(_ count: Int, url: String) -> Problem? {
        guard count > alertLimit else { return nil }
        return Problem(
            text:
                "the alert source lists more than \(alertLimit) alerts (\(count) read so far, last from \(url)): more than a scenario can raise, so the harness reads no further; clear the SUT's alerts or narrow alerts.url to the run's patients ({patient}, {since})",
            atBound: true
        )
    }

    /// Reads the whole alert list at `url`: every page, each request with the reader credential
    /// (renewed once after a 401 when it is an OAuth2 token); the first page's reply is returned too.
    static func fetch(
        _ client: any HTTPExchange,
        url start: String,
        base: String,
        source: AlertSource,
        mapping: SUTProfile.NameMapping,
        auth: RequestAuth
    ) async -> (Result<AlertList, Problem>, first: HTTPReply?) {
        var url = start
        var whole: AlertList?
        var first: HTTPReply?
        var pages = 0
        var visited: Set<String> = [start]
        while true {
            let reply: HTTPReply
            switch await auth.readerGet(client, url, role: .alerts) {
            case .failure(let p): return (.failure(p), first)
            case .success(let answer): reply = answer
            }
            first = first ?? reply
            switch read(reply, url: url, source: source, mapping: mapping, base: base) {
            case .failure(let p): return (.failure(p), first)
            case .success(let page):
                pages += 1
                if whole == nil { whole = page } else { whole?.append(page) }
                if let problem = overLimit(whole?.alerts.count ?? 0, url: url) { return (.failure(problem), first) }
                guard let next = page.next else { return (.success(whole ?? page), first) }
                guard pages < pageLimit, visited.insert(next).inserted else {
                    let why =
                        pages < pageLimit
                        ? "names a page it already gave as the next page (\(next)): the read would never end"
                        : "names a next page after \(pages) pages (the harness reads at most \(pageLimit))"
                    return (
                        .failure(
                            Problem(
                                text: "the alert source \(why); last: \(url); check alerts.paging",
                                atBound: true
                            )
                        ), first
                    )
                }
                url = next
            }
        }
    }
}
