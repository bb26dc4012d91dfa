import VitalSimCore

/// The symptom rules: reports are events, so each qualifying report raises on its own.
extension Oracle {
    static func symptomReports(_ samples: [Sample], _ signals: [Signal], _ latch: inout Latch) {
        for s in samples where signals.contains(where: { (s.values[$0] ?? 0) >= 1 }) {
            latch.raise(at: s.time, evidence: s.id)
        }
    }

    static func symptomEscalations(_ samples: [Sample], _ signals: [Signal], window: Int64, _ latch: inout Latch) {
        var last: [Signal: (time: Int64, severity: Double)] = [:]
        for s in samples {
            for signal in signals {
                guard let severity = s.values[signal] else { continue }
                if let previous = last[signal], previous.time < s.time, previous.time >= s.time - window, severity > previous.severity {
                    latch.raise(at: s.time, evidence: s.id)
                }
                last[signal] = (s.time, severity)
            }
        }
    }
}
