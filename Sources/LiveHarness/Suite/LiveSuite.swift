import Foundation
import Histogram
import Judge
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// Runs scenarios live against a SUT and judges them against their golden files, or records golden files.
package enum LiveSuite {
    /// Where a scenario's golden file lives.
    package static func goldenPath(_ scenario: Scenario, _ options: LiveOptions) -> String {
        if let dir = options.reports.goldenDirectory { return dir + "/\(scenario.name).golden.yaml" }
        return scenario.golden
    }

    /// The scenario's traffic in the SUT profile's shape (routes, ids at the SUT, MQTT topic),
    /// generated as it is consumed.
    static func trafficPlan(
        _ scenario: Scenario,
        _ options: LiveOptions,
        bleLink: Bool,
        naming: WireNaming
    ) -> TrafficPlanStream {
        var routes = options.target.profile.ingestion.routes
        if let claimed = options.target.profile.conformance.kinds {
            routes.withheld = Set(VitalKind.allCases.filter { !claimed.contains($0.rawValue) })
        }
        return TrafficPlanStream(
            for: scenario,
            seed: options.pacing.seed,
            bleLink: bleLink,
            routes: routes,
            naming: naming,
            mqttTopic: options.target.profile.mqtt.topic,
            deviceTimes: options.target.profile.alerts.fields.evidence == nil
                || options.target.profile.alerts.clock == .server
        )
    }

    /// Runs and judges each scenario. A scenario that cannot be judged (a misconfiguration, an
    /// unreachable SUT) ends the list as a verdict with an ``Verdict/error``; input errors throw.
    package static func run(
        _ paths: [String],
        options: LiveOptions,
        progress: (String) -> Void
    ) async throws(HarnessError) -> [Verdict] {
        try await runSuite(paths, options: options, progress: progress).verdicts
    }

    /// Runs one scenario (or, in a shard, its patients of this shard: `scenario` and `golden`
    /// restricted to them, `whole` what it knows of the scenario they are of) and judges it.
    static func runScenario(
        _ path: String,
        _ scenario: Scenario,
        golden: GoldenFile,
        goldenPath: String,
        whole: WholeScenario?,
        options: LiveOptions
    ) async throws(HarnessError) -> (verdict: Verdict, requests: [SentOutcome]) {
        var awaiting = AlertWait(golden: golden, grace: options.pacing.alertWait)
        awaiting.names = options.names
        // An alert of a rule the SUT does not claim (its conformance statement) is not waited for.
        if let claimed = options.target.profile.conformance.rules {
            awaiting.expected = awaiting.expected.filter { claimed.contains($0.rule) }
        }
        let contract = ContractLog()
        let executed: ([SentRequest], String?, RunObservation, String)
        do throws(HarnessError) {
            // A shard sends only its patients' traffic; the digest is of the whole scenario's, as recorded.
            executed = try await execute(
                path,
                scenario,
                options,
                awaiting: awaiting,
                contract: contract,
                whole: whole
            )
        } catch {
            // A scenario that cannot be judged ends the suite (exit 3); the reports still show it,
            // as an error with what the SUT answered, and the scenarios judged before it.
            if error.isInputError { throw error }
            let message = error.description
            let reason =
                message.hasPrefix(scenario.name + ": ") ? String(message.dropFirst(scenario.name.count + 2)) : message
            return (Verdict(scenario: scenario.name, error: reason, contract: contract.summary()), [])
        }
        let judged = (golden: golden, path: goldenPath, contract: contract.summary())
        let verdict = try judge(executed, path: path, scenario: scenario, against: judged, options: options)
        guard options.reports.listsRequests else { return (verdict, []) }
        return (verdict, zip(executed.0, executed.2.traffic.outcomes).map(SentOutcome.init))
    }

    /// A scenario's verdict from what its run sent and saw, against its golden file, with the SUT
    /// contract the run recorded; with `--evidence`, its bundle written.
    static func judge(
        _ executed: ([SentRequest], String?, RunObservation, String),
        path: String,
        scenario: Scenario,
        against judged: (golden: GoldenFile, path: String, contract: SUTContract),
        options: LiveOptions
    ) throws(HarnessError) -> Verdict {
        let (plan, digest, result, base) = executed
        let (golden, goldenPath) = (judged.golden, judged.path)
        let evidence = EvidenceCatalog(
            scenario: scenario,
            seed: options.pacing.seed,
            citing: Set(result.alerts.observed.flatMap(\.evidence)),
            sent: plan,
            outcomes: result.traffic.outcomes,
            bleLink: result.traffic.ble != nil
        )
        let stored = try storedExpectations(scenario, plan: plan, result: result, options: options)
        var verdict = Verdict(
            scenario: scenario.name,
            golden: golden,
            plan: plan,
            digest: digest,
            result: result,
            evidence: evidence,
            stored: stored,
            partial: options.sharding.shard != nil
        )
        verdict.contract = judged.contract
        if options.reports.charts { verdict.chart = ScenarioChart.make(scenario, seed: options.pacing.seed) }
        if let evidence = options.reports.evidence {
            // The bundle logs every request with its body: regenerated (the run kept no bodies), the
            // traffic digest proving it is what was sent.
            let naming = try wireNaming(scenario, options, bleLink: result.traffic.ble != nil)
            let whole = Array(trafficPlan(scenario, options, bleLink: result.traffic.ble != nil, naming: naming))
            let shaped = profileShaped(options, naming: naming) ? options.target.profile.name : nil
            do throws(EvidenceError) {
                try EvidenceBundle.write(
                    to: evidence + "/" + scenario.name,
                    scenarioPath: path,
                    scenario: scenario,
                    goldenPath: goldenPath,
                    seed: options.pacing.seed ?? scenario.seed,
                    target: options.target.url ?? "embedded reference SUT (\(base))",
                    plan: whole,
                    digest: digest ?? "",
                    result: result,
                    verdict: verdict,
                    profile: shaped,
                    catalogue: options.reports.catalogueVersion,
                    signingKey: options.reports.signingKey
                )
            } catch { throw .infrastructure(error.description) }
        }
        return verdict
    }

    /// What the SUT must hold after the run, when its stored readings were read back; a patient the
    /// SUT does not know although it acknowledged readings of theirs is a misconfiguration of the
    /// read-back URL (exit 3), not a loss.
    static func storedExpectations(
        _ scenario: Scenario,
        plan: [SentRequest],
        result: RunObservation,
        options: LiveOptions
    ) throws(HarnessError) -> StoredDataExpectations? {
        guard let readBack = result.areas[StoredReadBack.self] else { return nil }
        let expected = StoredDataExpectations(
            scenario: scenario,
            seed: options.pacing.seed,
            sent: plan,
            statuses: result.traffic.outcomes.map(\.status),
            bleLink: result.traffic.ble != nil,
            routes: options.target.profile.ingestion.routes
        )
        for p in readBack.unknownPatients.sorted() {
            guard let entries = expected.byPatient[p], !entries.isEmpty else { continue }
            throw .infrastructure(
                "\(scenario.name): reading back the stored readings: the SUT answered 404 for patient \(p), whose \(entries.count) reading(s) it acknowledged; check stored-readings.url of the profile"
            )
        }
        return expected
    }

    /// Runs each scenario and writes its golden file from what the SUT did; returns the paths written
    /// and warnings (a deliberately corrupted payload the SUT accepted, a rejection naming an unexpected field).
    package static func record(
        _ paths: [String],
        options: LiveOptions,
        progress: (String) -> Void
    ) async throws(HarnessError) -> [(String, [String])] {
        var written: [(String, [String])] = []
        for path in paths {
            let scenario: Scenario
            do throws(ScenarioLoadError) { scenario = try TracedScenarioLoader.load(path: path) } catch {
                throw .golden(error.description)
            }
            progress("recording \(scenario.name) (\(path))")
            let derived = Oracle.expect(scenario, seed: options.pacing.seed)
            var awaiting = AlertWait(oracle: derived, grace: options.pacing.alertWait)
            awaiting.names = options.names
            let (plan, digest, result, _) = try await execute(path, scenario, options, awaiting: awaiting)
            let (g, warnings) = GoldenFile.recorded(
                scenario: scenario.name,
                seed: options.pacing.seed ?? scenario.seed,
                digest: digest ?? "",  // (an unsharded run always digests)
                plan: plan,
                result: result,
                oracle: derived,
                scenario: scenario
            )
            let target = goldenPath(scenario, options)
            try? FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            guard FileManager.default.createFile(atPath: target, contents: Data(g.yaml().utf8)) else {
                throw .golden("cannot write \(target)")
            }
            written.append((target, warnings))
        }
        return written
    }

    /// Scenario files of a path: the file itself, or a folder's `*.yaml` files in name order.
    package static func scenarioFiles(_ path: String) -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map { path + "/" + $0 }
    }
}
