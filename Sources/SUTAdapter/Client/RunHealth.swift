import Foundation
import Traffic

/// What a run saw of the SUT's answers that says more about its configuration than about its
/// clinical behaviour: requests refused for want of credentials or a route, an outage that never
/// ended, an alert source that does not answer with a readable alert list. Any of these ends the
/// scenario as an infrastructure failure (exit 3) naming the endpoint, the status and the first
/// body, never as a missed alert.
package struct RunHealth {
    package init() {}

    /// Requests answered 2xx (an MQTT message: acknowledged by the broker).
    package var accepted = 0
    /// Requests answered 401, 403, 404 or 405.
    package var refused = 0
    /// The first such refusal: request, status and body excerpt.
    package var firstRefusal: String?
    /// The first 429 or 503 answer: request, status and body excerpt.
    package var firstOutage: String?
    /// Why the run stopped sending before the end, if it did.
    package var abortReason: String?
    /// Polls of the alert API that returned a list.
    package var polls = 0
    /// Polls that did not, the first one's problem, and whether the latest poll failed.
    package var pollFailures = 0
    package var firstPollFailure: String?
    package var lastPollFailed = false
    /// The first alert-list item that could not be read, and how many could not.
    package var firstUnreadable: String?
    package var unreadableCount = 0
    /// Why requests could not be given their credentials (a token endpoint refusing, a device
    /// without a token): the run stops at once.
    package var credentialProblem: String?
    /// A reading the SUT profile's ingestion routes cannot carry: the run stops at once.
    package var routeProblem: String?
    /// MQTT messages the SUT refused with 429 or 503 (rate limited, overloaded), and the first.
    package var mqttThrottled = 0
    package var firstMQTTThrottle: String?
    /// A bound of the harness the SUT's answers passed (an answer too large, too many alerts or
    /// pushed events, a paging loop): the run stops at once, unjudged. See `docs/reliability.md`.
    package var boundReached: String?

    /// Statuses that mean a request did not reach an ingestion route the run may use.
    package static let configurationStatuses: Set<Int> = [401, 403, 404, 405]
    /// Statuses that mean the SUT is overloaded or down: retried, for up to --outage-limit.
    package static let outageStatuses: Set<Int> = [429, 503]
    /// Refusals in a row, with nothing accepted, after which the run stops sending.
    package static let refusalLimit = 20

    /// What the run saw of one route (`METHOD /path`, or MQTT): answers, configuration refusals and
    /// the first refusal's status.
    package struct RouteTally: Sendable, Equatable {
        package var answered = 0
        package var refused = 0
        package var firstStatus: Int?
    }

    /// Answers per route, so that one wrong route is found while the others work.
    package var routes: [String: RouteTally] = [:]

    /// The route of an HTTP request as ``routes`` counts it: method and path without the query.
    package static func route(of request: PlannedRequest) -> String {
        request.topic != nil
            ? mqttRoute : request.method + " " + String(request.path.prefix { $0 != "?" })
    }

    /// The one route of MQTT readings.
    package static let mqttRoute = "MQTT"

    /// Records a request's final answer on `route`; returns a reason to stop the run when every one
    /// of the first ``refusalLimit`` answers was a configuration refusal.
    package mutating func answered(_ status: Int?, route: String = "") -> String? {
        guard let status else { return nil }
        routes[route, default: RouteTally()].answered += 1
        if (200..<300).contains(status) { accepted += 1 }
        guard RunHealth.configurationStatuses.contains(status) else { return nil }
        routes[route]!.refused += 1
        if routes[route]!.firstStatus == nil { routes[route]!.firstStatus = status }
        refused += 1
        guard accepted == 0, refused >= RunHealth.refusalLimit else { return nil }
        return "the first \(refused) requests were all refused with 401, 403, 404 or 405"
    }

    /// Keeps the first 429 or 503 answer.
    package mutating func noteOutage(_ request: String, status: Int, body: [UInt8]) {
        if firstOutage == nil { firstOutage = "\(request) → \(status): \(RunHealth.excerpt(body))" }
    }

    /// Keeps the first configuration refusal: `request` (method and URL), status and body.
    package mutating func noteRefusal(_ request: String, status: Int, body: [UInt8]) {
        if firstRefusal == nil { firstRefusal = "\(request) → \(status): \(RunHealth.excerpt(body))" }
    }

    /// An MQTT message the SUT refused with 429 or 503 on its refusals topic.
    package mutating func noteMQTTThrottled(_ topic: String, status: Int, body: [UInt8]) {
        mqttThrottled += 1
        if firstMQTTThrottle == nil { firstMQTTThrottle = "\(status) on \(topic): \(Self.excerpt(body))" }
    }

    package mutating func pollFailed(_ problem: String) {
        pollFailures += 1
        lastPollFailed = true
        if firstPollFailure == nil { firstPollFailure = problem }
    }

    /// A poll returned an alert list; `list.unreadable` of its items could not be read as alerts
    /// (the largest number in one poll is kept, since every poll lists them again).
    package mutating func pollSucceeded(unreadable list: AlertList? = nil) {
        polls += 1
        lastPollFailed = false
        guard let list, list.unreadable > 0 else { return }
        unreadableCount = max(unreadableCount, list.unreadable)
        if firstUnreadable == nil { firstUnreadable = list.firstUnreadable }
    }

    /// True when the alert source has never listed alerts, or lists some the harness cannot read:
    /// nothing is worth waiting for from it.
    package var alertSourceUnusable: Bool { polls == 0 || unreadableCount > 0 }

    /// The misconfiguration this run shows, if any (see the type's description).
    package func problem(alertURL: String, answered: Int, names: SettingNames = .words) -> String? {
        if let boundReached { return "a bound of the harness was reached: \(boundReached)" }
        if let credentialProblem { return "credentials: \(credentialProblem)" }
        if let routeProblem { return "ingestion: \(routeProblem)" }
        if accepted == 0, answered > 0, refused == answered, let first = firstRefusal {
            return
                "the SUT accepted none of the \(answered) request(s) answered: every one was refused with 401, 403, 404 or 405 (first: \(first)); check \(names[.target]), the credentials (the profile's auth, \(names[.header])) and the SUT's paths"
        }
        // One route refused throughout while others work: a wrong path, credential or enrolment on
        // that route, never readings the SUT judged invalid.
        for route in routes.keys.sorted() {
            guard let tally = routes[route], tally.answered > 0, tally.refused == tally.answered else { continue }
            return
                "every one of the \(tally.answered) request(s) to \(route) was refused with \(tally.firstStatus ?? 0) or another of 401, 403, 404, 405, while other routes worked: check that route's path in the SUT profile's ingestion.routes, its credentials (auth), and whether the SUT needs its patients enrolled first (lifecycle)"
        }
        // Over MQTT a refusal comes after the broker acknowledged the message: the harness does not
        // send it again, so a rate limit or an overload would read as readings refused.
        if mqttThrottled > 0, let first = firstMQTTThrottle {
            return
                "the SUT refused \(mqttThrottled) MQTT message(s) with 429 or 503 (rate limited or overloaded; first: \(first)); over MQTT the harness does not send a refused message again, so these cannot be judged: raise the SUT's rate limit (vitalsim serve --rate-limit) or send more slowly (\(names[.speed]))"
        }
        if accepted == 0, let reason = abortReason {
            return "the SUT accepted no request and the run stopped: \(reason)"
                + (firstOutage.map { " (first: \($0))" } ?? "")
        }
        if polls == 0, let first = firstPollFailure {
            return "the alert source never returned an alert list (\(pollFailures) poll(s)); first: \(first)"
        }
        if let first = firstUnreadable {
            return
                "the alert source \(alertURL) lists \(unreadableCount) alert(s) the harness cannot read (check alerts.fields of the SUT profile; without a profile each alert must be {alertId, patientId, rule, severity, raisedAt, evidence}); first: \(first)"
        }
        if lastPollFailed, let first = firstPollFailure {
            return
                "the alert source failed at the end of the run, so the alerts cannot be judged; first failure: \(first)"
        }
        return nil
    }

    /// Up to 200 characters of a body, on one line.
    package static func excerpt(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(400), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
        if body.isEmpty { return "(empty body)" }
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// A hint for a transport failure towards an HTTPS SUT: a server that requires a client
    /// certificate (mutual TLS) and got none ends the TLS 1.3 handshake in a way libcurl reports as
    /// a failure to receive data, or names the certificate.
    package static func tlsHint(
        _ reason: String,
        url: String,
        clientCertificate: Bool,
        names: SettingNames = .words
    ) -> String {
        guard url.hasPrefix("https://") else { return "" }
        let lower = reason.lowercased()
        if !clientCertificate, lower.contains("receiving data from the peer") || lower.contains("certificate required")
        {
            return
                " (a SUT that requires a client certificate — mutual TLS — refuses this way: give tls.client-certificate and client-key in the profile, or \(names[.clientCertificate]))"
        }
        if lower.contains("certificate") || lower.contains("ssl") {
            return
                "; give the CA that signed the SUT's certificate with \(names[.caFile]) or tls.ca (or \(names[.insecure]), only when you must)"
        }
        return ""
    }
}
