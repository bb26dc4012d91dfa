/// What one run saw of the SUT's interface, apart from its clinical behaviour: every endpoint the
/// harness used with the statuses it answered, the alert source's reads, alerts that could not be
/// read or mapped, and alerts left out as another run's. Reports show it so that a QA engineer can
/// tell a misconfiguration (a wrong path, token or alert mapping) from a clinical failure.
package struct SUTContract: Sendable, Equatable, Codable {
    /// Why the harness used an endpoint.
    package enum Role: String, Sendable, CaseIterable, Comparable, Codable {
        case enrol, token, ingestion, alerts
        case readBack = "read-back"
        case reset

        package static func < (a: Role, b: Role) -> Bool {
            Role.allCases.firstIndex(of: a)! < Role.allCases.firstIndex(of: b)!
        }
    }

    /// How an endpoint is reached.
    package enum Transport: String, Sendable, Codable {
        /// Statuses are HTTP statuses.
        case http
        /// Status 200 is the broker's PUBACK with no refusal from the SUT; any other status is the
        /// SUT's refusal on its verdict topic.
        case mqtt
        /// Status 0 is a command that succeeded, 1 one that failed.
        case command
    }

    /// One endpoint (ids of patients and devices replaced by `{patient}` and `{device}`).
    package struct Endpoint: Sendable, Equatable, Codable {
        package var role: Role
        package var transport: Transport
        /// E.g. `POST /api/v1/observations`, `MQTT vitals/{patient}/heart_rate`; a path relative to
        /// the SUT's base URL, a whole URL elsewhere.
        package var name: String
        /// Answers by status, every attempt counted (a retried 503 as often as it came).
        package var statuses: [Int: Int] = [:]
        /// Attempts without an answer, and the first one's reason.
        package var unanswered = 0
        package var firstUnanswered: String?
        /// The first body of each status from 400 on (at most 200 characters).
        package var firstBodies: [Int: String] = [:]

        package init(role: Role, transport: Transport, name: String) {
            self.role = role
            self.transport = transport
            self.name = name
        }

        /// Adds `other`'s counts (the same endpoint seen in another scenario).
        mutating func add(_ other: Endpoint) {
            for (status, n) in other.statuses { statuses[status, default: 0] += n }
            unanswered += other.unanswered
            firstUnanswered = firstUnanswered ?? other.firstUnanswered
            firstBodies.merge(other.firstBodies) { mine, _ in mine }
        }

        /// The label of a status: `PUBACK` for an MQTT message the SUT did not refuse, `ok`/`failed` for commands.
        package func label(_ status: Int) -> String {
            switch transport {
            case .http: String(status)
            case .mqtt: status == 200 ? "PUBACK" : "refused \(status)"
            case .command: status == 0 ? "ok" : "failed"
            }
        }

        /// `201 ×1180, 400 ×12, no answer ×1`.
        package var summary: String {
            var parts = statuses.keys.sorted().map { "\(label($0)) ×\(statuses[$0]!)" }
            if unanswered > 0 { parts.append("\(transport == .mqtt ? "no PUBACK" : "no answer") ×\(unanswered)") }
            return parts.joined(separator: ", ")
        }
    }

    package var endpoints: [Endpoint] = []
    /// Distinct alerts of the run's patients read from the alert source.
    package var alertsRead = 0
    /// Items of the alert list that could not be read as alerts (most in one read), and the first with why.
    package var unreadable = 0
    package var firstUnreadable: String?
    /// Distinct alerts whose names the profile does not map, by what was unmapped (`rule 'HIGH_BP'`).
    package var unmapped: [String: Int] = [:]
    /// Distinct alerts of patients outside the run (another scenario's or run's), left out.
    package var outsideRun = 0
    /// Their ids, sorted (nil in a contract written before they were kept): a shard's result keeps
    /// them so that a merge counts each alert once and not the other shards' own
    /// (``Verdict/mergedContract(_:)``).
    package var outsideAlertIDs: [String]?
    /// Requests not sent because the run had stopped.
    package var notSent = 0
    /// POSTs to the harness's push receivers refused as not the SUT's (without the receiver's key,
    /// unsigned, wrongly signed), never judged; and the first one's reason.
    package var pushRefused = 0
    package var firstPushRefused: String?

    package init() {}

    /// Endpoints in report order: by role, then name.
    package var sortedEndpoints: [Endpoint] {
        endpoints.sorted { ($0.role, $0.name) < ($1.role, $1.name) }
    }

    /// The contracts of several scenarios as one: endpoints with the same role and name added up.
    package static func merged(_ contracts: [SUTContract]) -> SUTContract {
        var out = SUTContract()
        var index: [String: Int] = [:]
        for c in contracts {
            for e in c.endpoints {
                let key = e.role.rawValue + " " + e.name
                if let position = index[key] {
                    out.endpoints[position].add(e)
                } else {
                    index[key] = out.endpoints.count
                    out.endpoints.append(e)
                }
            }
            out.alertsRead += c.alertsRead
            out.unreadable += c.unreadable
            out.firstUnreadable = out.firstUnreadable ?? c.firstUnreadable
            out.unmapped.merge(c.unmapped, uniquingKeysWith: +)
            out.outsideRun += c.outsideRun
            out.notSent += c.notSent
            out.pushRefused += c.pushRefused
            out.firstPushRefused = out.firstPushRefused ?? c.firstPushRefused
        }
        return out
    }

    /// One line on the alerts: read, unreadable, unmapped, left out.
    package var alertSummary: String {
        var parts = ["\(alertsRead) alert(s) read"]
        if unreadable > 0 { parts.append("\(unreadable) unreadable (first: \(firstUnreadable ?? "?"))") }
        if !unmapped.isEmpty {
            parts.append(
                "unmapped: " + unmapped.keys.sorted().map { "\($0) ×\(unmapped[$0]!)" }.joined(separator: ", ")
            )
        }
        if outsideRun > 0 { parts.append("\(outsideRun) alert(s) of patients outside the run left out") }
        if notSent > 0 { parts.append("\(notSent) request(s) not sent after the run stopped") }
        if pushRefused > 0 {
            parts.append(
                "\(pushRefused) POST(s) to the harness's receiver refused as not the SUT's (first: \(firstPushRefused ?? "?"))"
            )
        }
        return parts.joined(separator: "; ")
    }
}
