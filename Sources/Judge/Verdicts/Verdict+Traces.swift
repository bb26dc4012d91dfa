import RunRecord
import Traffic

extension Verdict {
    /// The trace ids of the requests that carried each alert's evidence readings, by alert id: where
    /// a team finds, in its own tracing system, the readings an alert says it came from. An alert
    /// whose evidence names none of the plan's readings has the trace of the request `found` names
    /// for it (by its time, ``RunObservation/alertRequests``), if any.
    package static func alertTraces(
        _ alerts: [ObservedAlert],
        plan: [SentRequest],
        trace: RequestTrace?,
        found requests: [String: Int] = [:]
    ) -> [String: [String]] {
        guard let trace, !alerts.isEmpty else { return [:] }
        let wanted = Set(alerts.flatMap(\.evidence))
        // Each wanted reading's request: whole ids, and `PREFIX/SEQ` ids by their prefix's runs.
        var byPrefix: [Substring: [(seq: UInt32, id: String)]] = [:]
        for id in wanted {
            if let r = SentOutcome.run(id), r.count == 1 { byPrefix[r.prefix, default: []].append((r.first, id)) }
        }
        var found: [String: String] = [:]
        for request in plan {
            for other in request.others where wanted.contains(other) { found[other] = trace.traceID(of: request) }
            for run in request.runs {
                for reading in byPrefix[run.prefix] ?? []
                where reading.seq >= run.first && reading.seq - run.first < run.count {
                    found[reading.id] = trace.traceID(of: request)
                }
            }
        }
        var out: [String: [String]] = [:]
        for alert in alerts {
            let ids = Set(alert.evidence.compactMap { found[$0] }).sorted()
            if !ids.isEmpty {
                out[alert.alertID] = ids
            } else if let carrier = requests[alert.alertID], plan.indices.contains(carrier) {
                out[alert.alertID] = [trace.traceID(of: plan[carrier])]
            }
        }
        return out
    }
}
