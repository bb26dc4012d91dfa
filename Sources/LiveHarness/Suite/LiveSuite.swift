import Foundation
import Histogram
import Judge
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// Options of `vitalsim run` and `vitalsim record`.
package struct LiveOptions: Sendable {
    /// The SUT's base URL; nil starts the embedded reference SUT per scenario.
    package var target: String?
    /// How HTTP requests reach the SUT at ``target``: nil sends them with libcurl; a test gives an
    /// exchange that answers in memory (the reference SUT's router in-process).
    package var exchange: (any HTTPExchange)?
    package var caFile: String?
    package var insecure = false
    /// The client certificate for a SUT that requires mutual TLS (the profile's `tls`, `--client-cert`).
    package var clientCertificate: ClientCertificate?
    /// Speak HTTP/2 where the SUT offers it (see ``HTTPMultiClient``); HTTP/1.1 keep-alive otherwise.
    package var http2 = false
    /// Extra request headers (credentials), e.g. `Authorization: Bearer …`.
    package var headers: [String] = []
    /// How the SUT is authenticated to and its alerts read (`--sut FILE`); its base URL and TLS
    /// settings are already in ``target``, ``caFile`` and ``insecure``.
    package var profile = SUTProfile.vitalsim
    /// Virtual seconds per wall second; nil sends as fast as the SUT answers.
    package var speed: Double?
    package var seed: UInt64?
    /// Faulty modes for the embedded SUT (`--sut-fault`).
    package var sutFaults: [String] = []
    /// The `vitalsim` executable (to start the embedded SUT).
    package var executable: String
    /// Folder of golden files; nil uses each scenario's `golden` path.
    package var goldenDirectory: String?
    /// In CI a missing golden file is an error, never written.
    package var ci = false
    package var connections = 8
    package var quiet: Duration = .seconds(2)
    /// How long past the reading → alert budget an expected alert not yet listed is still waited for
    /// at the end of a run (see ``AlertWait``).
    package var alertWait: Duration = .seconds(30)
    /// How long a request is retried while a SUT that answered before is down (a restart); the run
    /// waits behind it rather than skipping readings.
    package var outageLimit: Duration = .seconds(60)
    /// The MQTT broker for devices with `transport: mqtt`; nil starts a mosquitto broker for the
    /// embedded SUT when a scenario needs one.
    package var mqtt: (host: String, port: Int)?
    /// QoS of the MQTT messages (0, 1 or 2).
    package var qos = 1
    /// `max_queued_messages` of the embedded mosquitto: QoS 1/2 messages it queues per client beyond
    /// those in flight before dropping them (a small value shows what a slow subscriber loses).
    package var mqttBrokerQueue = 100_000
    /// CA bundle for TLS to the MQTT broker (harness clients and the embedded SUT); nil: plain TCP.
    package var mqttCAFile: String?
    /// How the harness's MQTT clients authenticate to the broker (the profile's `mqtt`).
    package var mqttCredentials = MQTTCredentials()
    /// Keep the publisher's MQTT session (and its queued QoS 1/2 messages) across reconnections.
    package var mqttPersistentSession = false
    /// Prepare vitals charts for an HTML report.
    package var charts = false
    /// Write an evidence bundle per scenario under this folder.
    package var evidence: String?
    /// Push channels to observe alongside the alert API.
    package var observe: [PushObserver.Kind] = []
    /// Progress of each scenario: (scenario, requests answered and scenario time reached).
    package var progress: (@Sendable (String, LiveRunner.Progress) -> Void)?
    /// Port of the webhook receiver (`--observe webhook`); 0 picks a free one.
    package var webhookPort = 0
    /// Messages for the user (stderr).
    package var note: @Sendable (String) -> Void = { _ in }
    /// How Bluetooth devices with `transport: ble` reach the SUT.
    package var ble: BLEMode = .relay
    /// HCI controllers for the BLE devices' peripherals (`--hci`, one per device) when the SUT's
    /// own gateway connects to them; empty starts bumble's virtual controllers for the embedded SUT.
    package var hci: [String] = []
    /// The Python interpreter with bumble (`--bumble-python`); nil looks for `.venv-bumble`.
    package var bumblePython: String?
    /// The run id that `{run}` stands for in a SUT profile's `lifecycle` (`--run-id`).
    package var runID = "run"
    /// The shard of the suite's patients this run runs (`--shard`); nil runs them all.
    package var shard: PatientShard?
    /// When scenario time 0 of the first scenario run is due, Unix ms (`--start-at`): the shards of
    /// one run keep one schedule.
    package var startAt: Int64?
    /// Whether each scenario's part of the suite run lists every request and its outcome (for a
    /// result file, `--result`).
    package var listsRequests = false
    /// The moment scenario time 0 of the scenario being run is due (set from ``startAt``).
    var origin: ContinuousClock.Instant?
    /// Whether the alerts of a (scenario) patient are this run's to judge (set per scenario by a shard).
    var keepsPatient: @Sendable (String) -> Bool = { _ in true }

    /// How a run carries Bluetooth devices.
    package enum BLEMode: String, Sendable, CaseIterable {
        /// Decoded and posted over HTTPS, as a phone gateway relays them.
        case relay
        /// As live peripherals over HCI, to the SUT's BLE gateway (a real BLE host stack on both sides).
        case hci
    }

    package init(executable: String) { self.executable = executable }
}

/// Runs scenarios live against a SUT and judges them against their golden files, or records golden files.
package enum LiveSuite {
    /// Where a scenario's golden file lives.
    package static func goldenPath(_ s: Scenario, _ options: LiveOptions) -> String {
        if let dir = options.goldenDirectory { return dir + "/\(s.name).golden.yaml" }
        return s.golden
    }

    /// The scenario's traffic in the SUT profile's shape (routes, ids at the SUT, MQTT topic),
    /// generated as it is consumed.
    static func trafficPlan(
        _ scenario: Scenario,
        _ options: LiveOptions,
        bleLink: Bool,
        naming: WireNaming
    ) -> TrafficPlanStream {
        TrafficPlanStream(
            for: scenario,
            seed: options.seed,
            bleLink: bleLink,
            routes: options.profile.ingestion.routes,
            naming: naming,
            mqttTopic: options.profile.mqtt.topic,
            deviceTimes: options.profile.alerts.fields.evidence == nil || options.profile.alerts.clock == .server
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
    /// restricted to them, `whole` the scenario for its traffic digest) and judges it.
    static func runScenario(
        _ path: String,
        _ scenario: Scenario,
        golden: GoldenFile,
        goldenPath: String,
        whole: Scenario?,
        options: LiveOptions
    ) async throws(HarnessError) -> (verdict: Verdict, requests: [SentOutcome]) {
        let awaiting = AlertWait(golden: golden, grace: options.alertWait)
        let contract = ContractLog()
        let executed: ([SentRequest], String, LiveRunResult, String)
        do throws(HarnessError) {
            // A shard sends only its patients' traffic; the digest is of the whole scenario's, as recorded.
            executed = try await execute(
                path,
                scenario,
                options,
                awaiting: awaiting,
                contract: contract,
                digestOf: whole
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
        guard options.listsRequests else { return (verdict, []) }
        return (verdict, zip(executed.0, executed.2.outcomes).map(SentOutcome.init))
    }

    /// A scenario's verdict from what its run sent and saw, against its golden file, with the SUT
    /// contract the run recorded; with `--evidence`, its bundle written.
    static func judge(
        _ executed: ([SentRequest], String, LiveRunResult, String),
        path: String,
        scenario: Scenario,
        against judged: (golden: GoldenFile, path: String, contract: SUTContract),
        options: LiveOptions
    ) throws(HarnessError) -> Verdict {
        let (plan, digest, result, base) = executed
        let (golden, goldenPath) = (judged.golden, judged.path)
        let evidence = EvidenceCatalog(
            scenario: scenario,
            seed: options.seed,
            citing: Set(result.alerts.flatMap(\.evidence)),
            sent: plan,
            outcomes: result.outcomes,
            bleLink: result.ble != nil
        )
        let stored = try storedExpectations(scenario, plan: plan, result: result, options: options)
        var verdict = Verdict.judge(
            scenario: scenario.name,
            golden: golden,
            plan: plan,
            digest: digest,
            result: result,
            evidence: evidence,
            stored: stored,
            partial: options.shard != nil
        )
        verdict.contract = judged.contract
        if options.charts { verdict.chart = ScenarioChart.make(scenario, seed: options.seed) }
        if let evidence = options.evidence {
            // The bundle logs every request with its body: regenerated (the run kept no bodies), the
            // traffic digest proving it is what was sent.
            let naming = try wireNaming(scenario, options, bleLink: result.ble != nil)
            let whole = Array(trafficPlan(scenario, options, bleLink: result.ble != nil, naming: naming))
            let shaped = profileShaped(options, naming: naming) ? options.profile.name : nil
            do throws(EvidenceError) {
                try EvidenceBundle.write(
                    to: evidence + "/" + scenario.name,
                    scenarioPath: path,
                    scenario: scenario,
                    goldenPath: goldenPath,
                    seed: options.seed ?? scenario.seed,
                    target: options.target ?? "embedded reference SUT (\(base))",
                    plan: whole,
                    digest: digest,
                    result: result,
                    verdict: verdict,
                    profile: shaped
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
        result: LiveRunResult,
        options: LiveOptions
    ) throws(HarnessError) -> StoredDataExpectations? {
        guard let readBack = result.stored else { return nil }
        let expected = StoredDataExpectations(
            scenario: scenario,
            seed: options.seed,
            sent: plan,
            statuses: result.outcomes.map(\.status),
            bleLink: result.ble != nil,
            routes: options.profile.ingestion.routes
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
            let derived = Oracle.expect(scenario, seed: options.seed)
            let awaiting = AlertWait(oracle: derived, grace: options.alertWait)
            let (plan, digest, result, _) = try await execute(path, scenario, options, awaiting: awaiting)
            let (g, warnings) = GoldenFile.recorded(
                scenario: scenario.name,
                seed: options.seed ?? scenario.seed,
                digest: digest,
                plan: plan,
                result: result,
                oracle: derived
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
