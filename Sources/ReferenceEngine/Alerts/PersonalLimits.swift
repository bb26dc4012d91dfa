import VitalSimCore

/// A patient's own limits as the reference SUT's API and storage carry them: a JSON object of rule
/// id → limit (a rule comparing one signal) or rule id → `{signal: limit}`, e.g.
/// `{"hr.tachycardia": 120, "bp.hypertensive-crisis": {"systolic": 160}}`.
package enum PersonalLimits {
    /// The limits of an enrolment's `thresholds`, checked against `rules` for a patient with
    /// `profile` (``AlertRule/limitProblem(_:profile:rules:)``) and against the plausible range of
    /// each signal. Rules in id order, signals in ``Signal`` order.
    package static func parse(
        _ input: JSONInput,
        rules: [AlertRule],
        profile: Profile
    ) throws(ValidationFailure) -> [ThresholdOverride] {
        guard case let .object(o) = input else {
            throw ValidationFailure(field: "thresholds", message: "thresholds must be an object of rule id → limit")
        }
        var out: [ThresholdOverride] = []
        for id in o.keys.sorted() {
            let field = "thresholds.\(id)"
            guard let rule = rules.first(where: { $0.id == id }), let compared = rule.limitSignals else {
                let known = rules.filter { $0.limitSignals != nil && $0.profiles.contains(profile) }.map(\.id)
                throw ValidationFailure(
                    field: field,
                    message:
                        "no threshold rule \(id) here; rules with limits for \(profile.rawValue): \(known.joined(separator: ", "))"
                )
            }
            switch o[id]! {
            case let .object(signals):
                for name in signals.keys.sorted() where Signal(rawValue: name) == nil {
                    throw ValidationFailure(field: field + "." + name, message: "unknown signal \(name)")
                }
                for signal in Signal.allCases {
                    guard let v = signals[signal.rawValue] else { continue }
                    out.append(
                        ThresholdOverride(
                            rule: id,
                            signal: signal,
                            value: try limit(v, signal, id, field + "." + signal.rawValue)
                        )
                    )
                }
            case let scalar:
                guard compared.count == 1 else {
                    throw ValidationFailure(
                        field: field,
                        message:
                            "\(id) compares \(compared.map(\.rawValue).joined(separator: " and ")): give {signal: limit}"
                    )
                }
                let signal = compared[0]
                out.append(ThresholdOverride(rule: id, signal: signal, value: try limit(scalar, signal, id, field)))
            }
        }
        if let problem = AlertRule.limitProblem(out, profile: profile, rules: rules) {
            throw ValidationFailure(field: problem.field, message: problem.message)
        }
        return out
    }

    static func limit(
        _ jsonInput: JSONInput,
        _ signal: Signal,
        _ rule: String,
        _ field: String
    ) throws(ValidationFailure) -> Double {
        let range = ThresholdOverride.range(of: signal, rule: rule)
        guard let number = jsonInput.doubleValue, number.isFinite else {
            throw ValidationFailure(
                field: field,
                message: "a limit is a number in \(signal.ucum), got \(jsonInput.typeName)"
            )
        }
        guard range.contains(number) else {
            throw ValidationFailure(
                field: field,
                message:
                    "\(JSONValue.format(number)) is outside \(JSONValue.format(range.lowerBound))...\(JSONValue.format(range.upperBound)) \(signal.ucum)"
            )
        }
        return number
    }

    /// Stored limits (written by ``ThresholdOverride/json(_:)``); anything unreadable is left out.
    package static func stored(_ text: String) -> [ThresholdOverride] {
        guard case let .object(o)? = JSONInput.parse(Array(text.utf8)) else { return [] }
        var out: [ThresholdOverride] = []
        for id in o.keys.sorted() {
            guard case let .object(signals)? = o[id] else { continue }
            for signal in Signal.allCases {
                if let limit = signals[signal.rawValue]?.doubleValue {
                    out.append(ThresholdOverride(rule: id, signal: signal, value: limit))
                }
            }
        }
        return out
    }
}
