import Foundation
import RunRecord
import VitalSimCore

/// The SUT-contract section of the reports: endpoints with the statuses they answered, the first
/// body of each refusal, and the alerts read, unreadable, unmapped or left out.
extension SUTContract {
    /// Statuses whose first body the console shows: those that point at a configuration or an outage.
    func worthShowing(_ status: Int) -> Bool { [401, 403, 404, 405, 429].contains(status) || status >= 500 }

    /// Console or JUnit text lines; `allBodies` adds the first body of each refusal (`all`: of every
    /// status from 400, else only of those that point at a misconfiguration or an outage).
    package func lines(allBodies: Bool) -> [String] {
        var lines: [String] = []
        let width = endpoints.map(\.role.rawValue.count).max() ?? 0
        let under = String(repeating: " ", count: width + 3)
        for e in sortedEndpoints {
            let role = e.role.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
            lines.append("\(role) \(e.name): \(e.summary)")
            for status in e.firstBodies.keys.sorted() where allBodies || worthShowing(status) {
                lines.append(under + "first \(e.label(status)): \(e.firstBodies[status]!)")
            }
            if let reason = e.firstUnanswered {
                lines.append(under + "first without an answer: \(reason)")
            }
        }
        if endpoints.isEmpty { lines.append("no endpoint of the SUT was reached") }
        lines.append(alertSummary)
        return lines
    }

    /// The section as JSON.
    package var json: JSONValue {
        let endpoints: [JSONValue] = sortedEndpoints.map { e in
            var fields: [(String, JSONValue)] = [
                ("role", .string(e.role.rawValue)), ("transport", .string(e.transport.rawValue)),
                ("name", .string(e.name)),
                ("statuses", .object(e.statuses.keys.sorted().map { (String($0), .int(Int64(e.statuses[$0]!))) })),
                ("unanswered", .int(Int64(e.unanswered))),
            ]
            if !e.firstBodies.isEmpty {
                fields.append(
                    (
                        "firstBodies",
                        .object(e.firstBodies.keys.sorted().map { (String($0), .string(e.firstBodies[$0]!)) })
                    )
                )
            }
            if let reason = e.firstUnanswered { fields.append(("firstUnanswered", .string(reason))) }
            return .object(fields)
        }
        var alerts: [(String, JSONValue)] = [
            ("read", .int(Int64(alertsRead))), ("unreadable", .int(Int64(unreadable))),
            (
                "unmapped",
                .object(unmapped.keys.sorted().map { ($0, .int(Int64(unmapped[$0]!))) })
            ),
            ("outsideRun", .int(Int64(outsideRun))),
        ]
        if let first = firstUnreadable { alerts.append(("firstUnreadable", .string(first))) }
        if pushRefused > 0 {
            alerts.append(("pushRefused", .int(Int64(pushRefused))))
            alerts.append(("firstPushRefused", .string(firstPushRefused ?? "")))
        }
        return .object([
            ("endpoints", .array(endpoints)), ("alerts", .object(alerts)),
            ("notSent", .int(Int64(notSent))),
        ])
    }
}
