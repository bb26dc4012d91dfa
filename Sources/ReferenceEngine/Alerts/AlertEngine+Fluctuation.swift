import VitalSimCore

extension AlertEngine {
    /// Sparse samples swinging (`hr.fluctuation`): over one device's readings of `signal` in
    /// `[t − window, t]` — at least `samples` of them, a median interval of at least a minute (a
    /// stream is judged by its RR intervals instead) — the median absolute difference of successive
    /// readings is at least `value`. Re-arms once it is below `value` less the rule's margin.
    /// Without a value (no patient's own limit) the rule is off.
    func fluctuation(
        _ rule: AlertRule,
        _ ruleKey: String,
        _ signal: Signal,
        window: Int64,
        samples: Int,
        value: Double?,
        _ observation: Observation,
        _ patient: PatientAlertState
    ) -> Alert? {
        guard let value, observation.values[signal] != nil,
            let series = patient.deviceSeries[PatientAlertState.seriesKey(observation.deviceID, signal)]
        else {
            return nil
        }
        // The series is in time order: read back from its end, not through the whole horizon.
        var inWindow: [Sample] = []
        for sample in series.reversed() {
            guard sample.time >= observation.time - window else { break }
            if sample.time <= observation.time { inWindow.append(sample) }
        }
        inWindow.reverse()
        guard inWindow.count >= samples else { return nil }
        let pairs = zip(inWindow, inWindow.dropFirst())
        guard Math.median(pairs.map { Double($1.time - $0.time) }) >= 60_000 else { return nil }
        let spread = (Math.median(pairs.map { abs($1.value - $0.value) }) * 1e6).rounded() / 1e6
        return patient.latch(
            ruleKey + "/" + observation.deviceID,
            rule,
            holds: spread >= value,
            rearmed: spread < value - rule.rearmMargin,
            at: observation.time,
            evidence: Array(inWindow.map(\.id).suffix(20))
        )
    }
}
