import VitalSimCore

/// Each kind of windowed rule, evaluated on every reading of its signal in device-time order.
extension Oracle {
    static func rate(
        _ samples: [Sample],
        _ signal: Signal,
        window: Int64,
        _ comparison: Comparison,
        _ value: Double,
        _ latch: inout Latch
    ) {
        var history: [(time: Int64, value: Double, id: String)] = []
        for s in samples {
            guard let v = s.values[signal] else { continue }
            history.append((s.time, v, s.id))
            // The trend of the last `window` (Dexcom: over the last 15–20 min), so its readings span
            // it, within a minute: a stream's first three 5-minute readings are only 10 minutes.
            guard let fit = fit(history, until: s.time, window: window), fit.span >= window - minute else { continue }
            latch.update(
                OracleWindowedRule.holds(OracleWindowedRule.micro(fit.slope), comparison, value),
                at: s.time,
                evidence: s.id
            )
        }
    }

    static func forecast(
        _ samples: [Sample],
        _ signal: Signal,
        lookback: Int64,
        horizon: Int64,
        _ comparison: Comparison,
        _ value: Double,
        _ latch: inout Latch
    ) {
        var history: [(time: Int64, value: Double, id: String)] = []
        for s in samples {
            guard let v = s.values[signal] else { continue }
            history.append((s.time, v, s.id))
            guard let fit = fit(history, until: s.time, window: lookback) else { continue }
            let predicted = fit.valueAtEnd + fit.slope * Double(horizon) / Double(minute)
            latch.update(
                !OracleWindowedRule.holds(v, comparison, value)
                    && OracleWindowedRule.holds(predicted, comparison, value),
                at: s.time,
                evidence: s.id
            )
        }
    }

    static func change(
        _ samples: [Sample],
        _ signal: Signal,
        window: Int64,
        tolerance: Int64,
        _ comparison: Comparison,
        _ value: Double,
        _ latch: inout Latch
    ) {
        var history: [(time: Int64, value: Double)] = []
        for s in samples {
            guard let v = s.values[signal] else { continue }
            let target = s.time - window
            let earlier = history.filter { abs($0.time - target) <= tolerance }.min {
                abs($0.time - target) < abs($1.time - target)
            }
            history.append((s.time, v))
            guard let earlier else { continue }
            latch.update(
                OracleWindowedRule.holds(OracleWindowedRule.micro(v - earlier.value), comparison, value),
                at: s.time,
                evidence: s.id
            )
        }
    }

    static func dailyTotalPerKg(
        _ samples: [Sample],
        _ signal: Signal,
        window: Int64,
        _ comparison: Comparison,
        _ value: Double,
        _ latch: inout Latch
    ) {
        var intake: [(time: Int64, value: Double)] = []
        var weight: Double?
        var breastfeeds: [Int64] = []
        for s in samples {
            if let w = s.values[.weight] { weight = w }
            if s.values[.breastfeeding] != nil { breastfeeds.append(s.time) }
            guard let v = s.values[signal] else { continue }
            intake.append((s.time, v))
            guard let weight, let first = intake.first, first.time <= s.time - window + hour else { continue }
            // A breastfed volume is unknown: a window with a breastfeed cannot be judged.
            if breastfeeds.contains(where: { $0 > s.time - window && $0 <= s.time }) { continue }
            let total = intake.filter { $0.time > s.time - window }.reduce(0) { $0 + $1.value }
            latch.update(
                OracleWindowedRule.holds(OracleWindowedRule.micro(total / weight), comparison, value),
                at: s.time,
                evidence: s.id
            )
        }
    }

    static func irregularRhythm(
        _ samples: [Sample],
        beats: Int,
        pnn50: Double,
        normalizedRMSSD: Double,
        _ latch: inout Latch
    ) {
        var rr: [Double] = []
        for s in samples where !s.rr.isEmpty {
            rr += s.rr
            if rr.count > 4 * beats { rr.removeFirst(rr.count - beats) }
            guard rr.count >= beats else { continue }
            let last = rr.suffix(beats)
            let mean = last.reduce(0, +) / Double(beats)
            let diffs = zip(last.dropFirst(), last).map { $0 - $1 }
            let rmssd = (diffs.reduce(0) { $0 + $1 * $1 } / Double(diffs.count)).squareRoot()
            let over = 100 * Double(diffs.filter { abs($0) > 50 }.count) / Double(diffs.count)
            latch.update(over > pnn50 && rmssd / mean > normalizedRMSSD, at: s.time, evidence: s.id)
        }
    }

    /// NEWS2 total from each parameter's latest value of the last hour, on readings of a NEWS2 parameter.
    static func news2(_ samples: [Sample], score: Int, scale2: Bool, rearm: Int, _ latch: inout Latch) {
        var latest: [Signal: (time: Int64, value: Double)] = [:]
        for s in samples {
            for (name, v) in s.values where NEWS2Chart.parameters.contains(name) { latest[name] = (s.time, v) }
            let fresh = NEWS2Chart.parameters.compactMap { p in
                latest[p].flatMap { s.time - $0.time <= hour ? $0.value : nil }
            }
            guard fresh.count == NEWS2Chart.parameters.count,
                s.values.keys.contains(where: NEWS2Chart.parameters.contains)
            else {
                continue
            }
            let total = NEWS2Chart.total(
                respiration: fresh[0],
                spo2: fresh[1],
                systolic: fresh[2],
                pulse: fresh[3],
                temperature: fresh[4],
                scale2: scale2
            )
            latch.update(total >= score, rearmed: total < score - rearm, at: s.time, evidence: s.id)
        }
    }
}

extension Oracle {
    /// `hr.fluctuation` with the patient's own `limit`: per device, on each reading of `signal`, the
    /// readings of `[t − window, t]` (device-time order), at least `samples` with a median interval
    /// of at least a minute; their successive absolute differences' median at least `limit` raises,
    /// below `limit − rearm` re-arms.
    static func fluctuation(
        _ rule: OracleWindowedRule,
        _ patient: String,
        _ samples: [Sample],
        _ signal: Signal,
        window: Int64,
        samples count: Int,
        limit: Double,
        rearm: Double
    ) -> [OracleAlert] {
        var byDevice: [String: [(time: Int64, value: Double, id: String)]] = [:]
        var order: [String] = []
        for s in samples {
            guard let value = s.values[signal] else { continue }
            if byDevice[s.device] == nil { order.append(s.device) }
            byDevice[s.device, default: []].append((s.time, value, s.id))
        }
        var out: [OracleAlert] = []
        for device in order {
            var latch = Latch(rule: rule, patient: patient)
            let list = byDevice[device]!
            var first = 0
            for (i, r) in list.enumerated() {
                while list[first].time < r.time - window { first += 1 }
                let w = list[first...i]
                guard w.count >= count else { continue }
                let pairs = zip(w, w.dropFirst())
                guard Math.median(pairs.map { Double($1.time - $0.time) }) >= Double(minute) else { continue }
                let spread = OracleWindowedRule.micro(Math.median(pairs.map { abs($1.value - $0.value) }))
                latch.update(spread >= limit, rearmed: spread < limit - rearm, at: r.time, evidence: r.id)
            }
            out += latch.raised
        }
        return out.sorted { $0.raisedAt < $1.raisedAt }
    }
}
