import Foundation
import VitalSimCore
import Yams

/// A reviewed expectation file, `golden/<scenario>.golden.yaml`: the alerts a SUT must raise (rule,
/// patient, severity, a window of device time), the rejections it must answer with, latency
/// budgets, and a digest of the traffic the scenario produces (so a changed scenario or generator
/// cannot silently keep an old verdict). Written by `vitalsim record`, reviewed by a person,
/// checked by `vitalsim run`.
package struct GoldenFile: Sendable, Equatable {
    package struct ExpectedAlert: Sendable, Equatable {
        package var patientID: String
        package var rule: String
        package var severity: Severity
        /// Window of device time (Unix ms) in which `raisedAt` must fall.
        package var from: Int64
        package var to: Int64
        /// Who must be notified of the alert, and how long after it (ms of device time); anyone else
        /// must not be. Nil: recipients are not judged (the patient has no escalation policy for the
        /// alert's severity).
        package var recipients: [ExpectedRecipient]?
        /// The escalations an action stopped: people who would have been notified `after` the alert
        /// had nobody acted on it, and must not be.
        package var withheld: [ExpectedRecipient] = []
        /// The care team's actions on the alert (the scenario's timeline), each of which the SUT must
        /// take.
        package var actions: [ExpectedAction] = []

        package init(
            patientID: String,
            rule: String,
            severity: Severity,
            from: Int64,
            to: Int64,
            recipients: [ExpectedRecipient]? = nil,
            actions: [ExpectedAction] = []
        ) {
            self.patientID = patientID
            self.rule = rule
            self.severity = severity
            self.from = from
            self.to = to
            self.recipients = recipients
            self.actions = actions
        }
    }

    /// A person an alert must reach, `after` it was raised (0: with it; later: an escalation).
    package struct ExpectedRecipient: Sendable, Equatable, Hashable {
        package var person: String
        /// ms of device time after the alert.
        package var after: Int64

        package init(person: String, after: Int64) {
            self.person = person
            self.after = after
        }
    }

    /// A care-team member's action on an alert, which the SUT must accept.
    package struct ExpectedAction: Sendable, Equatable {
        package var person: String
        package var action: CareAction

        package init(person: String, action: CareAction) {
            self.person = person
            self.action = action
        }
    }

    package struct ExpectedValidation: Sendable, Equatable {
        /// The first reading id of the request.
        package var reading: String
        package var status: Int
        package var field: String

        /// The rejection of the request starting with `reading`: `status` naming `field`.
        package init(reading: String, status: Int, field: String) {
            self.reading = reading
            self.status = status
            self.field = field
        }
    }

    package struct Budget: Sendable, Equatable {
        /// One of ``LatencyPath/budgetable``.
        package var path: LatencyPath
        /// Percentile (50, 99, 100 = max) → limit in ms.
        package var limits: [(percentile: Double, milliseconds: Double)]

        /// Limits (percentile, ms) on `path`.
        package init(path: LatencyPath, limits: [(percentile: Double, milliseconds: Double)]) {
            self.path = path
            self.limits = limits
        }

        package static func == (a: Budget, b: Budget) -> Bool {
            a.path == b.path && a.limits.map(\.percentile) == b.limits.map(\.percentile)
                && a.limits.map(\.milliseconds) == b.limits.map(\.milliseconds)
        }
    }

    package var scenario: String
    package var seed: UInt64
    package var trafficDigest: String
    /// How far `raisedAt` may fall before or after the recorded time (part of the format, per file).
    package var earlyTolerance: Int64
    package var lateTolerance: Int64
    package var alerts: [ExpectedAlert]
    package var validation: [ExpectedValidation]
    package var budgets: [Budget]
    /// Requirement levels the file sets (`levels:`), over ``RequirementAspect/defaultLevel``.
    package var levels: [RequirementAspect: RequirementLevel] = [:]

    /// The level of the checks of `aspect` in this file.
    package func level(_ aspect: RequirementAspect) -> RequirementLevel { levels[aspect] ?? aspect.defaultLevel }

    /// A golden file with every field given.
    package init(
        scenario: String,
        seed: UInt64,
        trafficDigest: String,
        earlyTolerance: Int64,
        lateTolerance: Int64,
        alerts: [ExpectedAlert],
        validation: [ExpectedValidation],
        budgets: [Budget]
    ) {
        self.scenario = scenario
        self.seed = seed
        self.trafficDigest = trafficDigest
        self.earlyTolerance = earlyTolerance
        self.lateTolerance = lateTolerance
        self.alerts = alerts
        self.validation = validation
        self.budgets = budgets
    }

    /// Default tolerances when recording: a SUT may raise up to 1 min earlier or 5 min later (device time).
    package static let defaultEarly: Int64 = 60_000
    package static let defaultLate: Int64 = 300_000

    /// The YAML text (stable order, comments for the reviewer); `writer` says where its alerts came from.
    package func yaml(writtenBy writer: String = "`vitalsim record`") -> String {
        func ts(_ ms: Int64) -> String { CivilTime(unixMilliseconds: ms).iso8601(fractional: true) }
        func q(_ s: String) -> String {
            "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        var yaml = """
            # Golden expectations for scenario \(scenario). Written by \(writer); review every line
            # before committing: each alert must follow from the scenario and docs/alert-rules.md.
            scenario: \(q(scenario))
            seed: \(seed)
            trafficDigest: \(q(trafficDigest))
            tolerance: {early: \(earlyTolerance / 1000)s, late: \(lateTolerance / 1000)s}

            """
        yaml += "# SHALL: a finding fails the run; SHOULD: it warns (fails with --strict). golden/README.md.\n"
        yaml +=
            "levels: {"
            + RequirementAspect.allCases.map { "\($0.rawValue): \(level($0).rawValue)" }.joined(separator: ", ") + "}\n"
        yaml += alerts.isEmpty ? "alerts: []\n" : "alerts:\n"
        for a in alerts {
            yaml +=
                "  - {patient: \(q(a.patientID)), rule: \(q(a.rule)), severity: \(a.severity.rawValue), from: \(q(ts(a.from))), to: \(q(ts(a.to)))"
                + Self.recipientsYAML(a, quote: q) + "}\n"
        }
        yaml += "# Any alert not listed above is a failure (spurious or duplicate).\n"
        if alerts.contains(where: { $0.recipients != nil }) {
            yaml += "# recipients: who must be notified, `after` the alert (anyone else must not be); withheld: the\n"
            yaml += "# escalations the care team's actions stopped (must not come); actions: which the SUT must take.\n"
        }
        yaml += validation.isEmpty ? "validation: []\n" : "validation:\n"
        for v in validation { yaml += "  - {reading: \(q(v.reading)), status: \(v.status), field: \(q(v.field))}\n" }
        yaml += budgets.isEmpty ? "budgets: {}\n" : "budgets:\n"
        for b in budgets {
            yaml +=
                "  \(b.path.rawValue): {"
                + b.limits.map { "\(GoldenFile.percentileName($0.percentile)): \(GoldenFile.ms($0.milliseconds))ms" }
                .joined(
                    separator: ", "
                ) + "}\n"
        }
        return yaml
    }

    /// An alert's `, recipients: [...], actions: [...]` (empty when its recipients are not judged).
    static func recipientsYAML(_ a: ExpectedAlert, quote q: (String) -> String) -> String {
        guard let recipients = a.recipients else { return "" }
        var yaml =
            ", recipients: ["
            + recipients.map { "{person: \(q($0.person)), after: \($0.after / 1000)s}" }.joined(separator: ", ") + "]"
        if !a.withheld.isEmpty {
            yaml +=
                ", withheld: ["
                + a.withheld.map { "{person: \(q($0.person)), after: \($0.after / 1000)s}" }.joined(separator: ", ")
                + "]"
        }
        if !a.actions.isEmpty {
            yaml +=
                ", actions: ["
                + a.actions.map { "{person: \(q($0.person)), action: \($0.action.rawValue)}" }.joined(separator: ", ")
                + "]"
        }
        return yaml
    }

    /// How check names and golden files write a percentile: `p99`, `p99.9`, `max`.
    package static func percentileName(_ p: Double) -> String {
        p >= 100 ? "max" : "p" + (p == p.rounded() ? String(Int(p)) : String(p))
    }
    /// Milliseconds without a needless `.0`.
    package static func ms(_ v: Double) -> String { v == v.rounded() ? String(Int64(v)) : String(v) }
}
