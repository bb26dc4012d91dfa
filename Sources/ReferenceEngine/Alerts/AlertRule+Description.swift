import VitalSimCore

extension AlertRule {
    /// The rule in words, for the requirements catalogue (docs/requirements.md).
    package var catalogueDescription: RuleDescription {
        RuleDescription(
            id: id,
            source: source,
            condition: kind.words,
            persistence: persistence > 0 ? "\(VirtualDuration(milliseconds: persistence))" : nil,
            rearm: rearmMargin > 0 ? Self.number(rearmMargin) : nil,
            severity: severity.rawValue,
            profiles: profiles.map(\.rawValue)
        )
    }

    /// A threshold without a needless `.0`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e12 ? String(Int64(value)) : String(value)
    }
}

extension RuleKind {
    /// What decides the rule, as its rule file writes it.
    var words: String {
        func condition(_ c: Condition) -> String {
            "\(c.signal.rawValue) \(c.comparison.rawValue) \(AlertRule.number(c.value))"
        }
        func time(_ ms: Int64) -> String { "\(VirtualDuration(milliseconds: ms))" }
        switch self {
        case .threshold(let conditions, let matchAll):
            return conditions.map(condition).joined(separator: matchAll ? " and " : " or ")
        case .change(let signal, let window, let tolerance, let comparison, let value):
            return "\(signal.rawValue) change over \(time(window)) (± \(time(tolerance))) "
                + "\(comparison.rawValue) \(AlertRule.number(value))"
        case .dailyTotalPerKg(let signal, let window, let comparison, let value):
            return
                "\(signal.rawValue) total over \(time(window)) per kg \(comparison.rawValue) \(AlertRule.number(value))"
        case .rate(let signal, let maxGap, let comparison, let value):
            return
                "\(signal.rawValue) slope over \(time(maxGap)), per minute, \(comparison.rawValue) \(AlertRule.number(value))"
        case .forecast(let signal, let lookback, let horizon, let comparison, let value):
            return "\(signal.rawValue) forecast \(time(horizon)) ahead (from the last \(time(lookback))) "
                + "\(comparison.rawValue) \(AlertRule.number(value))"
        case .irregularRhythm(let beats, let pnn50, let normalizedRMSSD):
            return "over the last \(beats) beats pNN50 > \(AlertRule.number(pnn50)) % "
                + "and RMSSD/meanNN > \(AlertRule.number(normalizedRMSSD))"
        case .news2(let score, let singleParameter, let scale2):
            return "NEWS2 aggregate >= \(score)" + (singleParameter ? " or 3 in one parameter" : "")
                + (scale2 ? " (SpO2 scale 2)" : "")
        case .dataGap(let window):
            return "a streaming device silent for more than \(time(window))"
        case .report(let conditions):
            return "each report with " + conditions.map(condition).joined(separator: " or ")
        case .escalation(let signals, let window):
            return "a report of \(signals.map(\.rawValue).joined(separator: ", ")) above the same signal's "
                + "previous one within \(time(window))"
        case .fluctuation(let signal, let window, let samples, let value):
            return "median absolute successive difference of \(signal.rawValue) over \(time(window)) "
                + "(at least \(samples) samples)"
                + (value.map { " >= \(AlertRule.number($0))" } ?? " >= the patient's own limit")
        }
    }
}
