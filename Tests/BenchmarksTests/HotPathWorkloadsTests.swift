import Benchmarks
import Foundation
import Judge
import RunRecord
import TestFixtures
import Testing
import Traffic
import VitalSimCore

/// The hot paths `Benchmarks/HotPaths` times do the work they are named for: generation yields the
/// scenario's readings, encoding their payloads, planning the run's request stream, and judging
/// pairs the oracle's alerts with the golden file's expectations.
struct HotPathWorkloadsTests {
    @Test func generationAndEncodingCoverEveryReading() throws {
        let scenario = try HotPathWorkloads.population(patients: 2, hours: 1)
        let readings = HotPathWorkloads.readings(scenario)
        #expect(HotPathWorkloads.generate(scenario) == readings.count)
        #expect(readings.count > 2 * 3_600)  // two heart-rate straps at 1 s alone
        let bytes = HotPathWorkloads.encode(readings, start: scenario.startUnixMilliseconds)
        #expect(bytes > 4 * readings.count)  // no payload is shorter than a GATT heart-rate value
        #expect(HotPathWorkloads.encode(readings, start: scenario.startUnixMilliseconds) == bytes)
    }

    @Test func planningStreamsTheRequestsOfTheWholePlan() throws {
        let scenario = try ScenarioLoader.load(path: Fixtures.repositoryRoot + "/scenarios/core/fever-spike.yaml")
        let whole = TrafficPlan.requests(for: scenario).reduce(0) { $0 + $1.body.count }
        #expect(whole > 0)
        #expect(HotPathWorkloads.plan(scenario) == whole)
    }

    @Test func judgingPairsTheOraclesAlertsWithTheGoldenFile() throws {
        let scenario = try ScenarioLoader.load(
            path: Fixtures.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"
        )
        let path = Fixtures.repositoryRoot + "/" + scenario.golden
        let golden = try GoldenFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        let observed = HotPathWorkloads.observed(Oracle.expect(scenario))
        #expect(!observed.isEmpty)
        let checks = AlertsArea().alertChecks(golden.alerts, observed)
        #expect(HotPathWorkloads.judge([(golden, observed)]) == checks.count)
        #expect(checks.count >= golden.alerts.count)
        let failed = checks.filter { !$0.passed }
        #expect(failed.isEmpty, "\(failed)")
        // An alert the golden file does not expect is judged, and fails.
        var extra = observed
        extra.append(
            ObservedAlert(
                alertID: "x",
                patientID: "507",
                rule: "hr.tachycardia",
                severity: "medium",
                raisedAt: 0,
                evidence: []
            )
        )
        #expect(AlertsArea().alertChecks(golden.alerts, extra).contains { !$0.passed })
    }
}
