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
        let signal = fields.choice("signal", Signal.self, what: "signal")
        let comparison = fields.choice("operator", Comparison.self, what: "operator")
        let value = fields.number("value", in: -100_000...100_000, unit: "signal units")
        guard let signal, let comparison, let value else { return nil }
        return (signal, comparison, value)
    }

    private func fields(_ allowed: [String], required: [String] = []) -> Fields? {
        reader.mapping(node, path, allowed: allowed, required: required)
    }

    func threshold() -> RuleKind? {
        guard let given = fields(["any", "all"]) else { return nil }
        let matchAll = given.has("all")
        guard given.has("any") != given.has("all") else {
            reader.fail(node, path, "give either 'any' or 'all' with a list of conditions")
            return nil
        }
        let key = matchAll ? "all" : "any"
        var conditions: [Condition] = []
        for (i, item) in (given.list(key) ?? []).enumerated() {
            let required = ["signal", "operator", "value"]
            guard let condition = reader.mapping(item, path + ".\(key)[\(i)]", allowed: required, required: required),
                let (signal, op, value) = comparisonFields(condition)
            else { continue }
            conditions.append(Condition(signal: signal, comparison: op, value: value))
        }
        return conditions.isEmpty ? nil : .threshold(conditions: conditions, matchAll: matchAll)
    }

    func change() -> RuleKind? {
        guard
            let given = fields(
                ["signal", "window", "tolerance", "operator", "value"],
                required: ["signal", "window", "operator", "value"]
            ),
            let (signal, op, value) = comparisonFields(given), let window = given.duration("window")
        else { return nil }
        let tolerance = given.duration("tolerance")?.milliseconds ?? window.milliseconds / 6
        return .change(signal: signal, window: window.milliseconds, tolerance: tolerance, comparison: op, value: value)
    }

    func dailyTotalPerKg() -> RuleKind? {
        guard
            let given = fields(["signal", "window", "operator", "value"], required: ["signal", "operator", "value"]),
            let (signal, op, value) = comparisonFields(given)
        else { return nil }
        return .dailyTotalPerKg(
            signal: signal,
            window: given.duration("window")?.milliseconds ?? 86_400_000,
            comparison: op,
            value: value
        )
    }

    func rate() -> RuleKind? {
        guard
            let given = fields(["signal", "maxGap", "operator", "value"], required: ["signal", "operator", "value"]),
            let (signal, op, value) = comparisonFields(given)
        else { return nil }
        return .rate(
            signal: signal,
            maxGap: given.duration("maxGap")?.milliseconds ?? 900_000,
            comparison: op,
            value: value
        )
    }

    func forecast() -> RuleKind? {
        guard
            let given = fields(
                ["signal", "lookback", "horizon", "operator", "value"],
                required: ["signal", "horizon", "operator", "value"]
            ),
            let (signal, op, value) = comparisonFields(given), let horizon = given.duration("horizon")
        else { return nil }
        let lookback = given.duration("lookback")?.milliseconds ?? 900_000
        return .forecast(
            signal: signal,
            lookback: lookback,
            horizon: horizon.milliseconds,
            comparison: op,
            value: value
        )
    }

    func irregularRhythm() -> RuleKind? {
        guard let given = fields(["beats", "pnn50", "normalizedRMSSD"]) else { return nil }
        return .irregularRhythm(
            beats: Int(given.integer("beats", in: 16...1024) ?? 64),
            pnn50: given.number("pnn50", in: 0...100, unit: "%") ?? 40,
            normalizedRMSSD: given.number("normalizedRMSSD", in: 0...1, unit: "") ?? 0.1
        )
    }

    func news2() -> RuleKind? {
        guard let given = fields(["score", "singleParameter", "scale"]) else { return nil }
        let scale = given.integer("scale", in: 1...2) ?? 1
        let single = given.value("singleParameter")?.scalar?.string == "true"
        return .news2(score: Int(given.integer("score", in: 1...20) ?? 5), singleParameter: single, scale2: scale == 2)
    }

    func report() -> RuleKind? {
        guard case let .threshold(conditions, _)? = threshold() else { return nil }
        if node.mapping?["all"] != nil {
            reader.fail(node, path, "a report rule takes 'any' (each report meeting one condition raises)")
        }
        return .report(conditions: conditions)
    }

    func escalation() -> RuleKind? {
        guard let given = fields(["signals", "window"], required: ["signals", "window"]),
            let window = given.duration("window")
        else { return nil }
        var signals: [Signal] = []
        for (i, item) in (given.list("signals") ?? []).enumerated() {
            let name = item.scalar?.string ?? ""
            guard let signal = Signal(rawValue: name) else {
                reader.fail(item, given.path("signals") + "[\(i)]", "unknown signal '\(name)'")
                continue
            }
            signals.append(signal)
        }
        return signals.isEmpty ? nil : .escalation(signals: signals, window: window.milliseconds)
    }

    func fluctuation() -> RuleKind? {
        guard let given = fields(["signal", "window", "samples", "value"], required: ["signal", "window"]),
            let signal = given.choice("signal", Signal.self, what: "signal"), let window = given.duration("window")
        else { return nil }
        let samples = Int(given.integer("samples", in: 3...1000) ?? 10)
        return .fluctuation(
            signal: signal,
            window: window.milliseconds,
            samples: samples,
            value: given.number("value", in: 0...1000, unit: "signal units")
        )
    }

    func dataGap() -> RuleKind? {
        guard let given = fields(["window"], required: ["window"]), let window = given.duration("window") else {
            return nil
        }
        return .dataGap(window: window.milliseconds)
    }
}
