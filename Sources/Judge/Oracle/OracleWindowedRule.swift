import VitalSimCore

/// A rule over a window of readings (trend, forecast, change, daily total, rhythm, data gap, score),
/// as the oracle reads it from docs/clinical.md and the rule contract of docs/alert-rules.md,
/// independently of the reference SUT's engine. Every kind raises once per episode and re-arms when
/// its condition, evaluated on a later reading of its signal, no longer holds.
package struct OracleWindowedRule: Sendable {
    /// What the rule computes.
    package enum Kind: Sendable {
        /// Least-squares slope (units per minute) over the readings of `[t − window, t]`: at least
        /// three, spanning the window to within a minute.
        case rate(signal: Signal, window: Int64, comparison: Comparison, value: Double)
        /// The current value does not meet the comparison but the fitted line over the last `lookback`,
        /// extrapolated `horizon` ahead, does ("urgent low soon").
        case forecast(signal: Signal, lookback: Int64, horizon: Int64, comparison: Comparison, value: Double)
        /// Latest value − the earlier reading nearest `window` before it (within `tolerance`).
        case change(signal: Signal, window: Int64, tolerance: Int64, comparison: Comparison, value: Double)
        /// Sum over `(t − window, t]` divided by the latest weight; needs data from the window's first hour.
        case dailyTotalPerKg(signal: Signal, window: Int64, comparison: Comparison, value: Double)
        /// Over the last `beats` RR intervals: pNN50 > `pnn50` % and RMSSD / mean NN > `normalizedRMSSD`.
        case irregularRhythm(beats: Int, pnn50: Double, normalizedRMSSD: Double)
        /// A device that streams (median interval ≤ window / 3 over at least three readings) delivers nothing for
        /// longer than `window`.
        case dataGap(window: Int64)
        /// The NEWS2 aggregate of the latest respiration, SpO2, systolic, pulse and temperature (each ≤ 1 h old)
        /// reaches `score`;
        /// the rule re-arms once the aggregate is below `score − rearm`.
        case news2(score: Int, scale2: Bool, rearm: Int)
        /// Every report of one of `signals` (a symptom's severity, 1...3) raises its own alert.
        case symptomReport(signals: [Signal])
        /// A report of one of `signals` above the same signal's previous report (by device time)
        /// in `[t − window, t)`.
        case symptomEscalation(signals: [Signal], window: Int64)
        /// Per device, over the readings of `signal` in `[t − window, t]` (at least `samples`, a
        /// median interval of at least a minute): the median absolute difference of successive
        /// readings at least the patient's own limit; re-armed below the limit less `rearm`. Off
        /// without a limit.
        case fluctuation(signal: Signal, window: Int64, samples: Int, rearm: Double)
    }

    package var id: String
    package var profiles: Set<Profile>
    package var severity: Severity
    package var kind: Kind
    package var source: String

    /// `value <op> limit` for the comparison operators of the rule contract.
    static func holds(_ v: Double, _ comparison: Comparison, _ limit: Double) -> Bool {
        switch comparison {
        case .less: v < limit
        case .lessOrEqual: v <= limit
        case .greater: v > limit
        case .greaterOrEqual: v >= limit
        }
    }

    /// Rounds to 1e-6 so that a value of exactly the threshold (30 g = 0.030 kg) is not a binary-float accident.
    static func micro(_ x: Double) -> Double { (x * 1e6).rounded() / 1e6 }
}

extension Oracle {
    static let hour: Int64 = 3_600_000, minute: Int64 = 60_000

    /// The windowed rules the oracle derives (ids shared with docs/alert-rules.md).
    package static let windowedRules: [OracleWindowedRule] = [
        OracleWindowedRule(
            id: "hr.af-suspected",
            profiles: adultish,
            severity: .medium,
            kind: .irregularRhythm(beats: 64, pnn50: 40, normalizedRMSSD: 0.1),
            source:
                "docs/clinical.md §1.4: pNN50 (Akande/Charlton 2023) and RMSSD/meanNN > 0.1 (Dash 2009) over 64 beats"
        ),
        OracleWindowedRule(
            id: "news2.urgent",
            profiles: [.adult, .diabeticCGM],
            severity: .medium,
            kind: .news2(score: 5, scale2: false, rearm: 2),
            source: "docs/clinical.md §4.6: NEWS2 ≥ 5, urgent response threshold; re-armed below 3"
        ),
        OracleWindowedRule(
            id: "news2.emergency",
            profiles: [.adult, .diabeticCGM],
            severity: .high,
            kind: .news2(score: 7, scale2: false, rearm: 2),
            source: "docs/clinical.md §4.6: NEWS2 ≥ 7, emergency response threshold; re-armed below 5"
        ),
        OracleWindowedRule(
            id: "news2.urgent-copd",
            profiles: [.copd],
            severity: .medium,
            kind: .news2(score: 5, scale2: true, rearm: 2),
            source: "docs/clinical.md §4.6: NEWS2 ≥ 5 on SpO2 scale 2; re-armed below 3"
        ),
        OracleWindowedRule(
            id: "glucose.urgent-low-soon",
            profiles: [.diabeticCGM],
            severity: .high,
            kind: .forecast(
                signal: .cgm,
                lookback: 15 * minute,
                horizon: 20 * minute,
                comparison: .lessOrEqual,
                value: 55
            ),
            source: "docs/clinical.md §2.5: Urgent Low Soon, 55 mg/dL predicted within 20 min"
        ),
        OracleWindowedRule(
            id: "glucose.fall-rate",
            profiles: [.diabeticCGM],
            severity: .medium,
            kind: .rate(signal: .cgm, window: 15 * minute, comparison: .lessOrEqual, value: -2),
            source: "docs/clinical.md §2.5: fall rate alert at 2 mg/dL/min"
        ),
        OracleWindowedRule(
            id: "glucose.rise-rate",
            profiles: [.diabeticCGM],
            severity: .low,
            kind: .rate(signal: .cgm, window: 15 * minute, comparison: .greaterOrEqual, value: 2),
            source: "docs/clinical.md §2.5: rise rate alert at 2 mg/dL/min"
        ),
        OracleWindowedRule(
            id: "infant.weight-loss-24h",
            profiles: [.chdInfant],
            severity: .high,
            kind: .change(signal: .weight, window: 24 * hour, tolerance: 6 * hour, comparison: .less, value: -0.030),
            source: "docs/clinical.md §5: weight loss > 30 g in 24 h"
        ),
        OracleWindowedRule(
            id: "infant.poor-gain-3d",
            profiles: [.chdInfant],
            severity: .medium,
            kind: .change(signal: .weight, window: 72 * hour, tolerance: 12 * hour, comparison: .less, value: 0.020),
            source: "docs/clinical.md §5: gain < 20 g over 3 days"
        ),
        OracleWindowedRule(
            id: "weight.hf-gain",
            profiles: adultish,
            severity: .medium,
            kind: .change(signal: .weight, window: 72 * hour, tolerance: 12 * hour, comparison: .greater, value: 2.0),
            source: "docs/clinical.md §3.5: heart-failure weight gain > 2 kg in 3 days (ESC patient guidance)"
        ),
        OracleWindowedRule(
            id: "infant.low-intake",
            profiles: [.chdInfant],
            severity: .medium,
            kind: .dailyTotalPerKg(signal: .feeding, window: 24 * hour, comparison: .less, value: 100),
            source: "docs/clinical.md §5: intake < 100 mL/kg/day"
        ),
        OracleWindowedRule(
            id: "device.data-gap",
            profiles: all,
            severity: .low,
            kind: .dataGap(window: 30 * minute),
            source:
                "docs/clinical.md §4.7: signal loss as a technical alarm; 30 min without data from a streaming device"
        ),
        OracleWindowedRule(
            id: "symptom.red-flag",
            profiles: adultish,
            severity: .high,
            kind: .symptomReport(signals: [.chestPain, .fainting]),
            source:
                "NICE CG95 (recent chest pain) and CG109 (transient loss of consciousness): each report needs prompt assessment"
        ),
        OracleWindowedRule(
            id: "symptom.escalation",
            profiles: adultish,
            severity: .medium,
            kind: .symptomEscalation(signals: SymptomKind.allCases.map(\.signal), window: 24 * hour),
            source:
                "VitalSim's rule (docs/alert-rules.md): a symptom reported worse than its previous report within 24 h"
        ),
        OracleWindowedRule(
            id: "hr.fluctuation",
            profiles: adultish,
            severity: .medium,
            kind: .fluctuation(signal: .heartRate, window: hour, samples: 10, rearm: 3),
            source:
                "VitalSim's rule (docs/alert-rules.md), the InTouch PRD's heart rate fluctuating wildly: on a patient's own limit only"
        ),
    ]

    /// One windowed rule over one patient's samples (device-time order). `end` is the latest emit time
    /// of the whole scenario: a device still silent then has a gap only if it is longer than the window.
    package static func judge(
        _ rule: OracleWindowedRule,
        _ patient: String,
        _ samples: [Sample],
        end: Int64,
        limits: [ThresholdOverride] = []
    ) -> [OracleAlert] {
        var latch = Latch(rule: rule, patient: patient)
        switch rule.kind {
        case let .fluctuation(signal, window, count, rearm):
            guard let own = limits.first(where: { $0.rule == rule.id && $0.signal == signal }) else { return [] }
            return fluctuation(
                rule,
                patient,
                samples,
                signal,
                window: window,
                samples: count,
                limit: own.value,
                rearm: rearm
            )
        case let .rate(signal, window, comparison, value):
            rate(samples, signal, window: window, comparison, value, &latch)
        case let .forecast(signal, lookback, horizon, comparison, value):
            forecast(samples, signal, lookback: lookback, horizon: horizon, comparison, value, &latch)
        case let .change(signal, window, tolerance, comparison, value):
            change(samples, signal, window: window, tolerance: tolerance, comparison, value, &latch)
        case let .dailyTotalPerKg(signal, window, comparison, value):
            dailyTotalPerKg(samples, signal, window: window, comparison, value, &latch)
        case let .irregularRhythm(beats, pnn50, normalized):
            irregularRhythm(samples, beats: beats, pnn50: pnn50, normalizedRMSSD: normalized, &latch)
        case let .dataGap(window):
            return dataGaps(rule, patient, samples, window: window, end: end)
        case let .news2(score, scale2, rearm):
            news2(samples, score: score, scale2: scale2, rearm: rearm, &latch)
        case let .symptomReport(signals):
            symptomReports(samples, signals, &latch)
        case let .symptomEscalation(signals, window):
            symptomEscalations(samples, signals, window: window, &latch)
        }
        return latch.raised
    }

    /// Least-squares line over the samples of `[until − window, until]`: slope per minute, its value
    /// at `until`, and how far back its earliest sample lies (ms).
    static func fit(
        _ history: [(time: Int64, value: Double, id: String)],
        until: Int64,
        window: Int64
    ) -> (slope: Double, valueAtEnd: Double, span: Int64)? {
        var pts: [(x: Double, y: Double)] = []
        var earliest = until
        for h in history.reversed() {
            guard h.time >= until - window else { break }
            guard h.time <= until else { continue }
            pts.append((Double(h.time - until) / Double(minute), h.value))
            earliest = min(earliest, h.time)
        }
        guard pts.count >= 3 else { return nil }
        let mx = pts.reduce(0) { $0 + $1.x } / Double(pts.count)
        let my = pts.reduce(0) { $0 + $1.y } / Double(pts.count)
        let sxx = pts.reduce(0) { $0 + ($1.x - mx) * ($1.x - mx) }
        let sxy = pts.reduce(0) { $0 + ($1.x - mx) * ($1.y - my) }
        guard sxx > 0 else { return nil }
        return (sxy / sxx, my - sxy / sxx * mx, until - earliest)
    }

    /// Data gaps per device, in the order its readings leave it (a backfill after a reconnection arrives
    /// too late to fill the gap it closes): once at least five readings with a median interval of at most
    /// a third of the window have arrived, nothing more arriving until after the latest device time
    /// received + window raises at that time + window; a reading after that latest time re-arms it
    /// (one gap is one alert: late readings from before it, a backfill, do not raise it again).
    static func dataGaps(
        _ rule: OracleWindowedRule,
        _ patient: String,
        _ samples: [Sample],
        window: Int64,
        end: Int64
    ) -> [OracleAlert] {
        var out: [OracleAlert] = []
        var byDevice: [String: [Sample]] = [:]
        for s in samples { byDevice[s.device, default: []].append(s) }
        for device in byDevice.keys.sorted() {
            let list = byDevice[device]!.enumerated().sorted {
                ($0.element.emit, $0.offset) < ($1.element.emit, $1.offset)
            }.map(\.element)
            var intervals: [Int64] = []
            var latest = Int64.min
            var raisedFor: Int64?
            for (i, s) in list.enumerated() {
                if latest != .min, s.time > latest { intervals.append(s.time - latest) }
                latest = max(latest, s.time)
                let next = i + 1 < list.count ? list[i + 1].emit : end
                guard i >= 4, !intervals.isEmpty, raisedFor != latest, next > max(s.emit, latest + window) else {
                    continue
                }
                let sorted = intervals.sorted()
                guard sorted[sorted.count / 2] * 3 <= window else {
                    continue
                }
                raisedFor = latest
                out.append(
                    OracleAlert(
                        patientID: patient,
                        rule: rule.id,
                        severity: rule.severity,
                        raisedAt: latest + window,
                        evidence: s.id
                    )
                )
            }
        }
        return out
    }

    /// Raise once while a condition holds; re-arm when it is evaluated and does not.
    struct Latch {
        let rule: OracleWindowedRule
        let patient: String
        var active = false
        var raised: [OracleAlert] = []

        /// Raises whatever the latch's state (a rule of events rather than levels).
        mutating func raise(at time: Int64, evidence: String) {
            raised.append(
                OracleAlert(
                    patientID: patient,
                    rule: rule.id,
                    severity: rule.severity,
                    raisedAt: time,
                    evidence: evidence
                )
            )
        }

        /// Raises on `holds` while armed; re-arms when it no longer holds and `rearmed` (beyond a margin).
        mutating func update(_ holds: Bool, rearmed: Bool = true, at time: Int64, evidence: String) {
            guard holds else {
                if rearmed { active = false }
                return
            }
            guard !active else { return }
            active = true
            raised.append(
                OracleAlert(
                    patientID: patient,
                    rule: rule.id,
                    severity: rule.severity,
                    raisedAt: time,
                    evidence: evidence
                )
            )
        }
    }
}
