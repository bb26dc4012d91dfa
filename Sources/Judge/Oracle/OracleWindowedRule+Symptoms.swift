import VitalSimCore

/// The symptom rules: reports are events, so each qualifying report raises on its own.
extension Oracle {
    static func symptomReports(_ samples: [Sample], _ signals: [Signal], _ latch: inout Latch) {
        for s in samples where signals.contains(where: { (s.values[$0] ?? 0) >= 1 }) {
            latch.raise(at: s.time, evidence: s.id)
        }
    }

    /// Reports are judged in the order they arrive (a SUT cannot judge a report before it has it),
    /// each against the latest report of the same symptom with an earlier onset among those that
    /// arrived before it, within `window`.
    static func symptomEscalations(_ samples: [Sample], _ signals: [Signal], window: Int64, _ latch: inout Latch) {
        var received: [Signal: [(time: Int64, severity: Double)]] = [:]
        let arrival = samples.enumerated().sorted { ($0.element.emit, $0.offset) < ($1.element.emit, $1.offset) }.map(
            \.element
        )
        for s in arrival {
            for signal in signals {
                guard let severity = s.values[signal] else { continue }
                let earlier = received[signal, default: []].filter { $0.time < s.time && $0.time >= s.time - window }
                if let previous = earlier.max(by: { $0.time < $1.time }), severity > previous.severity {
                    latch.raise(at: s.time, evidence: s.id)
                }
                received[signal, default: []].append((s.time, severity))
            }
        }
    }
}
