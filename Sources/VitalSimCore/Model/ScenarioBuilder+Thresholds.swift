import Yams

extension ScenarioBuilder {
    /// A patient's `thresholds:`: rule id → limit (a rule comparing one signal), or rule id →
    /// `{signal: limit}` (either or both signals of a blood-pressure rule). Unknown rules, rules
    /// of another profile, unknown signals and limits outside ``ThresholdOverride/range(of:)`` are
    /// issues.
    func personalLimits(_ node: Node, _ field: String, profile: Profile) -> [ThresholdOverride] {
        let catalogue = ThresholdOverride.rules
        guard let fields = reader.mapping(node, field, allowed: catalogue.map(\.id)) else { return [] }
        if node.mapping?.count == 0 {
            reader.fail(node, field, "give at least one rule's limit, or leave thresholds out")
        }
        var out: [ThresholdOverride] = []
        for rule in catalogue where fields.has(rule.id) {
            guard rule.profiles.contains(profile) else {
                let mine = catalogue.filter { $0.profiles.contains(profile) }.map(\.id).joined(separator: ", ")
                reader.fail(
                    fields.value(rule.id),
                    fields.path(rule.id),
                    "\(rule.id) does not apply to profile \(profile.rawValue); its rules: \(mine)"
                )
                continue
            }
            guard let value = fields.value(rule.id) else { continue }
            if value.mapping == nil {
                guard rule.signals.count == 1 else {
                    let example = rule.signals.map { "\($0.rawValue): LIMIT" }.joined(separator: ", ")
                    reader.fail(
                        value,
                        fields.path(rule.id),
                        "\(rule.id) compares \(rule.signals.count) signals; write {\(example)}"
                    )
                    continue
                }
                if let limitValue = limit(fields, rule.id, rule.signals[0], rule: rule.id) {
                    out.append(
                        ThresholdOverride(
                            rule: rule.id,
                            signal: rule.signals[0],
                            value: limitValue,
                            line: reader.line(of: value)
                        )
                    )
                }
                continue
            }
            guard let signals = reader.mapping(value, fields.path(rule.id), allowed: rule.signals.map(\.rawValue))
            else {
                continue
            }
            if value.mapping?.count == 0 {
                reader.fail(
                    value,
                    fields.path(rule.id),
                    "give the limit of \(rule.signals.map(\.rawValue).joined(separator: " or "))"
                )
            }
            for signal in rule.signals where signals.has(signal.rawValue) {
                if let limitValue = limit(signals, signal.rawValue, signal, rule: rule.id) {
                    let line = reader.line(of: signals.value(signal.rawValue))
                    out.append(ThresholdOverride(rule: rule.id, signal: signal, value: limitValue, line: line))
                }
            }
        }
        return out
    }

    private func limit(_ fields: Fields, _ key: String, _ signal: Signal, rule: String) -> Double? {
        fields.number(
            key,
            in: ThresholdOverride.range(of: signal, rule: rule),
            unit: signal.ucum == "Cel" ? "°C" : signal.ucum
        )
    }
}
