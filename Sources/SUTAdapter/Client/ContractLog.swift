import Foundation
import Locking
import RunRecord

/// Records, as a run goes, what the SUT answered on each endpoint the harness used (ingestion,
/// alert reads, OAuth2 tokens, lifecycle steps) and what became of the alerts it listed; its
/// ``summary()`` is the reports' SUT-contract section. Safe to share between tasks.
package final class ContractLog: Sendable {
    struct State {
        var base = ""
        var endpoints: [String: SUTContract.Endpoint] = [:]
        var alerts: Set<String> = []
        var outside: Set<String> = []
        var unmapped: [String: Set<String>] = [:]
        var unreadable = 0
        var firstUnreadable: String?
        var notSent = 0
        var pushRefused = 0
        var firstPushRefused: String?
    }

    let state = Locked(State())

    package init() {}

    /// The SUT's base URL: endpoints under it are named by their path.
    package func use(base: String) {
        state.withLock { $0.base = base.hasSuffix("/") ? String(base.dropLast()) : base }
    }

    /// An HTTP answer to a request of `role` (`patient` and `device`: the ids at the SUT that the URL
    /// may hold, named `{patient}` and `{device}`).
    package func answered(
        _ role: SUTContract.Role,
        method: String,
        url: String,
        status: Int,
        body: [UInt8],
        patient: String? = nil,
        device: String? = nil
    ) {
        let name = name(method, url, patient: patient, device: device)
        let excerpt = status >= 400 ? RunHealth.excerpt(body) : nil
        update(role, .http, name) { e in
            e.statuses[status, default: 0] += 1
            if let excerpt, e.firstBodies[status] == nil { e.firstBodies[status] = excerpt }
        }
    }

    /// A request of `role` that got no answer (a transport error: `reason`).
    package func unanswered(
        _ role: SUTContract.Role,
        method: String,
        url: String,
        reason: String,
        patient: String? = nil,
        device: String? = nil
    ) {
        update(role, .http, name(method, url, patient: patient, device: device)) { e in
            e.unanswered += 1
            e.firstUnanswered = e.firstUnanswered ?? reason
        }
    }

    /// An MQTT message's fate: 200 acknowledged by the broker and not refused by the SUT, another
    /// status the SUT's refusal, nil no PUBACK.
    package func published(topic: String, status: Int?, patient: String?, device: String?) {
        let name = "MQTT " + ContractLog.template(topic, base: "", patient: patient, device: device)
        update(.ingestion, .mqtt, name) { e in
            if let status { e.statuses[status, default: 0] += 1 } else { e.unanswered += 1 }
        }
    }

    /// A lifecycle command that succeeded, or failed with `problem`.
    package func command(_ role: SUTContract.Role, _ arguments: [String], problem: String?) {
        let name = "command " + (arguments.first.map { ($0 as NSString).lastPathComponent } ?? "")
        update(role, .command, name) { e in
            e.statuses[problem == nil ? 0 : 1, default: 0] += 1
            if let problem, e.firstBodies[1] == nil { e.firstBodies[1] = problem }
        }
    }

    /// Alerts the alert source listed: `read` of the run's patients, `outside` of other patients.
    package func listed(read: some Sequence<ObservedAlert>, outside: some Sequence<String>) {
        state.withLock { s in
            for a in read {
                s.alerts.insert(a.alertID)
                if let what = a.unmapped { s.unmapped[what, default: []].insert(a.alertID) }
            }
            s.outside.formUnion(outside)
        }
    }

    /// Items of one read of the alert list that could not be read as alerts.
    package func unreadable(_ count: Int, first: String?) {
        guard count > 0 else { return }
        state.withLock { s in
            s.unreadable = max(s.unreadable, count)
            s.firstUnreadable = s.firstUnreadable ?? first
        }
    }

    /// A pushed message that is not a readable alert (every one counted), and why.
    package func pushedUnreadable(_ reason: String) {
        state.withLock { s in
            s.unreadable += 1
            s.firstUnreadable = s.firstUnreadable ?? reason
        }
    }

    /// A POST to a push receiver refused as not the SUT's (every one counted), and why.
    package func pushRefused(_ reason: String) {
        state.withLock { s in
            s.pushRefused += 1
            s.firstPushRefused = s.firstPushRefused ?? reason
        }
    }

    /// Requests the run did not send because it had stopped.
    package func notSent(_ count: Int) {
        state.withLock { $0.notSent += count }
    }

    /// The contract as seen so far.
    package func summary() -> SUTContract {
        state.withLock { s in
            var sutContract = SUTContract()
            sutContract.endpoints = s.endpoints.keys.sorted().map { s.endpoints[$0]! }
            sutContract.alertsRead = s.alerts.count
            sutContract.unreadable = s.unreadable
            sutContract.firstUnreadable = s.firstUnreadable
            sutContract.unmapped = s.unmapped.mapValues(\.count)
            sutContract.outsideRun = s.outside.count
            sutContract.outsideAlertIDs = s.outside.sorted()
            sutContract.notSent = s.notSent
            sutContract.pushRefused = s.pushRefused
            sutContract.firstPushRefused = s.firstPushRefused
            return sutContract
        }
    }

    /// An HTTP endpoint's name: the method and the templated URL.
    func name(_ method: String, _ url: String, patient: String?, device: String?) -> String {
        method + " " + ContractLog.template(url, base: state.withLock { $0.base }, patient: patient, device: device)
    }

    func update(
        _ role: SUTContract.Role,
        _ transport: SUTContract.Transport,
        _ name: String,
        _ body: (inout SUTContract.Endpoint) -> Void
    ) {
        let key = "\(role.rawValue) \(transport.rawValue) \(name)"
        state.withLock { s in
            body(&s.endpoints[key, default: SUTContract.Endpoint(role: role, transport: transport, name: name)])
        }
    }

    /// `url` as an endpoint's name: relative to `base` when under it; path segments (or topic levels)
    /// equal to `patient` or `device` replaced by `{patient}` and `{device}`; query values by `…`.
    package static func template(_ url: String, base: String, patient: String?, device: String?) -> String {
        var rest = Substring(url)
        if !base.isEmpty, rest.hasPrefix(base) {
            rest = rest.dropFirst(base.count)
            if !rest.hasPrefix("/") { rest = "/" + rest }
        }
        let query = rest.firstIndex(of: "?")
        let path = query.map { rest[..<$0] } ?? rest
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            let decoded = segment.removingPercentEncoding ?? String(segment)
            if let patient, !patient.isEmpty, decoded == patient { return "{patient}" }
            if let device, !device.isEmpty, decoded == device { return "{device}" }
            return String(segment)
        }
        var name = segments.joined(separator: "/")
        if let query {
            let pairs = rest[rest.index(after: query)...].split(separator: "&")
            name +=
                "?"
                + pairs.map { $0.split(separator: "=", maxSplits: 1).first.map { "\($0)=…" } ?? "" }.joined(
                    separator: "&"
                )
        }
        return name
    }
}
