import VitalSimCore

extension Comparison {
    /// Whether `x` satisfies the comparison against `threshold`.
    package func holds(_ x: Double, _ threshold: Double) -> Bool {
        switch self {
        case .less: x < threshold
        case .lessOrEqual: x <= threshold
        case .greater: x > threshold
        case .greaterOrEqual: x >= threshold
        }
    }

    /// The same comparison with its threshold moved `margin` into the normal range (for re-arming).
    package func rearmThreshold(_ threshold: Double, margin: Double) -> Double {
        switch self {
        case .less, .lessOrEqual: threshold + margin
        case .greater, .greaterOrEqual: threshold - margin
        }
    }
}

/// One condition on one signal.
package struct Condition: Sendable, Equatable {
    package var signal: Signal
    package var comparison: Comparison
    package var value: Double
}

/// How a rule decides that its condition holds.
package enum RuleKind: Sendable, Equatable {
    /// Any (or all) of the conditions on the latest reading, held for `persistence`.
    case threshold(conditions: [Condition], matchAll: Bool)
    /// Change of a signal against the reading about `window` earlier (latest − earlier), compared to `value`.
    case change(signal: Signal, window: Int64, tolerance: Int64, comparison: Comparison, value: Double)
    /// Sum of a signal over the last `window`, per kg of the latest weight, compared to `value`.
    case dailyTotalPerKg(signal: Signal, window: Int64, comparison: Comparison, value: Double)
    /// Rate of change (units per minute): the least-squares slope of at least three readings that
    /// span the last `maxGap` (to within a minute).
    case rate(signal: Signal, maxGap: Int64, comparison: Comparison, value: Double)
    /// Linear forecast `horizon` ahead from readings in the last `lookback`, compared to `value`
    /// (only while the current value does not already meet it).
    case forecast(signal: Signal, lookback: Int64, horizon: Int64, comparison: Comparison, value: Double)
    /// AF suspicion from the last `beats` RR intervals: pNN50 above `pnn50` % and RMSSD/meanNN above `normalizedRMSSD`.
    case irregularRhythm(beats: Int, pnn50: Double, normalizedRMSSD: Double)
    /// NEWS2 aggregate (RCP 2017) at or above `score`, or 3 in a single parameter when `singleParameter`.
    case news2(score: Int, singleParameter: Bool, scale2: Bool)
    /// No reading from a device for longer than `window` (technical alarm).
    case dataGap(window: Int64)
    /// Every reading on which any condition holds raises its own alert (a symptom report is an
    /// event, not a level that stays out of range).
    case report(conditions: [Condition])
    /// A report of one of `signals` (symptom severities) above the same signal's previous report
    /// within `window` before it.
    case escalation(signals: [Signal], window: Int64)
    /// The median absolute difference of successive readings of `signal` from one device over the
    /// last `window` (at least `samples`, a median interval of at least a minute: sparse samples,
    /// not a stream) at least `value`. Without a value (the default rules give none) only a
    /// patient's own limit turns it on.
    case fluctuation(signal: Signal, window: Int64, samples: Int, value: Double?)
}

/// A clinical or technical alert rule, with its source so an auditor can trace it.
package struct AlertRule: Sendable, Equatable {
    package var id: String
    package var source: String
    package var profiles: [Profile]
    package var kind: RuleKind
    /// How long the condition must hold on consecutive readings before the alert is raised.
    package var persistence: Int64
    package var severity: Severity
    /// Once raised, the rule re-arms only after a reading beyond the threshold by this margin (hysteresis).
    package var rearmMargin: Double
    /// 1-based line in the rules file.
    package var line: Int
}

extension AlertRule {
    /// The rule with each threshold comparison's strictness flipped (`>` ↔ `>=`, `<` ↔ `<=`): the
    /// `off-by-one` fault, a SUT that compares one step off at every boundary.
    package var offByOne: AlertRule {
        func flip(_ rule: Condition) -> Condition {
            var rule = rule
            rule.comparison =
                switch rule.comparison {
                case .less: .lessOrEqual
                case .lessOrEqual: .less
                case .greater: .greaterOrEqual
                case .greaterOrEqual: .greater
                }
            return rule
        }
        var rule = self
        switch kind {
        case let .threshold(conditions, matchAll):
            rule.kind = .threshold(conditions: conditions.map(flip), matchAll: matchAll)
        case let .report(conditions): rule.kind = .report(conditions: conditions.map(flip))
        default: break
        }
        return rule
    }

    /// The signals a patient's own limit may set for this rule: a threshold rule's, or a
    /// fluctuation rule's; nil for every other kind.
    package var limitSignals: [Signal]? {
        switch kind {
        case let .threshold(conditions, _): conditions.map(\.signal)
        case let .fluctuation(signal, _, _, _): [signal]
        default: nil
        }
    }

    /// The rule with a patient's own limits in place of its threshold conditions' values (only a
    /// threshold or fluctuation rule has limits a patient can change).
    func personalized(_ limits: [ThresholdOverride]) -> AlertRule {
        if case let .fluctuation(signal, window, samples, _) = kind,
            let own = limits.first(where: { $0.rule == id && $0.signal == signal })
        {
            var rule = self
            rule.kind = .fluctuation(signal: signal, window: window, samples: samples, value: own.value)
            return rule
        }
        guard case let .threshold(conditions, matchAll) = kind, limits.contains(where: { $0.rule == id }) else {
            return self
        }
        var rule = self
        rule.kind = .threshold(
            conditions: conditions.map { c in
                var c = c
                if let own = limits.first(where: { $0.rule == id && $0.signal == c.signal }) { c.value = own.value }
                return c
            },
            matchAll: matchAll
        )
        return rule
    }

    /// Why `limits` cannot apply to a patient with `profile` under `rules` (the first limit that
    /// cannot, its field and a message naming the cause), or nil: each names a threshold rule of the
    /// set that applies to the profile and compares the limit's signal.
    package static func limitProblem(
        _ limits: [ThresholdOverride],
        profile: Profile,
        rules: [AlertRule]
    ) -> (limit: ThresholdOverride, field: String, message: String)? {
        for l in limits {
            let field = "thresholds.\(l.rule)"
            guard let rule = rules.first(where: { $0.id == l.rule }) else {
                return (l, field, "no rule \(l.rule) in this SUT's rules")
            }
            guard rule.profiles.contains(profile) else {
                return (l, field, "\(l.rule) does not apply to profile \(profile.rawValue)")
            }
            guard let compared = rule.limitSignals else {
                return (
                    l, field,
                    "\(l.rule) is not a threshold rule; only threshold and fluctuation rules take a patient's own limits"
                )
            }
            guard compared.contains(l.signal) else {
                let signals = compared.map(\.rawValue).joined(separator: ", ")
                return (l, field + "." + l.signal.rawValue, "\(l.rule) compares \(signals), not \(l.signal.rawValue)")
            }
        }
        return nil
    }
}
