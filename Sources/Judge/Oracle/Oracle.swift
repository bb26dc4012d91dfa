import Traffic
import VitalSimCore

/// An alert the oracle derives: which rule must fire for which patient, and when (device time).
package struct OracleAlert: Sendable, Equatable {
    package var patientID: String
    package var rule: String
    package var severity: Severity
    /// Device time (Unix ms) of the reading that completes the condition.
    package var raisedAt: Int64
    /// The reading that completes it.
    package var evidence: String
}

/// A threshold rule as the oracle reads it from docs/clinical.md, independently of the
/// reference SUT's rule file and engine.
package struct OracleRule: Sendable {
    package var id: String
    package var profiles: Set<Profile>
    package var severity: Severity
    /// The signals it reads (any one meeting the comparison is enough).
    package var signals: [Signal]
    package var comparison: Comparison
    package var value: Double
    /// Limits of their own for some signals (blood pressure: systolic and diastolic), else ``value``.
    package var limits: [Signal: Double] = [:]
    /// The condition must hold on consecutive readings of the signal for this long (ms).
    package var persistence: Int64
    /// After raising, the rule re-arms once a reading is back inside by this margin.
    package var rearm: Double
    package var source: String

    /// The limit `signal` is compared with.
    func limit(_ signal: Signal) -> Double { limits[signal] ?? value }

    func holds(_ v: Double, _ signal: Signal) -> Bool {
        OracleWindowedRule.holds(v, comparison, limit(signal))
    }

    func rearmed(_ v: Double, _ signal: Signal) -> Bool {
        let limit = limit(signal)
        return (comparison == .less || comparison == .lessOrEqual)
            ? (rearm == 0 ? !holds(v, signal) : v >= limit + rearm)
            : (rearm == 0 ? !holds(v, signal) : v <= limit - rearm)
    }
}

/// `vitalsim expect`: derives the alerts a conforming SUT must raise from a scenario's generated
/// readings (what the devices deliver: corrupt copies and duplicates dropped, each device's
/// readings in device-time order) and the clinical thresholds of docs/clinical.md, without
/// the reference SUT. It covers the threshold rules (with persistence and re-arm) and the windowed
/// rules (``windowedRules``: rates, forecast, weight change, daily intake, rhythm, NEWS2, data gaps).
package enum Oracle {
    static let adultish: Set<Profile> = [.adult, .diabeticCGM, .copd]
    static let all = Set(Profile.allCases)

    /// The rules the oracle derives (ids shared with docs/alert-rules.md so verdicts can be compared).
    package static let rules: [OracleRule] = [
        OracleRule(
            id: "hr.tachycardia",
            profiles: adultish,
            severity: .medium,
            signals: [.heartRate],
            comparison: .greater,
            value: 100,
            persistence: 600_000,
            rearm: 5,
            source: "docs/clinical.md §4.2: HR > 100 bpm, sustained 10 min"
        ),
        OracleRule(
            id: "hr.bradycardia",
            profiles: adultish,
            severity: .medium,
            signals: [.heartRate],
            comparison: .less,
            value: 50,
            persistence: 600_000,
            rearm: 5,
            source: "docs/clinical.md §4.2: HR < 50 bpm, sustained 10 min"
        ),
        OracleRule(
            id: "bp.hypertensive-crisis",
            profiles: adultish,
            severity: .high,
            signals: [.systolic, .diastolic],
            comparison: .greater,
            value: 0,
            limits: [.systolic: 180, .diastolic: 120],
            persistence: 0,
            rearm: 5,
            source: "docs/clinical.md §4.4: systolic > 180 and/or diastolic > 120 mmHg"
        ),
        OracleRule(
            id: "bp.stage2-sustained",
            profiles: adultish,
            severity: .medium,
            signals: [.systolic, .diastolic],
            comparison: .greaterOrEqual,
            value: 0,
            limits: [.systolic: 140, .diastolic: 90],
            persistence: 3 * 86_400_000,
            rearm: 5,
            source:
                "docs/clinical.md §4.4: stage 2, systolic >= 140 or diastolic >= 90 mmHg, on every reading for 3 days (the IoT-AI SRS: a series of high readings)"
        ),
        OracleRule(
            id: "ecg.af-classified",
            profiles: adultish,
            severity: .medium,
            signals: [.ecgAF],
            comparison: .greaterOrEqual,
            value: 1,
            persistence: 0,
            rearm: 0,
            source:
                "a watch ECG classified atrial fibrillation (FDA-cleared ECG app); re-armed by one classified sinus rhythm"
        ),
        OracleRule(
            id: "temp.fever",
            profiles: all,
            severity: .medium,
            signals: [.temperature],
            comparison: .greaterOrEqual,
            value: 38.0,
            persistence: 0,
            rearm: 0.3,
            source: "docs/clinical.md §4.5: >= 38.0 °C"
        ),
        OracleRule(
            id: "spo2.low",
            profiles: [.adult, .diabeticCGM],
            severity: .high,
            signals: [.spo2],
            comparison: .less,
            value: 90,
            persistence: 60_000,
            rearm: 2,
            source: "docs/clinical.md §4.3: SpO2 < 90 % for 1 min"
        ),
        OracleRule(
            id: "spo2.below-copd-target",
            profiles: [.copd],
            severity: .high,
            signals: [.spo2],
            comparison: .less,
            value: 88,
            persistence: 60_000,
            rearm: 2,
            source: "docs/clinical.md §4.3: below the 88–92 % COPD target for 1 min"
        ),
        OracleRule(
            id: "glucose.level1-low",
            profiles: [.diabeticCGM],
            severity: .medium,
            signals: [.cgm],
            comparison: .less,
            value: 70,
            persistence: 900_000,
            rearm: 0,
            source: "docs/clinical.md §4.1: CGM < 70 mg/dL for >= 15 min"
        ),
        OracleRule(
            id: "glucose.level2-low",
            profiles: [.diabeticCGM],
            severity: .high,
            signals: [.cgm],
            comparison: .less,
            value: 54,
            persistence: 900_000,
            rearm: 0,
            source: "docs/clinical.md §4.1: CGM < 54 mg/dL for >= 15 min"
        ),
        OracleRule(
            id: "glucose.urgent-low",
            profiles: [.diabeticCGM],
            severity: .high,
            signals: [.cgm],
            comparison: .lessOrEqual,
            value: 55,
            persistence: 0,
            rearm: 5,
            source: "docs/clinical.md §2.5: at or below 55 mg/dL"
        ),
        OracleRule(
            id: "glucose.level2-high",
            profiles: [.diabeticCGM],
            severity: .medium,
            signals: [.cgm],
            comparison: .greater,
            value: 250,
            persistence: 900_000,
            rearm: 10,
            source: "docs/clinical.md §4.1: > 250 mg/dL for 15 min"
        ),
        OracleRule(
            id: "glucose.meter-level2-low",
            profiles: adultish,
            severity: .high,
            signals: [.glucose],
            comparison: .less,
            value: 54,
            persistence: 0,
            rearm: 0,
            source: "docs/clinical.md §4.1: fingerstick < 54 mg/dL"
        ),
        OracleRule(
            id: "infant.spo2-low",
            profiles: [.chdInfant],
            severity: .high,
            signals: [.spo2],
            comparison: .less,
            value: 75,
            persistence: 0,
            rearm: 0,
            source: "docs/clinical.md §5: interstage SpO2 < 75 %"
        ),
        OracleRule(
            id: "infant.spo2-high",
            profiles: [.chdInfant],
            severity: .medium,
            signals: [.spo2],
            comparison: .greater,
            value: 90,
            persistence: 0,
            rearm: 0,
            source: "docs/clinical.md §5: interstage SpO2 > 90 %"
        ),
        OracleRule(
            id: "device.low-battery",
            profiles: all,
            severity: .low,
            signals: [.battery],
            comparison: .less,
            value: 15,
            persistence: 0,
            rearm: 5,
            source: "docs/clinical.md §4.7: battery below 15 %"
        ),
    ]

    /// Every rule id the oracle derives.
    package static var derivedRuleIDs: [String] { rules.map(\.id) + windowedRules.map(\.id) }

    /// A delivered reading: device time and the moment it leaves the device (Unix ms), its values by
    /// signal (empty for readings no rule reads) and its RR intervals in ms.
    package struct Sample: Sendable {
        package var time: Int64
        package var emit: Int64
        package var values: [Signal: Double]
        package var rr: [Double]
        package var id: String
        package var device: String
        /// - Parameters: `time` device time and `emit` when it leaves the device (Unix ms); `values` by
        ///   signal name (`heart-rate`, `cgm`, `weight`, …); `rr` RR intervals in ms.
        package init(
            time: Int64,
            emit: Int64? = nil,
            values: [Signal: Double],
            rr: [Double] = [],
            id: String,
            device: String
        ) {
            self.time = time
            self.emit = emit ?? time
            self.values = values
            self.rr = rr
            self.id = id
            self.device = device
        }
    }

    /// The alerts the scenario's readings must raise, in device-time order per patient.
    package static func expect(_ scenario: Scenario, seed: UInt64? = nil) -> [OracleAlert] {
        var samples: [String: [Sample]] = [:]
        var seen: Set<String> = []
        var run = ScenarioRun(scenario: scenario, seed: seed)
        var end = Int64.min
        let start = scenario.startUnixMilliseconds
        while let (reading, _) = run.next() {
            // Intermediate cuff pressures are progress indications, not readings a SUT stores.
            guard reading.delivery.corruption == nil, reading.kind != .cuffPressure, seen.insert(reading.id).inserted
            else { continue }
            var rr: [Double] = []
            if case let .heartRate(_, intervals, _, _) = reading.measurement {
                rr = intervals.map { Double($0) * 1000 / 1024 }
            }
            samples[reading.patientID, default: []].append(
                Sample(
                    time: start + reading.deviceTime,
                    emit: start + reading.intendedEmitTime,
                    values: signals(reading.measurement) ?? [:],
                    rr: rr,
                    id: reading.id,
                    device: reading.deviceID
                )
            )
            end = max(end, start + reading.intendedEmitTime)
        }
        var out: [OracleAlert] = []
        for p in scenario.patients {
            let list = (samples[p.id] ?? []).enumerated().sorted {
                ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
            }.map(
                \.element
            )
            var mine: [OracleAlert] = []
            for rule in rules where rule.profiles.contains(p.profile) {
                mine += judge(rule, p.id, list, limits: p.thresholds)
            }
            // Time passes per patient (docs/alert-rules.md): a device's silence is seen from its own
            // patient's later readings only.
            let patientEnd = list.map(\.emit).max() ?? end
            for rule in windowedRules where rule.profiles.contains(p.profile) {
                mine += judge(rule, p.id, list, end: patientEnd, limits: p.thresholds)
            }
            out += mine.enumerated().sorted { ($0.element.raisedAt, $0.offset) < ($1.element.raisedAt, $1.offset) }.map(
                \.element
            )
        }
        return out
    }

    /// One rule over one patient's samples: persistence on consecutive readings of its signals, one
    /// alert per episode (per device for battery), re-armed by the margin. `limits` are the patient's
    /// own (a scenario's `thresholds:`): they replace the rule's value for their signal.
    package static func judge(
        _ rule: OracleRule,
        _ patient: String,
        _ samples: [Sample],
        limits: [ThresholdOverride] = []
    ) -> [OracleAlert] {
        var rule = rule
        for own in limits where own.rule == rule.id { rule.limits[own.signal] = own.value }
        var out: [OracleAlert] = []
        var armed: [String: Bool] = [:]
        var since: [String: Int64] = [:]
        for s in samples {
            let key = rule.id == "device.low-battery" ? s.device : ""
            let relevant = rule.signals.compactMap { name in s.values[name].map { (name, $0) } }
            guard !relevant.isEmpty else { continue }
            let holds = relevant.contains { rule.holds($0.1, $0.0) }
            let back = relevant.allSatisfy { rule.rearmed($0.1, $0.0) }
            if armed[key] ?? true {
                if holds {
                    let start = since[key] ?? s.time
                    since[key] = start
                    if s.time - start >= rule.persistence {
                        out.append(
                            OracleAlert(
                                patientID: patient,
                                rule: rule.id,
                                severity: rule.severity,
                                raisedAt: s.time,
                                evidence: s.id
                            )
                        )
                        armed[key] = false
                        since[key] = nil
                    }
                } else {
                    since[key] = nil
                }
            } else if back {
                armed[key] = true
            }
        }
        return out
    }

    /// An ECG's average rate, and its rhythm when the classification names one (1 AF, 0 sinus).
    static func ecgSignals(_ ecgRecording: ECGRecording) -> [Signal: Double] {
        var values: [Signal: Double] = [.ecgHeartRate: Double(ecgRecording.averageHeartRate)]
        values[.ecgAF] = ecgRecording.classification.afValue
        return values
    }

    /// The values a reading delivers, by signal name (nil for readings no derived rule looks at).
    package static func signals(_ measurement: Measurement) -> [Signal: Double]? {
        switch measurement {
        case let .heartRate(bpm, _, _, _): [.heartRate: Double(bpm)]
        case let .bloodPressure(s, d, _, _, _): [.systolic: Double(s), .diastolic: Double(d)]
        case let .spo2(percent, _, _): [.spo2: Double(percent)]
        case let .temperature(c, _): [.temperature: c]
        case let .cgm(mgdl, _, _, _, _): [.cgm: Double(mgdl)]
        case let .glucose(mgdl, _, _): [.glucose: Double(mgdl)]
        case let .battery(percent): [.battery: Double(percent)]
        case let .weight(kg): [.weight: kg]
        case let .feeding(mL): [.feeding: Double(mL)]
        case let .breastfeeding(minutes): [.breastfeeding: Double(minutes)]
        case let .respirationRate(n): [.respirationRate: Double(n)]
        case let .symptom(kind, severity): [kind.signal: Double(severity.rawValue)]
        case let .ecg(r): ecgSignals(r)
        case let .equipment(item, setting, _): [item.signal: setting]
        default: nil
        }
    }
}
