import Foundation
import VitalSimCore
import Yams

/// Loads an alert rules file (YAML) strictly: every problem with `file:line:column`, the field and what is valid.
package enum RuleSetLoader {
    static let kinds = [
        "threshold", "change", "dailyTotalPerKg", "rate", "forecast", "irregularRhythm", "news2", "dataGap", "report",
        "escalation",
        "fluctuation",
    ]

    /// The rules shipped with VitalSim (`Sources/ReferenceEngine/Alerts/default-rules.yaml`), sourced from
    /// docs/clinical.md.
    package static func defaultRules() throws(ScenarioLoadError) -> [AlertRule] {
        guard let url = Bundle.module.url(forResource: "default-rules", withExtension: "yaml"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else {
            throw ScenarioLoadError(issues: [
                ScenarioIssue(
                    file: "default-rules.yaml",
                    line: 0,
                    column: 0,
                    field: "",
                    message: "the shipped rules file is missing from the build"
                )
            ])
        }
        return try parse(text, file: "default-rules.yaml")
    }

    package static func parse(_ text: String, file: String) throws(ScenarioLoadError) -> [AlertRule] {
        let root = try ScenarioLoader.compose(text, file: file)
        let reader = YAMLReader(file: file)
        var rules: [AlertRule] = []
        if let top = reader.mapping(root, "", allowed: ["rules"], required: ["rules"]), let list = top.list("rules") {
            var ids: Set<String> = []
            for (i, node) in list.enumerated() {
                guard let r = rule(node, "rules[\(i)]", reader) else { continue }
                if !ids.insert(r.id).inserted { reader.fail(node, "rules[\(i)].id", "duplicate rule id '\(r.id)'") }
                rules.append(r)
            }
        }
        guard reader.issues.isEmpty else { throw ScenarioLoadError(issues: reader.reportedIssues) }
        return rules
    }

    static func rule(_ node: Node, _ field: String, _ reader: YAMLReader) -> AlertRule? {
        guard
            let fields = reader.mapping(
                node,
                field,
                allowed: ["id", "source", "profiles", "severity", "persistence", "rearm"] + kinds,
                required: ["id", "source", "profiles", "severity"]
            )
        else { return nil }
        let given = kinds.filter { fields.has($0) }
        guard given.count == 1, let kindKey = given.first else {
            reader.fail(
                node,
                field,
                "give exactly one of \(kinds.joined(separator: ", ")); got \(given.isEmpty ? "none" : given.joined(separator: ", "))"
            )
            return nil
        }
        var profiles: [Profile] = []
        for (j, p) in (fields.list("profiles") ?? []).enumerated() {
            guard let name = p.scalar?.string, let profile = Profile(rawValue: name) else {
                reader.fail(
                    p,
                    fields.path("profiles") + "[\(j)]",
                    "unknown profile; valid: \(Profile.allCases.map(\.rawValue).joined(separator: ", "))"
                )
                continue
            }
            profiles.append(profile)
        }
        let persistence = fields.duration("persistence", allowZero: true)?.milliseconds ?? 0
        let severity = fields.choice("severity", Severity.self, what: "severity")
        let rearm = fields.number("rearm", in: 0...1000, unit: "signal units") ?? 0
        guard let kind = kindValue(kindKey, fields, reader), let severity else { return nil }
        return AlertRule(
            id: fields.string("id") ?? "?",
            source: fields.string("source") ?? "",
            profiles: profiles,
            kind: kind,
            persistence: persistence,
            severity: severity,
            rearmMargin: rearm,
            line: fields.line
        )
    }

    static func kindValue(_ key: String, _ fields: Fields, _ reader: YAMLReader) -> RuleKind? {
        guard let node = fields.value(key) else { return nil }
        let parser = RuleKindParser(node: node, path: fields.path(key), reader: reader)
        switch key {
        case "threshold": return parser.threshold()
        case "change": return parser.change()
        case "dailyTotalPerKg": return parser.dailyTotalPerKg()
        case "rate": return parser.rate()
        case "forecast": return parser.forecast()
        case "irregularRhythm": return parser.irregularRhythm()
        case "news2": return parser.news2()
        case "dataGap": return parser.dataGap()
        case "report": return parser.report()
        case "escalation": return parser.escalation()
        case "fluctuation": return parser.fluctuation()
        default: return nil
        }
    }
}
