import VitalSimCore

/// The rule kinds that need more than a latch on one computed value.
extension AlertEngine {
    /// Raises after the condition held for the rule's persistence; re-arms once every relevant
    /// value is back beyond the threshold by the rule's margin.
    func threshold(
        _ rule: AlertRule,
        _ ruleKey: String,
        _ conditions: [Condition],
        matchAll: Bool,
        _ observation: Observation,
        _ patient: PatientAlertState
    ) -> Alert? {
        var key = ruleKey
        let relevant = conditions.filter { observation.values[$0.signal] != nil }
        guard !relevant.isEmpty else { return nil }
        // A device's own state (its battery) is judged per device: one device's full battery
        // must not re-arm another's low-battery alert.
        if conditions.allSatisfy(\.signal.isDeviceProperty) { key += "/" + observation.deviceID }
        let results = relevant.map { $0.comparison.holds(observation.values[$0.signal]!, $0.value) }
        let holds =
            matchAll ? (relevant.count == conditions.count && results.allSatisfy { $0 }) : results.contains(true)
        guard holds else {
            patient.episodes[key] = nil
            let rearmed = relevant.allSatisfy {
                !$0.comparison.holds(
                    observation.values[$0.signal]!,
                    $0.comparison.rearmThreshold($0.value, margin: rule.rearmMargin)
                )
            }
            if rearmed { patient.active.remove(key) }
            return nil
        }
        var episode = patient.episodes[key] ?? Episode(start: observation.time, ids: [])
        episode.ids.append(observation.readingID)
        if episode.ids.count > 40 { episode.ids.removeFirst(20) }
        patient.episodes[key] = episode
        guard !patient.active.contains(key), observation.time - episode.start >= rule.persistence else {
            return nil
        }
        patient.active.insert(key)
        return patient.alert(rule, at: observation.time, evidence: Array(episode.ids.suffix(20)))
    }

    /// The total of a signal over the window per kilogram of the latest weight (infant feeds).
    func dailyTotalPerKg(
        _ rule: AlertRule,
        _ key: String,
        _ signal: Signal,
        window: Int64,
        _ comparison: Comparison,
        _ value: Double,
        _ observation: Observation,
        _ patient: PatientAlertState
    ) -> Alert? {
        guard observation.values[signal] != nil, let weight = patient.latest(.weight),
            let series = patient.history[signal],
            series.contains(where: {
                $0.time >= observation.time - horizon && $0.time <= observation.time - window + window / 24
            })
        else { return nil }
        // Breastfed volumes are unknown (no test weighing): a day with a breastfeed is not judged.
        if patient.history[.breastfeeding]?.contains(where: {
            $0.time > observation.time - window && $0.time <= observation.time
        }) == true {
            return nil
        }
        let inWindow = series.filter { $0.time > observation.time - window && $0.time <= observation.time }
        let perKg = (inWindow.reduce(0) { $0 + $1.value } / weight.value * 1e6).rounded() / 1e6
        let evidence = Array(inWindow.map(\.id).suffix(20)) + [weight.id]
        return patient.latch(
            key,
            rule,
            holds: comparison.holds(perKg, value),
            at: observation.time,
            evidence: evidence
        )
    }

    /// A symptom reported worse than its previous report (by onset) within `window`: each such
    /// report raises its own alert.
    func escalation(
        _ rule: AlertRule,
        _ signals: [Signal],
        window: Int64,
        _ observation: Observation,
        _ patient: PatientAlertState
    ) -> Alert? {
        for signal in signals {
            guard let value = observation.values[signal],
                let previous = patient.history[signal]?.last(where: {
                    $0.time < observation.time && $0.time >= observation.time - window
                }),
                value > previous.value
            else { continue }
            return patient.alert(rule, at: observation.time, evidence: [previous.id, observation.readingID])
        }
        return nil
    }

    /// pNN50 and normalised RMSSD over the last `beats` RR intervals.
    func irregularRhythm(
        _ rule: AlertRule,
        _ key: String,
        beats: Int,
        pnn50: Double,
        normalizedRMSSD: Double,
        _ observation: Observation,
        _ patient: PatientAlertState
    ) -> Alert? {
        guard !observation.rrIntervals.isEmpty, patient.rr.count >= beats else { return nil }
        let rr = Array(patient.rr.suffix(beats)).map { $0 * 1000 }
        let mean = rr.reduce(0, +) / Double(rr.count)
        var sq = 0.0
        var over = 0
        for i in 1..<rr.count {
            let difference = rr[i] - rr[i - 1]
            sq += difference * difference
            if abs(difference) > 50 { over += 1 }
        }
        let rmssd = (sq / Double(rr.count - 1)).squareRoot()
        let percent = 100 * Double(over) / Double(rr.count - 1)
        let holds = percent > pnn50 && rmssd / mean > normalizedRMSSD
        return patient.latch(
            key,
            rule,
            holds: holds,
            at: observation.time,
            evidence: Array(patient.rrIDs.suffix(10))
        )
    }
}
