import Foundation
import VitalSimCore
import Yams

/// Loads an alert rules file (YAML) strictly: every problem with `file:line:column`, the field and what is valid.
package enum RuleSetLoader {
    static let kinds = ["threshold", "change", "dailyTotalPerKg", "rate", "forecast", "irregularRhythm", "news2", "dataGap"]

    /// The rules shipped with VitalSim (`Sources/ReferenceEngine/default-rules.yaml`), sourced from reference/clinical.md.
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
        guard reader.issues.isEmpty else { throw ScenarioLoadError(issues: reader.issues) }
        return rules
    }

    static func rule(_ node: Node, _ field: String, _ reader: YAMLReader) -> AlertRule? {
        guard
            let f = reader.mapping(
                node,
                field,
                allowed: ["id", "source", "profiles", "severity", "persistence", "rearm"] + kinds,
                required: ["id", "source", "profiles", "severity"]
            )
        else { return nil }
        let given = kinds.filter { f.has($0) }
        guard given.count == 1, let kindKey = given.first else {
            reader.fail(
                node,
                field,
                "give exactly one of \(kinds.joined(separator: ", ")); got \(given.isEmpty ? "none" : given.joined(separator: ", "))"
            )
            return nil
        }
        var profiles: [Profile] = []
        for (j, p) in (f.list("profiles") ?? []).enumerated() {
            guard let name = p.scalar?.string, let profile = Profile(rawValue: name) else {
                reader.fail(
                    p,
                    f.path("profiles") + "[\(j)]",
                    "unknown profile; valid: \(Profile.allCases.map(\.rawValue).joined(separator: ", "))"
                )
                continue
            }
            profiles.append(profile)
        }
        let persistence = f.duration("persistence", allowZero: true)?.milliseconds ?? 0
        let severity = f.choice("severity", Severity.self, what: "severity")
        let rearm = f.number("rearm", in: 0...1000, unit: "signal units") ?? 0
        guard let kind = kindValue(kindKey, f, reader), let severity else { return nil }
        return AlertRule(
            id: f.string("id") ?? "?",
            source: f.string("source") ?? "",
            profiles: profiles,
            kind: kind,
            persistence: persistence,
            severity: severity,
            rearmMargin: rearm,
            line: f.line
        )
    }

    static func kindValue(_ key: String, _ f: Fields, _ reader: YAMLReader) -> RuleKind? {
        guard let node = f.value(key) else { return nil }
        let path = f.path(key)
        func comparisonFields(_ g: Fields) -> (Signal, Comparison, Double)? {
            // Evaluate every field so that all problems are reported, not just the first.
            let s = g.choice("signal", Signal.self, what: "signal")
            let c = g.choice("operator", Comparison.self, what: "operator")
            let v = g.number("value", in: -100_000...100_000, unit: "signal units")
            guard let s, let c, let v else { return nil }
            return (s, c, v)
        }
        switch key {
        case "threshold":
            guard let g = reader.mapping(node, path, allowed: ["any", "all"]) else { return nil }
            let matchAll = g.has("all")
            guard g.has("any") != g.has("all") else {
                reader.fail(node, path, "give either 'any' or 'all' with a list of conditions")
                return nil
            }
            var conditions: [Condition] = []
            for (i, c) in (g.list(matchAll ? "all" : "any") ?? []).enumerated() {
                guard
                    let h = reader.mapping(
                        c,
                        path + ".\(matchAll ? "all" : "any")[\(i)]",
                        allowed: ["signal", "operator", "value"],
                        required: ["signal", "operator", "value"]
                    ),
                    let (s, op, v) = comparisonFields(h)
                else { continue }
                conditions.append(Condition(signal: s, comparison: op, value: v))
            }
            return conditions.isEmpty ? nil : .threshold(conditions: conditions, matchAll: matchAll)
        case "change":
            guard
                let g = reader.mapping(
                    node,
                    path,
                    allowed: ["signal", "window", "tolerance", "operator", "value"],
                    required: ["signal", "window", "operator", "value"]
                ),
                let (s, op, v) = comparisonFields(g), let w = g.duration("window")
            else { return nil }
            return .change(
                signal: s,
                window: w.milliseconds,
                tolerance: g.duration("tolerance")?.milliseconds ?? w.milliseconds / 6,
                comparison: op,
                value: v
            )
        case "dailyTotalPerKg":
            guard
                let g = reader.mapping(
                    node,
                    path,
                    allowed: ["signal", "window", "operator", "value"],
                    required: ["signal", "operator", "value"]
                ),
                let (s, op, v) = comparisonFields(g)
            else { return nil }
            return .dailyTotalPerKg(signal: s, window: g.duration("window")?.milliseconds ?? 86_400_000, comparison: op, value: v)
        case "rate":
            guard
                let g = reader.mapping(
                    node,
                    path,
                    allowed: ["signal", "maxGap", "operator", "value"],
                    required: ["signal", "operator", "value"]
                ),
                let (s, op, v) = comparisonFields(g)
            else { return nil }
            return .rate(signal: s, maxGap: g.duration("maxGap")?.milliseconds ?? 900_000, comparison: op, value: v)
        case "forecast":
            guard
                let g = reader.mapping(
                    node,
                    path,
                    allowed: ["signal", "lookback", "horizon", "operator", "value"],
                    required: ["signal", "horizon", "operator", "value"]
                ),
                let (s, op, v) = comparisonFields(g), let h = g.duration("horizon")
            else { return nil }
            return .forecast(
                signal: s,
                lookback: g.duration("lookback")?.milliseconds ?? 900_000,
                horizon: h.milliseconds,
                comparison: op,
                value: v
            )
        case "irregularRhythm":
            guard let g = reader.mapping(node, path, allowed: ["beats", "pnn50", "normalizedRMSSD"]) else { return nil }
            return .irregularRhythm(
                beats: Int(g.integer("beats", in: 16...1024) ?? 64),
                pnn50: g.number("pnn50", in: 0...100, unit: "%") ?? 40,
                normalizedRMSSD: g.number("normalizedRMSSD", in: 0...1, unit: "") ?? 0.1
            )
        case "news2":
            guard let g = reader.mapping(node, path, allowed: ["score", "singleParameter", "scale"]) else { return nil }
            let scale = g.integer("scale", in: 1...2) ?? 1
            let single = g.value("singleParameter")?.scalar?.string == "true"
            return .news2(score: Int(g.integer("score", in: 1...20) ?? 5), singleParameter: single, scale2: scale == 2)
        case "dataGap":
            guard let g = reader.mapping(node, path, allowed: ["window"], required: ["window"]), let w = g.duration("window") else {
                return nil
            }
            return .dataGap(window: w.milliseconds)
        default:
            return nil
        }
    }
}
