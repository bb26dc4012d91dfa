import Judge
import RunRecord
import SUTAdapter
import Traffic
import VitalSimCore

extension LiveSuite {
    /// Runs the scenario at `path` and judges it against what a conforming SUT must do, derived
    /// rather than read from a golden file: the alerts the oracle derives (in the windows of a
    /// `reference` golden file's matching expectations where it has one, else its tolerances), the
    /// rejections its deliberately corrupted readings must earn, and the reference's budgets. This
    /// is how `vitalsim shrink` judges scenarios no golden file was reviewed for; the golden file
    /// returned is the one the verdict was judged against (to be written for the result).
    package func judgeDerived(
        _ path: String,
        reference: GoldenFile?
    ) async throws(HarnessError) -> (Verdict, GoldenFile) {
        let scenario: Scenario
        do throws(ScenarioLoadError) { scenario = try TracedScenarioLoader.load(path: path) } catch {
            throw .golden(error.description)
        }
        var golden = derivedGolden(scenario, reference: reference, seed: options.pacing.seed)
        var awaiting = AlertWait(golden: golden, grace: options.pacing.alertWait)
        awaiting.names = options.names
        if let claimed = options.target.profile.conformance.rules {
            awaiting.expected = awaiting.expected.filter { claimed.contains($0.rule) }
        }
        let contract = ContractLog()
        let session = try await ScenarioSession.prepare(path, scenario, options: options, contract: contract)
        defer { session.stop() }
        let outcome = try await session.run(awaiting: awaiting)
        golden.trafficDigest = outcome.digest ?? ""  // (an unsharded run always digests)
        golden.validation = outcome.record.traffic.requests.compactMap { r in
            r.expectedRejection.map {
                GoldenFile.ExpectedValidation(reading: r.firstReading ?? "", status: $0.status, field: $0.field)
            }
        }
        return (try session.judge(outcome, against: golden, goldenPath: path, contract: contract.summary()), golden)
    }

    /// The alert expectations and budgets of ``judgeDerived(_:reference:options:)``.
    func derivedGolden(_ scenario: Scenario, reference: GoldenFile?, seed: UInt64?) -> GoldenFile {
        let early = reference?.earlyTolerance ?? GoldenFile.defaultEarly
        let late = reference?.lateTolerance ?? GoldenFile.defaultLate
        var unused = reference?.alerts ?? []
        var alerts: [GoldenFile.ExpectedAlert] = []
        for a in Oracle.expect(scenario, seed: seed) {
            if let position = unused.firstIndex(where: {
                $0.patientID == a.patientID && $0.rule == a.rule && ($0.from...$0.to).contains(a.raisedAt)
            }) {
                alerts.append(unused.remove(at: position))
            } else {
                alerts.append(
                    GoldenFile.ExpectedAlert(
                        patientID: a.patientID,
                        rule: a.rule,
                        severity: a.severity,
                        from: a.raisedAt - early,
                        to: a.raisedAt + late
                    )
                )
            }
        }
        var budgets =
            reference?.budgets ?? [
                GoldenFile.Budget(path: .readingToAck, limits: [(99, 1000), (100, 5000)]),
                GoldenFile.Budget(path: .readingToAlert, limits: [(99, 1000), (100, 2000)]),
            ]
        // A budget with nothing measured fails: a scenario that must raise nothing has no alert latency.
        if alerts.isEmpty { budgets.removeAll { $0.path == .readingToAlert } }
        return GoldenFile(
            scenario: scenario.name,
            seed: seed ?? scenario.seed,
            trafficDigest: "",
            earlyTolerance: early,
            lateTolerance: late,
            alerts: alerts,
            validation: [],
            budgets: budgets
        )
    }
}
