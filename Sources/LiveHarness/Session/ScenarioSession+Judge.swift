import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import VitalSimCore

extension ScenarioSession {
    /// The scenario's verdict from what its run observed, against `golden` (at `goldenPath`), with
    /// the SUT contract the run recorded; with `--evidence`, its bundle written.
    func judge(
        _ outcome: Outcome,
        against golden: GoldenFile,
        goldenPath: String,
        contract: SUTContract
    ) throws(HarnessError) -> Verdict {
        let (record, options, scenario) = (outcome.record, setup.options, setup.scenario)
        let plan = record.traffic.requests
        let evidence = EvidenceCatalog(
            scenario: scenario,
            seed: options.pacing.seed,
            citing: Set(record.alerts.observed.flatMap(\.evidence)),
            sent: plan,
            outcomes: record.traffic.outcomes,
            bleLink: record.traffic.ble != nil
        )
        var verdict = Verdict(
            scenario: scenario.name,
            golden: golden,
            plan: plan,
            digest: outcome.digest,
            result: record,
            evidence: evidence,
            stored: try storedExpectations(record),
            partial: options.sharding.shard != nil,
            registry: registry
        )
        verdict.contract = contract
        if options.reports.charts { verdict.chart = ScenarioChart.make(scenario, seed: options.pacing.seed) }
        if let bundle = options.reports.evidence {
            try writeEvidence(to: bundle, outcome, verdict, goldenPath: goldenPath)
        }
        return verdict
    }

    /// What the SUT must hold after the run, when its stored readings were read back; a patient the
    /// SUT does not know although it acknowledged readings of theirs is a misconfiguration of the
    /// read-back URL (exit 3), not a loss.
    func storedExpectations(_ record: RunObservation) throws(HarnessError) -> StoredDataExpectations? {
        guard let readBack = record.areas[StoredReadBack.self] else { return nil }
        let expected = StoredDataExpectations(
            scenario: setup.scenario,
            seed: setup.options.pacing.seed,
            sent: record.traffic.requests,
            statuses: record.traffic.outcomes.map(\.status),
            bleLink: record.traffic.ble != nil,
            routes: setup.options.target.profile.ingestion.routes
        )
        for patient in readBack.unknownPatients.sorted() {
            guard let entries = expected.byPatient[patient], !entries.isEmpty else { continue }
            throw .infrastructure(
                "\(setup.name): reading back the stored readings: the SUT answered 404 for patient \(patient), whose \(entries.count) reading(s) it acknowledged; check stored-readings.url of the profile"
            )
        }
        return expected
    }

    /// With `--evidence`, the bundle of a scenario that could not be judged (`verdict` holds why):
    /// its inputs and every request's body as the profile shapes it, for the SUT's maintainers and
    /// an independent validator; no answers (the run that was to record them stopped). A bundle
    /// that cannot be written is told to the user.
    func writeUnjudgedEvidence(_ verdict: Verdict, goldenPath: String) {
        guard let folder = setup.options.reports.evidence, setup.options.sharding.shard == nil else { return }
        let record = RunObservation(traffic: TrafficObservation(outcomes: []), alerts: AlertObservation(observed: []))
        // The whole scenario's digest: the run that was to stream it stopped.
        let digest = TrafficPlan.streamedDigest(for: setup.scenario, seed: setup.options.pacing.seed)
        do throws(HarnessError) {
            try writeEvidence(
                to: folder,
                Outcome(record: record, digest: digest),
                verdict,
                goldenPath: goldenPath
            )
        } catch { setup.options.note("\(setup.name): \(error.description)") }
    }

    /// The auditor's bundle of the run: every request with its body, regenerated (the run kept no
    /// bodies; the traffic digest proves it is what was sent), and the verdict.
    func writeEvidence(
        to folder: String,
        _ outcome: Outcome,
        _ verdict: Verdict,
        goldenPath: String
    ) throws(HarnessError) {
        let options = setup.options
        let whole = Array(setup.trafficPlan(naming: naming))
        let shaped = setup.profileShaped(naming: naming) ? options.target.profile.name : nil
        do throws(EvidenceError) {
            try EvidenceBundle(directory: folder + "/" + setup.name).write(
                scenarioPath: setup.path,
                scenario: setup.scenario,
                goldenPath: goldenPath,
                seed: options.pacing.seed ?? setup.scenario.seed,
                target: options.target.url ?? "embedded reference SUT (\(base))",
                plan: whole,
                digest: outcome.digest ?? "",
                result: outcome.record,
                verdict: verdict,
                profile: shaped,
                catalogue: options.reports.catalogueVersion,
                signingKey: options.reports.signingKey
            )
        } catch { throw .infrastructure(error.description) }
    }
}
