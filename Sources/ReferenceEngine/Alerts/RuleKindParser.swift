import VitalSimCore
import Yams

/// Parses the value of one rule-kind key (`threshold:`, `change:`, …) of a rules file.
struct RuleKindParser {
    /// The kind's YAML value.
    let node: Node
    /// Its field path, for messages.
    let path: String
    /// The reader that collects every issue.
    let reader: YAMLReader

    /// The `signal`, `operator` and `value` of a condition; evaluates every field so that all
    /// problems are reported, not just the first.
    private func comparisonFields(_ fields: Fields) -> (Signal, Comparison, Double)? {
        let s = fields.choice("signal", Signal.self, what: "signal")
        let c = fields.choice("operator", Comparison.self, what: "operator")
        let v = fields.number("value", in: -100_000...100_000, unit: "signal units")
        guard let s, let c, let v else { return nil }
        return (s, c, v)
    }

    private func fields(_ allowed: [String], required: [String] = []) -> Fields? {
        reader.mapping(node, path, allowed: allowed, required: required)
    }

    func threshold() -> RuleKind? {
        guard let g = fields(["any", "all"]) else { return nil }
        let matchAll = g.has("all")
        guard g.has("any") != g.has("all") else {
            reader.fail(node, path, "give either 'any' or 'all' with a list of conditions")
            return nil
        }
        let key = matchAll ? "all" : "any"
        var conditions: [Condition] = []
        for (i, c) in (g.list(key) ?? []).enumerated() {
            let required = ["signal", "operator", "value"]
            guard let h = reader.mapping(c, path + ".\(key)[\(i)]", allowed: required, required: required),
                let (s, op, v) = comparisonFields(h)
            else { continue }
            conditions.append(Condition(signal: s, comparison: op, value: v))
        }
        return conditions.isEmpty ? nil : .threshold(conditions: conditions, matchAll: matchAll)
    }

    func change() -> RuleKind? {
        guard
            let g = fields(
                ["signal", "window", "tolerance", "operator", "value"],
                required: ["signal", "window", "operator", "value"]
            ),
            let (s, op, v) = comparisonFields(g), let w = g.duration("window")
        else { return nil }
        let tolerance = g.duration("tolerance")?.milliseconds ?? w.milliseconds / 6
        return .change(signal: s, window: w.milliseconds, tolerance: tolerance, comparison: op, value: v)
    }

    func dailyTotalPerKg() -> RuleKind? {
        guard let g = fields(["signal", "window", "operator", "value"], required: ["signal", "operator", "value"]),
            let (s, op, v) = comparisonFields(g)
        else { return nil }
        return .dailyTotalPerKg(
            signal: s,
            window: g.duration("window")?.milliseconds ?? 86_400_000,
            comparison: op,
            value: v
        )
    }

    func rate() -> RuleKind? {
        guard let g = fields(["signal", "maxGap", "operator", "value"], required: ["signal", "operator", "value"]),
            let (s, op, v) = comparisonFields(g)
        else { return nil }
        return .rate(signal: s, maxGap: g.duration("maxGap")?.milliseconds ?? 900_000, comparison: op, value: v)
    }

    func forecast() -> RuleKind? {
        guard
            let g = fields(
                ["signal", "lookback", "horizon", "operator", "value"],
                required: ["signal", "horizon", "operator", "value"]
            ),
            let (s, op, v) = comparisonFields(g), let h = g.duration("horizon")
        else { return nil }
        let lookback = g.duration("lookback")?.milliseconds ?? 900_000
        return .forecast(signal: s, lookback: lookback, horizon: h.milliseconds, comparison: op, value: v)
    }

    func irregularRhythm() -> RuleKind? {
        guard let g = fields(["beats", "pnn50", "normalizedRMSSD"]) else { return nil }
        return .irregularRhythm(
            beats: Int(g.integer("beats", in: 16...1024) ?? 64),
            pnn50: g.number("pnn50", in: 0...100, unit: "%") ?? 40,
            normalizedRMSSD: g.number("normalizedRMSSD", in: 0...1, unit: "") ?? 0.1
        )
    }

    func news2() -> RuleKind? {
        guard let g = fields(["score", "singleParameter", "scale"]) else { return nil }
        let scale = g.integer("scale", in: 1...2) ?? 1
        let single = g.value("singleParameter")?.scalar?.string == "true"
        return .news2(score: Int(g.integer("score", in: 1...20) ?? 5), singleParameter: single, scale2: scale == 2)
    }

    func report() -> RuleKind? {
        guard case let .threshold(conditions, _)? = threshold() else { return nil }
        if node.mapping?["all"] != nil {
            reader.fail(node, path, "a report rule takes 'any' (each report meeting one condition raises)")
        }
        return .report(conditions: conditions)
    }

    func escalation() -> RuleKind? {
        guard let g = fields(["signals", "window"], required: ["signals", "window"]), let w = g.duration("window")
        else { return nil }
        var signals: [Signal] = []
        for (i, item) in (g.list("signals") ?? []).enumerated() {
            let name = item.scalar?.string ?? ""
            guard let signal = Signal(rawValue: name) else {
                reader.fail(item, g.path("signals") + "[\(i)]", "unknown signal '\(name)'")
                continue
            }
            signals.append(signal)
        }
        return signals.isEmpty ? nil : .escalation(signals: signals, window: w.milliseconds)
    }

    func fluctuation() -> RuleKind? {
        guard let g = fields(["signal", "window", "samples", "value"], required: ["signal", "window"]),
            let s = g.choice("signal", Signal.self, what: "signal"), let w = g.duration("window")
        else { return nil }
        let samples = Int(g.integer("samples", in: 3...1000) ?? 10)
        return .fluctuation(
            signal: s,
            window: w.milliseconds,
            samples: samples,
            value: g.number("value", in: 0...1000, unit: "signal units")
        )
    }

    func dataGap() -> RuleKind? {
        guard let g = fields(["window"], required: ["window"]), let w = g.duration("window") else { return nil }
        return .dataGap(window: w.milliseconds)
    }
}
