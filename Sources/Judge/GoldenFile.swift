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

        package init(patientID: String, rule: String, severity: Severity, from: Int64, to: Int64) {
            self.patientID = patientID
            self.rule = rule
            self.severity = severity
            self.from = from
            self.to = to
        }
    }

    package struct ExpectedValidation: Sendable, Equatable {
        /// The first reading id of the request.
        package var reading: String
        package var status: Int
        package var field: String
    }

    package struct Budget: Sendable, Equatable {
        /// One of ``LatencyPath/budgetable``.
        package var path: LatencyPath
        /// Percentile (50, 99, 100 = max) → limit in ms.
        package var limits: [(percentile: Double, milliseconds: Double)]
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

    /// Default tolerances when recording: a SUT may raise up to 1 min earlier or 5 min later (device time).
    package static let defaultEarly: Int64 = 60_000
    package static let defaultLate: Int64 = 300_000

    /// The YAML text (stable order, comments for the reviewer).
    package func yaml() -> String {
        func ts(_ ms: Int64) -> String { CivilTime(unixMilliseconds: ms).iso8601(fractional: true) }
        func q(_ s: String) -> String {
            "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        var y = """
            # Golden expectations for scenario \(scenario). Written by `vitalsim record`; review every line
            # before committing: each alert must follow from the scenario and docs/alert-rules.md.
            scenario: \(q(scenario))
            seed: \(seed)
            trafficDigest: \(q(trafficDigest))
            tolerance: {early: \(earlyTolerance / 1000)s, late: \(lateTolerance / 1000)s}

            """
        y += alerts.isEmpty ? "alerts: []\n" : "alerts:\n"
        for a in alerts {
            y +=
                "  - {patient: \(q(a.patientID)), rule: \(q(a.rule)), severity: \(a.severity.rawValue), from: \(q(ts(a.from))), to: \(q(ts(a.to)))}\n"
        }
        y += "# Any alert not listed above is a failure (spurious or duplicate).\n"
        y += validation.isEmpty ? "validation: []\n" : "validation:\n"
        for v in validation { y += "  - {reading: \(q(v.reading)), status: \(v.status), field: \(q(v.field))}\n" }
        y += budgets.isEmpty ? "budgets: {}\n" : "budgets:\n"
        for b in budgets {
            y +=
                "  \(b.path.rawValue): {"
                + b.limits.map { "\(GoldenFile.percentileName($0.percentile)): \(GoldenFile.ms($0.milliseconds))ms" }.joined(
                    separator: ", "
                ) + "}\n"
        }
        return y
    }

    static func percentileName(_ p: Double) -> String { p >= 100 ? "max" : "p" + (p == p.rounded() ? String(Int(p)) : String(p)) }
    static func ms(_ v: Double) -> String { v == v.rounded() ? String(Int64(v)) : String(v) }

    /// Parses a golden file; errors name the file, line and field.
    package static func parse(_ text: String, file: String) throws(ScenarioLoadError) -> GoldenFile {
        let root = try ScenarioLoader.compose(text, file: file)
        let r = YAMLReader(file: file)
        var g = GoldenFile(
            scenario: "",
            seed: 0,
            trafficDigest: "",
            earlyTolerance: defaultEarly,
            lateTolerance: defaultLate,
            alerts: [],
            validation: [],
            budgets: []
        )
        guard
            let top = r.mapping(
                root,
                "",
                allowed: ["scenario", "seed", "trafficDigest", "tolerance", "alerts", "validation", "budgets"],
                required: ["scenario", "seed", "trafficDigest", "alerts"]
            )
        else { throw ScenarioLoadError(issues: r.issues) }
        g.scenario = top.string("scenario") ?? ""
        g.seed = UInt64(top.integer("seed", in: 0...Int64.max) ?? 0)
        g.trafficDigest = top.string("trafficDigest") ?? ""
        if let t = top.value("tolerance"), let f = r.mapping(t, "tolerance", allowed: ["early", "late"], required: ["early", "late"]) {
            g.earlyTolerance = f.duration("early", allowZero: true)?.milliseconds ?? defaultEarly
            g.lateTolerance = f.duration("late", allowZero: true)?.milliseconds ?? defaultLate
        }
        func time(_ f: Fields, _ key: String) -> Int64? {
            guard let s = f.string(key) else { return nil }
            guard let ms = CivilTime.unixMilliseconds(rfc3339: s) else {
                r.fail(f.value(key), f.path(key), "expected an ISO-8601 time such as 2024-11-07T08:00:00.000Z")
                return nil
            }
            return ms
        }
        for (i, node) in (top.list("alerts") ?? []).enumerated() {
            guard
                let f = r.mapping(
                    node,
                    "alerts[\(i)]",
                    allowed: ["patient", "rule", "severity", "from", "to"],
                    required: ["patient", "rule", "severity", "from", "to"]
                )
            else { continue }
            guard let p = f.string("patient"), let rule = f.string("rule"), let sev = f.string("severity"), let from = time(f, "from"),
                let to = time(f, "to")
            else { continue }
            guard let severity = Severity(rawValue: sev) else {
                r.fail(f.value("severity"), f.path("severity"), "severity must be low, medium or high")
                continue
            }
            if to < from {
                r.fail(f.value("to"), f.path("to"), "to is before from")
                continue
            }
            g.alerts.append(ExpectedAlert(patientID: p, rule: rule, severity: severity, from: from, to: to))
        }
        if top.has("validation") {
            for (i, node) in (top.list("validation") ?? []).enumerated() {
                guard
                    let f = r.mapping(
                        node,
                        "validation[\(i)]",
                        allowed: ["reading", "status", "field"],
                        required: ["reading", "status", "field"]
                    ),
                    let reading = f.string("reading"), let status = f.integer("status", in: 100...599)
                else { continue }
                let field: String
                if case let .scalar(s)? = f.value("field") {
                    field = s.string
                } else {
                    r.fail(f.value("field"), f.path("field"), "field must be a string")
                    continue
                }
                g.validation.append(ExpectedValidation(reading: reading, status: Int(status), field: field))
            }
        }
        if let b = top.value("budgets") {
            if case let .mapping(m) = b {
                for (k, v) in m {
                    let name = k.string ?? ""
                    guard let path = LatencyPath(rawValue: name), LatencyPath.budgetable.contains(path) else {
                        r.fail(k, "budgets." + name, "budget paths are " + LatencyPath.budgetable.map(\.rawValue).joined(separator: ", "))
                        continue
                    }
                    guard case let .mapping(lm) = v else {
                        r.fail(v, "budgets." + name, "expected {p50: 20ms, p99: 200ms, max: 1s}")
                        continue
                    }
                    var limits: [(Double, Double)] = []
                    for (pk, pv) in lm {
                        let name = pk.string ?? ""
                        let pct: Double? = name == "max" ? 100 : (name.hasPrefix("p") ? Double(name.dropFirst()) : nil)
                        guard let pct, pct > 0, pct <= 100 else {
                            r.fail(pk, "budgets.\(path.rawValue).\(name)", "percentiles are written p50, p99, p99.9 or max")
                            continue
                        }
                        guard let s = pv.string, let d = VirtualDuration(parsing: s) else {
                            r.fail(pv, "budgets.\(path.rawValue).\(name)", "expected a duration such as 250ms or 2s")
                            continue
                        }
                        limits.append((pct, Double(d.milliseconds)))
                    }
                    g.budgets.append(Budget(path: path, limits: limits.sorted { $0.0 < $1.0 }))
                }
            } else {
                r.fail(b, "budgets", "expected a mapping of paths to limits")
            }
        }
        guard r.issues.isEmpty else { throw ScenarioLoadError(issues: r.issues) }
        return g
    }
}
