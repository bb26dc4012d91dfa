import Histogram
import Traffic
import VitalSimCore

extension GoldenFile {
    /// A golden file recorded from what a SUT did (`vitalsim record`): every alert it raised with the
    /// default tolerances, every 4xx it answered, default budgets; and warnings for a reviewer where the
    /// SUT departed from a conforming one (a deliberately corrupted payload it accepted, a rejection naming
    /// an unexpected field, a request with no final answer) or where the oracle disagrees.
    package static func recorded(
        scenario: String,
        seed: UInt64,
        digest: String,
        plan: [SentRequest],
        result: LiveRunResult,
        oracle derived: [OracleAlert]
    ) -> (GoldenFile, warnings: [String]) {
        var warnings: [String] = []
        var goldenFile = GoldenFile(
            scenario: scenario,
            seed: seed,
            trafficDigest: digest,
            earlyTolerance: defaultEarly,
            lateTolerance: defaultLate,
            alerts: [],
            validation: [],
            budgets: []
        )
        for a in result.alerts {
            guard let severity = Severity(rawValue: a.severity) else {
                warnings.append(
                    "alert \(a.alertID) (\(a.rule), patient \(a.patientID)) has severity '\(a.severity)', not low, medium or high; not recorded"
                )
                continue
            }
            goldenFile.alerts.append(
                ExpectedAlert(
                    patientID: a.patientID,
                    rule: a.rule,
                    severity: severity,
                    from: a.raisedAt - goldenFile.earlyTolerance,
                    to: a.raisedAt + goldenFile.lateTolerance
                )
            )
        }
        for (i, request) in plan.enumerated() {
            let o = result.outcomes[i]
            let id = request.firstReading ?? ""
            if let s = o.status, s >= 400, s < 500 {
                goldenFile.validation.append(ExpectedValidation(reading: id, status: s, field: o.field ?? ""))
            }
            if let e = request.expectedRejection, o.status != e.status || (o.field ?? "") != e.field {
                let answered = o.status.map(String.init) ?? "nothing"
                warnings.append(
                    "\(id): a conforming SUT answers \(e.status) naming '\(e.field)'; this one answered \(answered) naming '\(o.field ?? "")'"
                )
            }
            if o.status == nil || (o.status ?? 0) >= 500 {
                warnings.append("\(id): no final answer (\(o.error ?? "status \(o.status ?? 0)")); not recorded")
            }
        }
        if let m = result.mqtt {
            let check = Verdict.mqttDeliveryCheck(m)
            if check.finding != nil { warnings.append("MQTT delivery: \(check.detail)") }
        }
        for c in Oracle.compare(derived, goldenFile) { warnings.append("the oracle (vitalsim expect) disagrees: \(c)") }
        goldenFile.budgets.append(Budget(path: .readingToAck, limits: [(99, 1000), (100, 5000)]))
        if result.alertLatency.totalCount > 0 {
            // Seed 000's real-time updates under 2 s, as a maximum (requirement alerts.latency).
            goldenFile.budgets.append(Budget(path: .readingToAlert, limits: [(99, 1000), (100, 2000)]))
        }
        return (goldenFile, warnings)
    }
}
