import VitalSimCore

/// What an alert of a rule must cite as evidence: at least one reading of a signal the rule reads,
/// measured (device time) within `lookback` before the alert's `raisedAt` — the rule's own window,
/// as the oracle reads it from docs/clinical.md.
package struct EvidenceScope: Sendable, Equatable {
    /// Signals the rule reads; nil for a rule about any reading (a data gap's last reading).
    package var signals: Set<Signal>?
    /// How far before `raisedAt` (device time, ms) a cited reading may lie.
    package var lookback: Int64

    /// A scope of `signals` (nil: any) reaching `lookback` ms before `raisedAt`.
    package init(signals: Set<Signal>?, lookback: Int64) {
        self.signals = signals
        self.lookback = lookback
    }

    /// Leeway on both sides of the window for time stamps rounded to the second (VitalEdge, FHIR).
    package static let slack: Int64 = 1_000

    /// True when a reading of these signals at `time` lies in the window of an alert raised at `raisedAt`.
    package func covers(signals given: Set<Signal>, at time: Int64, raisedAt: Int64) -> Bool {
        guard time >= raisedAt - lookback - Self.slack, time <= raisedAt + Self.slack else { return false }
        guard let signals else { return true }
        return !signals.isDisjoint(with: given)
    }
}

extension Oracle {
    /// How far back a rule on the last 64 beats may reach: 64 beats at 30 bpm, with room for the
    /// readings that carry them.
    static let rhythmLookback: Int64 = 10 * minute

    /// The evidence scope of a rule the oracle knows (nil for other rules, e.g. a SUT's own).
    package static func evidenceScope(rule id: String) -> EvidenceScope? {
        if let r = rules.first(where: { $0.id == id }) {
            return EvidenceScope(signals: Set(r.signals), lookback: r.persistence)
        }
        guard let windowed = windowedRules.first(where: { $0.id == id }) else { return nil }
        switch windowed.kind {
        case let .rate(signal, window, _, _): return EvidenceScope(signals: [signal], lookback: window)
        case let .forecast(signal, lookback, _, _, _): return EvidenceScope(signals: [signal], lookback: lookback)
        case let .change(signal, window, tolerance, _, _):
            return EvidenceScope(signals: [signal], lookback: window + tolerance)
        case let .dailyTotalPerKg(signal, window, _, _): return EvidenceScope(signals: [signal], lookback: window)
        case .irregularRhythm: return EvidenceScope(signals: [.heartRate], lookback: rhythmLookback)
        case let .dataGap(window): return EvidenceScope(signals: nil, lookback: window)
        case .news2: return EvidenceScope(signals: Set(NEWS2Chart.parameters), lookback: hour)
        case let .symptomReport(signals): return EvidenceScope(signals: Set(signals), lookback: 0)
        case let .symptomEscalation(signals, window): return EvidenceScope(signals: Set(signals), lookback: window)
        case let .fluctuation(signal, window, _, _): return EvidenceScope(signals: [signal], lookback: window)
        }
    }

    /// The signals a reading's measurement delivers (empty for readings no rule reads).
    package static func signalSet(_ measurement: Measurement) -> Set<Signal> {
        Set(signals(measurement)?.keys.map { $0 } ?? [])
    }
}
