import VitalSimCore

/// The reference SUT's alert engine: applies each patient's profile rules to observations in device
/// time, with persistence windows, hysteresis re-arming and de-duplication (one active alert per
/// rule and patient, or per device for data gaps). Duplicate reading ids are ignored.
package final class AlertEngine {
    package let rules: [AlertRule]
    /// Profiles given at start; enrolment overrides them, forgetting a patient restores them.
    let configured: [String: Profile]
    var profiles: [String: Profile]
    /// Patients' own limits given at start; enrolment overrides them, forgetting restores them.
    let configuredLimits: [String: [ThresholdOverride]]
    var limits: [String: [ThresholdOverride]]
    var patients: [String: PatientAlertState] = [:]
    /// Times each patient has been forgotten: its later alerts get ids of their own.
    var generations: [String: Int] = [:]
    /// Longest history any rule needs (3-day weight change plus tolerance).
    let horizon: Int64 = 4 * 86_400_000
    /// Shortest data-gap window of any rule (nil without data-gap rules).
    let shortestGap: Int64?

    /// - Parameters:
    ///   - rules: the rule set (``RuleSetLoader/defaultRules()`` by default).
    ///   - profiles: each patient's profile; patients not listed are `adult`.
    ///   - limits: patients' own limits (``ThresholdOverride``), by patient.
    package init(rules: [AlertRule], profiles: [String: Profile], limits: [String: [ThresholdOverride]] = [:]) {
        self.rules = rules
        configured = profiles
        self.profiles = profiles
        configuredLimits = limits
        self.limits = limits
        shortestGap = rules.compactMap { if case let .dataGap(w) = $0.kind { w } else { nil } }.min()
    }

    func state(_ patient: String) -> PatientAlertState {
        if let alertState = patients[patient] { return alertState }
        let own = limits[patient] ?? []
        let alertState = PatientAlertState(
            patientID: patient,
            profile: profiles[patient] ?? .adult,
            limits: own,
            rules: own.isEmpty ? rules : rules.map { $0.personalized(own) },
            generation: generations[patient] ?? 0
        )
        patients[patient] = alertState
        return alertState
    }

    /// The profile `patient` is judged by.
    package func profile(of patient: String) -> Profile { profiles[patient] ?? .adult }

    /// The readings of `patient` judged under its current profile.
    package func readingCount(of patient: String) -> Int { patients[patient]?.seen.count ?? 0 }

    /// The patient's own limits (empty: the rules' values).
    package func limits(of patient: String) -> [ThresholdOverride] { limits[patient] ?? [] }

    /// Enrols `patient` with `profile` and its own `limits`; a patient already judged under another
    /// profile or other limits starts afresh.
    package func enrol(_ patient: String, profile: Profile, limits: [ThresholdOverride] = []) {
        profiles[patient] = profile
        self.limits[patient] = limits.isEmpty ? nil : limits
        if let alertState = patients[patient],
            alertState.profile != profile || Self.key(alertState.limits) != Self.key(limits)
        {
            forgetState(patient)
        }
    }

    /// Limits in a comparable form, whatever their order.
    static func key(_ limits: [ThresholdOverride]) -> [String] {
        limits.map { "\($0.rule) \($0.signal) \($0.value)" }.sorted()
    }

    /// Forgets everything about `patient` (its windows, latches and enrolment).
    package func forget(_ patient: String) {
        profiles[patient] = configured[patient]
        limits[patient] = configuredLimits[patient]
        forgetState(patient)
    }

    func forgetState(_ patient: String) {
        guard patients.removeValue(forKey: patient) != nil else { return }
        generations[patient, default: 0] += 1
    }

    /// Judges one observation; returns the alerts it raises.
    package func ingest(_ observation: Observation) -> [Alert] {
        let alertState = state(observation.patientID)
        guard alertState.seen.insert(observation.readingID).inserted else { return [] }
        alertState.record(observation, horizon: horizon)
        if let gap = shortestGap, let device = alertState.devices[observation.deviceID] {
            alertState.nextGapCheck = min(alertState.nextGapCheck, device.last + gap + 1)
        }
        var raised: [Alert] = []
        for (index, rule) in alertState.rules.enumerated() where rule.profiles.contains(alertState.profile) {
            if let alert = evaluate(rule, index, observation, alertState) { raised.append(alert) }
        }
        return raised
    }

    /// Technical alarms that depend on time passing (data gaps), as of `time` (Unix ms): for
    /// `patient`'s devices, or every patient's when nil. Time passes per patient: the SUT has no
    /// clock but device time, and patients' traffic may arrive at different paces (a sparse
    /// patient's readings far ahead of a streaming one's), so one patient's readings must not age
    /// another's devices.
    package func advance(to time: Int64, patient: String? = nil) -> [Alert] {
        var raised: [Alert] = []
        for id in patient.map({ [$0] }) ?? patients.keys.sorted() {
            guard let alertState = patients[id], time >= alertState.nextGapCheck else { continue }
            var next = Int64.max
            for (index, rule) in rules.enumerated() where rule.profiles.contains(alertState.profile) {
                guard case let .dataGap(window) = rule.kind else { continue }
                for device in alertState.devices.keys.sorted() {
                    let deviceState = alertState.devices[device]!
                    let key = "\(index)/\(device)"
                    // Streaming (DeviceActivity.streams): intervals between distinct device times (entries
                    // logged at one instant are not a stream), their median at most a third of the window.
                    guard deviceState.streams(window: window), alertState.gapsRaised[key] != deviceState.last
                    else { continue }
                    guard time - deviceState.last > window else {
                        next = min(next, deviceState.last + window + 1)
                        continue
                    }
                    alertState.gapsRaised[key] = deviceState.last
                    raised.append(alertState.alert(rule, at: deviceState.last + window, evidence: [deviceState.lastID]))
                }
            }
            alertState.nextGapCheck = next
        }
        return raised
    }

    func evaluate(
        _ rule: AlertRule,
        _ index: Int,
        _ observation: Observation,
        _ patient: PatientAlertState
    ) -> Alert? {
        let key = String(index)
        switch rule.kind {
        case let .threshold(conditions, matchAll):
            return threshold(rule, key, conditions, matchAll: matchAll, observation, patient)
        case .change, .rate, .forecast:
            return trend(rule, key, observation, patient)
        case let .dailyTotalPerKg(signal, window, comparison, value):
            return dailyTotalPerKg(rule, key, signal, window: window, comparison, value, observation, patient)
        case let .fluctuation(signal, window, samples, value):
            return fluctuation(
                rule,
                key,
                signal,
                window: window,
                samples: samples,
                value: value,
                observation,
                patient
            )
        case let .irregularRhythm(beats, pnn50, normalized):
            return irregularRhythm(
                rule,
                key,
                beats: beats,
                pnn50: pnn50,
                normalizedRMSSD: normalized,
                observation,
                patient
            )
        case let .news2(score, singleParameter, scale2):
            guard let news2Score = NEWS2.score(latest: patient, at: observation.time, scale2: scale2) else {
                return nil
            }
            let holds = singleParameter ? news2Score.maxSingle >= 3 : news2Score.total >= score
            // Re-armed only once the score is `rearm` points below the threshold: a noisy reading
            // moving the aggregate by a point does not raise the same alert again.
            let value = Double(singleParameter ? news2Score.maxSingle : news2Score.total)
            let rearmed = value < Double(singleParameter ? 3 : score) - rule.rearmMargin
            return patient.latch(
                key,
                rule,
                holds: holds,
                rearmed: rearmed,
                at: observation.time,
                evidence: news2Score.ids
            )
        case .dataGap:
            // Ended by a reading after the gap's last device time (``PatientAlertState/gapsRaised``),
            // which ``advance(to:patient:)`` sees; a late reading from before it changes nothing.
            return nil
        case let .report(conditions):
            let holds = conditions.contains { c in
                observation.values[c.signal].map { c.comparison.holds($0, c.value) } ?? false
            }
            return holds ? patient.alert(rule, at: observation.time, evidence: [observation.readingID]) : nil
        case let .escalation(signals, window):
            return escalation(rule, signals, window: window, observation, patient)
        }
    }

    /// A rule on a signal's course: its change over a window, its least-squares rate, or where that
    /// rate leads within a horizon.
    func trend(_ rule: AlertRule, _ key: String, _ observation: Observation, _ patient: PatientAlertState) -> Alert? {
        switch rule.kind {
        case let .change(signal, window, tolerance, comparison, value):
            guard let current = observation.values[signal],
                let earlier = patient.closest(signal, to: observation.time - window, tolerance: tolerance)
            else { return nil }
            // Rounded to 1e-6 so that a change of exactly the threshold (30 g = 0.030 kg) is not a binary-float
            // artefact.
            let delta = ((current - earlier.value) * 1e6).rounded() / 1e6
            return patient.latch(
                key,
                rule,
                holds: comparison.holds(delta, value),
                at: observation.time,
                evidence: [earlier.id, observation.readingID]
            )
        case let .rate(signal, maxGap, comparison, value):
            // The trend of the last `maxGap` (Dexcom: over the last 15–20 min), so its readings span it,
            // within a minute: a stream's first three 5-minute readings are only 10 minutes.
            guard observation.values[signal] != nil,
                let fit = patient.trend(signal, until: observation.time, lookback: maxGap),
                fit.span >= maxGap - 60_000
            else { return nil }
            let slope = (fit.slopePerMinute * 1e6).rounded() / 1e6
            return patient.latch(
                key,
                rule,
                holds: comparison.holds(slope, value),
                at: observation.time,
                evidence: fit.ids
            )
        case let .forecast(signal, lookback, horizon, comparison, value):
            guard let now = observation.values[signal],
                let fit = patient.trend(signal, until: observation.time, lookback: lookback)
            else {
                return nil
            }
            let predicted = fit.valueAtEnd + fit.slopePerMinute * Double(horizon) / 60_000
            let holds = !comparison.holds(now, value) && comparison.holds(predicted, value)
            return patient.latch(key, rule, holds: holds, at: observation.time, evidence: fit.ids)
        default:
            return nil
        }
    }
}

/// A run of readings meeting a threshold rule's condition.
struct Episode {
    var start: Int64
    var ids: [String]
}

/// One stored sample.
struct Sample {
    var time: Int64
    var value: Double
    var id: String
}

extension Array where Element == Sample {
    /// Inserts in time order and forgets samples older than `horizon` before the newest one. The
    /// forgetting is batched (once the oldest is `horizon / 8` past it) so that a long stream costs
    /// O(1) per sample; every rule reads a window well inside the horizon, so the batching is invisible.
    mutating func add(_ sample: Sample, horizon: Int64) {
        if let last, last.time > sample.time {
            insert(sample, at: firstIndex { $0.time > sample.time } ?? count)
        } else {
            append(sample)
        }
        let cutoff = sample.time - horizon
        guard let first, first.time < cutoff - horizon / 8 else { return }
        var lo = 0
        var hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if self[mid].time < cutoff { lo = mid + 1 } else { hi = mid }
        }
        removeFirst(lo)
    }
}

/// Per-patient state of the engine.
final class PatientAlertState {
    let patientID: String
    let profile: Profile
    /// The patient's own limits, replacing its threshold rules' values.
    let limits: [ThresholdOverride]
    /// The engine's rules with those limits in place (same order, so indices name the same rule).
    let rules: [AlertRule]
    var seen: Set<String> = []
    var history: [Signal: [Sample]] = [:]
    var rr: [Double] = [], rrIDs: [String] = []
    var episodes: [String: Episode] = [:]
    var active: Set<String> = []
    var devices: [String: DeviceActivity] = [:]
    /// Per data-gap rule and device (`index/device`), the latest device time of the gap last
    /// raised: one gap is one alert, however many late readings (device times within what came
    /// before it) arrive after it; only a reading after that time ends it.
    var gapsRaised: [String: Int64] = [:]
    /// Per device and signal, the readings of the signals a fluctuation rule with a limit judges
    /// (kept only for a patient with such a limit).
    var deviceSeries: [String: [Sample]] = [:]
    let fluctuationSignals: Set<Signal>
    var counter = 0
    /// None of the patient's devices can be overdue before this time (Unix ms), so `advance` need
    /// not look earlier.
    var nextGapCheck: Int64 = .min
    /// Alert ids are `PATIENT-RULE-N`, or `PATIENT-RULE-G.N` once the patient has been forgotten G times.
    let generation: Int

    init(patientID: String, profile: Profile, limits: [ThresholdOverride], rules: [AlertRule], generation: Int) {
        self.patientID = patientID
        self.profile = profile
        self.limits = limits
        self.rules = rules
        self.generation = generation
        fluctuationSignals = Set(
            rules.compactMap {
                if case let .fluctuation(signal, _, _, _?) = $0.kind, $0.profiles.contains(profile) {
                    signal
                } else {
                    nil
                }
            }
        )
    }

    static func seriesKey(_ device: String, _ signal: Signal) -> String { device + "/" + signal.rawValue }

    func record(_ observation: Observation, horizon: Int64) {
        for signal in Signal.allCases {
            guard let value = observation.values[signal] else { continue }
            history[signal, default: []].add(
                Sample(time: observation.time, value: value, id: observation.readingID),
                horizon: horizon
            )
            if fluctuationSignals.contains(signal) {
                deviceSeries[Self.seriesKey(observation.deviceID, signal), default: []].add(
                    Sample(time: observation.time, value: value, id: observation.readingID),
                    horizon: horizon
                )
            }
        }
        if !observation.rrIntervals.isEmpty {
            rr += observation.rrIntervals
            rrIDs.append(observation.readingID)
            if rr.count > 1024 { rr.removeFirst(rr.count - 1024) }
            if rrIDs.count > 64 { rrIDs.removeFirst(rrIDs.count - 64) }
        }
        devices[observation.deviceID, default: DeviceActivity(last: observation.time, lastID: observation.readingID)]
            .record(
                time: observation.time,
                id: observation.readingID
            )
    }

    func latest(_ signal: Signal) -> Sample? { history[signal]?.last }

    /// The sample nearest to `time` within `tolerance`.
    func closest(_ signal: Signal, to time: Int64, tolerance: Int64) -> Sample? {
        history[signal]?.filter { abs($0.time - time) <= tolerance }.min { abs($0.time - time) < abs($1.time - time) }
    }

    /// Least-squares slope (units/min) over samples in (until − lookback, until]; needs three samples.
    func trend(
        _ signal: Signal,
        until: Int64,
        lookback: Int64
    ) -> (slopePerMinute: Double, valueAtEnd: Double, ids: [String], span: Int64)? {
        let pts = (history[signal] ?? []).filter { $0.time > until - lookback - 1000 && $0.time <= until }
        guard pts.count >= 3 else { return nil }
        let xs = pts.map { Double($0.time - until) / 60_000 }
        let ys = pts.map(\.value)
        let mx = xs.reduce(0, +) / Double(xs.count)
        let my = ys.reduce(0, +) / Double(ys.count)
        var sxy = 0.0
        var sxx = 0.0
        for i in xs.indices {
            sxy += (xs[i] - mx) * (ys[i] - my)
            sxx += (xs[i] - mx) * (xs[i] - mx)
        }
        guard sxx > 0 else { return nil }
        let slope = sxy / sxx
        return (slope, my + slope * (0 - mx), pts.map(\.id), until - (pts.map(\.time).min() ?? until))
    }

    /// Raises once while `holds`, re-arming when it stops holding.
    /// Raises when `holds` and the rule is armed; re-arms when the condition no longer holds (and,
    /// where given, `rearmed`: back beyond the rule's margin).
    func latch(
        _ key: String,
        _ rule: AlertRule,
        holds: Bool,
        rearmed: Bool = true,
        at time: Int64,
        evidence: [String]
    ) -> Alert? {
        if !holds {
            if rearmed { active.remove(key) }
            return nil
        }
        guard !active.contains(key) else { return nil }
        active.insert(key)
        return alert(rule, at: time, evidence: evidence)
    }

    func alert(_ rule: AlertRule, at time: Int64, evidence: [String]) -> Alert {
        counter += 1
        return Alert(
            alertID: generation == 0
                ? "\(patientID)-\(rule.id)-\(counter)" : "\(patientID)-\(rule.id)-\(generation).\(counter)",
            patientID: patientID,
            rule: rule.id,
            severity: rule.severity,
            raisedAt: time,
            evidence: evidence
        )
    }
}
