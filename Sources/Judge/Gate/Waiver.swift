import Foundation
import VitalSimCore
import Yams

/// An accepted known failure (`--waivers FILE`): the check it names does not fail the run until the
/// waiver expires; one that expired fails the run until it is renewed or removed.
package struct Waiver: Sendable, Equatable {
    /// The check's stable id, `SCENARIO: CHECK NAME`, as reports print it.
    package var check: String
    /// Why the failure is accepted.
    package var reason: String
    /// The team's ticket for the defect.
    package var ticket: String?
    /// The last day (UTC, `YYYY-MM-DD`) the waiver holds; nil: no expiry.
    package var expires: String?
    /// Where the waiver is written (`FILE:LINE`), for messages.
    package var location: String

    package init(check: String, reason: String, ticket: String? = nil, expires: String? = nil, location: String = "") {
        self.check = check
        self.reason = reason
        self.ticket = ticket
        self.expires = expires
        self.location = location
    }

    /// Whether the waiver has expired on `today` (`YYYY-MM-DD`, UTC).
    package func hasExpired(on today: String) -> Bool { expires.map { $0 < today } ?? false }

    /// Parses a waivers file: `waivers: [{check, reason, ticket?, expires?}]`; errors name the file,
    /// line and field.
    package static func parse(_ text: String, file: String) throws(ScenarioLoadError) -> [Waiver] {
        let root = try ScenarioLoader.compose(text, file: file)
        let reader = YAMLReader(file: file)
        guard let top = reader.mapping(root, "", allowed: ["waivers"], required: ["waivers"]) else {
            throw ScenarioLoadError(issues: reader.reportedIssues)
        }
        var waivers: [Waiver] = []
        var seen: [String: Int] = [:]
        for (i, node) in (top.list("waivers") ?? []).enumerated() {
            let field = "waivers[\(i)]"
            guard
                let entry = reader.mapping(
                    node,
                    field,
                    allowed: ["check", "reason", "ticket", "expires"],
                    required: ["check", "reason"]
                ),
                let check = entry.string("check"), let reason = entry.string("reason")
            else { continue }
            if !check.contains(": ") {
                reader.fail(
                    entry.value("check"),
                    entry.path("check"),
                    "a check id is 'SCENARIO: CHECK NAME', as reports print it, got '\(check)'"
                )
            }
            if reason.trimmingCharacters(in: .whitespaces).isEmpty {
                reader.fail(entry.value("reason"), entry.path("reason"), "say why the failure is accepted")
            }
            let expires = entry.string("expires")
            if let expires, !isDay(expires) {
                reader.fail(
                    entry.value("expires"),
                    entry.path("expires"),
                    "expected a day such as 2027-01-31, got '\(expires)'"
                )
            }
            if let line = seen[check] {
                reader.fail(
                    entry.value("check"),
                    entry.path("check"),
                    "check '\(check)' is already waived at line \(line)"
                )
            }
            seen[check] = entry.line
            waivers.append(
                Waiver(
                    check: check,
                    reason: reason,
                    ticket: entry.string("ticket"),
                    expires: expires,
                    location: "\(file):\(entry.line)"
                )
            )
        }
        guard reader.issues.isEmpty else { throw ScenarioLoadError(issues: reader.reportedIssues) }
        return waivers
    }

    /// `YYYY-MM-DD` naming a real day.
    static func isDay(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month)
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }
}
