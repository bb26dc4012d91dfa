import VitalSimCore

/// The reference SUT's state behind one actor: observations (idempotent by reading id), the alert
/// engine, and the alerts raised. In memory for now: the SQLite/PostgreSQL storage of issue 3 is
/// not built yet, so a restart loses everything.
public actor ReferenceStore {
    let engine: AlertEngine
    public private(set) var alerts: [Alert] = []
    public private(set) var accepted = 0
    public private(set) var duplicates = 0
    var seen: Set<String> = []
    var summaries: [String: (steps: Int64, calories: Int64)] = [:]

    public init(rules: [AlertRule], profiles: [String: Profile]) { engine = AlertEngine(rules: rules, profiles: profiles) }

    /// Stores and judges an observation; returns false for a duplicate (acknowledged, not counted twice).
    @discardableResult
    public func ingest(_ o: Observation) -> Bool {
        guard seen.insert(o.readingID).inserted else { duplicates += 1; return false }
        accepted += 1
        alerts += engine.advance(to: o.time)
        alerts += engine.ingest(o)
        return true
    }

    /// Stores a VitalEdge daily summary (no alert rule uses steps or calories).
    @discardableResult
    public func ingestSummary(patientID: String, time: Int64, steps: Int64, calories: Int64) -> Bool {
        let key = "\(patientID)/healthkit/\(time)"
        guard seen.insert(key).inserted else { duplicates += 1; return false }
        accepted += 1
        summaries[key] = (steps, calories)
        return true
    }

    /// Alerts of a patient (or all), raised at or after `since` (Unix ms).
    public func alerts(patient: String?, since: Int64?) -> [Alert] {
        alerts.filter { (patient == nil || $0.patientID == patient) && $0.raisedAt >= (since ?? .min) }
    }
}
