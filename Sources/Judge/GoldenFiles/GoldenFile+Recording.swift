import Histogram
import RunRecord
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
        result: RunObservation,
        oracle derived: [OracleAlert],
        scenario scenarioSpec: Scenario? = nil
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
        for a in result.alerts.observed {
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
            let outcome = result.traffic.outcomes[i]
            let id = request.firstReading ?? ""
            if let status = outcome.status, status >= 400, status < 500 {
                goldenFile.validation.append(
                    ExpectedValidation(reading: id, status: status, field: outcome.field ?? "")
                )
            }
            if let expectedRejection = request.expectedRejection,
                outcome.status != expectedRejection.status || (outcome.field ?? "") != expectedRejection.field
            {
                let answered = outcome.status.map(String.init) ?? "nothing"
                warnings.append(
                    "\(id): a conforming SUT answers \(expectedRejection.status) naming '\(expectedRejection.field)'; this one answered \(answered) naming '\(outcome.field ?? "")'"
                )
            }
            if outcome.status == nil || (outcome.status ?? 0) >= 500 {
                warnings.append(
                    "\(id): no final answer (\(outcome.error ?? "status \(outcome.status ?? 0)")); not recorded"
                )
            }
        }
        if let mqtt = result.traffic.mqtt {
            let check = IngestionArea().mqttDeliveryCheck(mqtt)
            if check.finding != nil { warnings.append("MQTT delivery: \(check.detail)") }
        }
        if let scenarioSpec {
            warnings += recordRecipients(&goldenFile, scenario: scenarioSpec, seed: seed, result: result)
        }
        for c in Oracle.compare(derived, goldenFile) { warnings.append("the oracle (vitalsim expect) disagrees: \(c)") }
        goldenFile.budgets.append(Budget(path: .readingToAck, limits: [(99, 1000), (100, 5000)]))
        if result.alerts.latency.totalCount > 0 {
            // The IoT-AI SRS's real-time updates under 2 s, as a maximum (requirement alerts.latency).
            goldenFile.budgets.append(Budget(path: .readingToAlert, limits: [(99, 1000), (100, 2000)]))
        }
        return (goldenFile, warnings)
    }
}

extension GoldenFile {
    /// Writes each recorded alert's recipients (whom the SUT notified, and how long after the
    /// alert), the escalations the care team's actions stopped and the actions themselves (both from
    /// the scenario: ``RecipientOracle``), for the alerts whose patient has steps for their
    /// severity; returns warnings where the SUT's notifications depart from the oracle's.
    static func recordRecipients(
        _ goldenFile: inout GoldenFile,
        scenario: Scenario,
        seed: UInt64,
        result: RunObservation
    ) -> [String] {
        let lastDeviceTime = RecipientOracle.lastDeviceTimes(scenario, seed: seed)
        guard !lastDeviceTime.isEmpty else { return [] }
        var warnings: [String] = []
        let recorded = result.alerts.observed.filter { Severity(rawValue: $0.severity) != nil }
        let alerts = recorded.map {
            RecipientOracle.Alert(
                patientID: $0.patientID,
                rule: $0.rule,
                severity: Severity(rawValue: $0.severity) ?? .medium,
                raisedAt: $0.raisedAt
            )
        }
        let expected = RecipientOracle.expectations(alerts, scenario: scenario, lastDeviceTime: lastDeviceTime)
        if result.areas[InboxesObservation.self]?.notifications == nil,
            expected.contains(where: { $0.recipients != nil })
        {
            let why = result.areas[InboxesObservation.self]?.unread ?? "the run did not read them"
            warnings.append("the SUT's notifications were not read (\(why)): recipients are the oracle's")
        }
        for (i, observed) in recorded.enumerated() where i < goldenFile.alerts.count {
            let expectation = expected[i]
            guard let oracle = expectation.recipients else { continue }
            var got = oracle
            if let notifications = result.areas[InboxesObservation.self]?.notifications {
                got = []
                for n in notifications
                where n.alertID == observed.alertID && !got.contains(where: { $0.person == n.recipient }) {
                    got.append(ExpectedRecipient(person: n.recipient, after: max(0, n.at - observed.raisedAt)))
                }
                if Set(got) != Set(oracle) {
                    warnings.append(
                        "\(observed.rule) patient \(observed.patientID): the SUT notified \(RecipientOracle.describe(got)); the oracle expects \(RecipientOracle.describe(oracle))"
                    )
                }
            }
            goldenFile.alerts[i].recipients = got
            goldenFile.alerts[i].withheld = expectation.withheld
            goldenFile.alerts[i].actions = expectation.actions
        }
        return warnings
    }
}
