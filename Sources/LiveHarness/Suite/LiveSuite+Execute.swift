import Clocks
import Foundation
import Judge
import Locking
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// The helper processes and connections of one scenario's run, stopped together when it ends:
/// push observers first, then the peripherals, the SUT (its gateway), the broker, and the virtual
/// controllers under both.
final class RunResources {
    var embedded: EmbeddedSUT?
    var broker: MosquittoBroker?
    var controllers: BumbleControllers?
    var link: BLELink?
    var observers: [PushObserver] = []
    /// The network proxies the devices' traffic goes through (`--network`).
    var weather: [WeatherProxy] = []

    func stop() {
        for o in observers { o.stop() }
        for p in weather { p.stop() }
        link?.stop()
        embedded?.stop()
        broker?.stop()
        controllers?.stop()
    }
}

/// What one scenario's run needs to know about itself before it starts.
struct ScenarioSetup {
    let path: String
    let scenario: Scenario
    let options: LiveOptions
    /// The scenario's BLE devices when they go over a real BLE link (`--ble hci`), else empty.
    let bleDevices: [(String, DeviceSpec)]
    /// A scratch folder for the run's helpers.
    let scratch: String
    /// Where the SUT's answers are recorded for the report's SUT-contract section.
    let contract: ContractLog
    /// The credentials made up for the embedded reference SUT (nil for a `--target`, or when the
    /// profile or `--header` brings credentials of its own); `options` already use them.
    let credentials: RunCredentials?

    init(path: String, scenario: Scenario, options: LiveOptions, contract: ContractLog, naming: WireNaming) {
        self.path = path
        self.contract = contract
        self.scenario = scenario
        bleDevices = options.ble.mode == .hci ? scenario.bleDevices : []
        scratch =
            FileManager.default.temporaryDirectory.appendingPathComponent("vitalsim-run-\(getpid())-\(scenario.name)")
            .path
        var options = options
        // For a SUT rule that stands for several of VitalSim's by the patient's clinical profile.
        options.target.profile.mapping.patientProfiles = Dictionary(
            scenario.patients.map { (naming.patient($0.id), $0.profile.rawValue) },
            uniquingKeysWith: { first, _ in first }
        )
        // The alert URL's variables, the list read per patient of this run where it names {patient}.
        options.target.profile.alerts = options.target.profile.alerts.expanded(
            patients: scenario.patients.map(\.id).filter(options.keepsPatient).map(naming.patient),
            since: scenario.startUnixMilliseconds,
            run: options.runID
        )
        let auth = options.target.profile.auth
        if options.target.url == nil, options.target.headers.isEmpty, auth.headers.isEmpty, auth.reader.isEmpty,
            auth.devices == nil,
            auth.oauth2 == nil
        {
            let runCredentials = RunCredentials(scenario: scenario, naming: naming)
            options.target.profile.auth.devices = runCredentials.deviceCredentials(file: scratch + "/credentials.yaml")
            options.target.profile.mqtt.deviceCredentials = .userProperties
            // The embedded broker knows only the users the run made up.
            if options.mqtt.broker == nil { options.mqtt.credentials = runCredentials.harness }
            credentials = runCredentials
        } else {
            credentials = nil
        }
        self.options = options
    }

    var name: String { scenario.name }
    var overBLE: Bool { !bleDevices.isEmpty }
    var bleKeys: [String] { bleDevices.map { "\($0.0)/\($0.1.id)" } }
    /// Whether some of the scenario's readings go over MQTT (by their device's transport, or the
    /// profile's routes).
    var usesMQTT: Bool { scenario.sendsOverMQTT(options.target.profile.ingestion.routes) }
    var observesMQTT: Bool { options.push.channels.contains(.mqtt) }
    /// The network the devices' traffic goes through: `--network`, else the scenario's `network:`;
    /// nil for none.
    var network: NetworkWeather? {
        guard let weather = options.network ?? scenario.network, !weather.isNone else { return nil }
        return weather
    }
}

extension LiveSuite {
    /// Sends one scenario's traffic, generating it as it goes, and returns the requests sent (without
    /// their bodies), the traffic digest, the raw result and the SUT's base URL; `awaiting` are the
    /// alerts waited for at the end; `contract` records what the SUT answered (kept when the run fails);
    /// in a shard, `whole` is what it knows of the scenario its part is of: the digest covers the
    /// whole scenario, and is nil unless this shard computes it.
    static func execute(
        _ path: String,
        _ scenario: Scenario,
        _ options: LiveOptions,
        awaiting: AlertWait,
        contract: ContractLog = ContractLog(),
        whole: WholeScenario? = nil
    ) async throws(HarnessError) -> ([SentRequest], String?, RunObservation, String) {
        var options = options
        // An alert source that only pushes is observed like --observe, and read instead of a list.
        if let channel = options.target.profile.alerts.pushOnly, !options.push.channels.contains(channel) {
            options.push.channels.append(channel)
        }
        let naming = try wireNaming(
            scenario,
            options,
            bleLink: options.ble.mode == .hci && !scenario.bleDevices.isEmpty
        )
        let setup = ScenarioSetup(path: path, scenario: scenario, options: options, contract: contract, naming: naming)
        let plan = trafficPlan(scenario, options, bleLink: setup.overBLE, naming: naming)
        let resources = RunResources()
        defer { resources.stop() }
        let (peripheralHCI, gatewayHCI) = try controllers(setup, resources)
        let endpoint = try mqttEndpoint(setup, resources)
        let webhook = try await webhookReceiver(setup, resources)
        let (base, ca) = try sut(setup, resources, endpoint: endpoint, webhook: webhook, gatewayHCI: gatewayHCI)
        let weather = try weatherProxies(setup, resources, base: base, broker: endpoint)
        let client = try await publisher(
            setup,
            endpoint: endpoint,
            through: weather?.mqtt,
            brokerCounters: resources.broker != nil
        )
        try await observe(setup, resources, base: base, ca: ca, endpoint: endpoint)
        let runner = runner(
            setup,
            resources,
            base: base,
            ingestionBase: weather?.http,
            ca: ca,
            client: client,
            naming: naming
        )
        let lifecycle = patientLifecycle(setup, naming: naming, runner: runner, base: base)
        let team = CareTeamClient(setup, naming: naming, runner: runner, base: base)
        var result = try await between(lifecycle, of: scenario) { () async throws(HarnessError) -> RunObservation in
            try await checkNothingLeftOver(runner, scenario)
            let alongside = try bleLink(setup, resources, peripheralHCI: peripheralHCI, clock: runner.clock)
            let acted = Locked<[CareActionOutcome]>([])
            var result = await runner.run(
                plan,
                span: scenario.duration.milliseconds,
                startUnixMilliseconds: scenario.startUnixMilliseconds,
                alongside: alongside,
                origin: options.origin,
                awaiting: awaiting,
                barriers: careActionBarriers(team, into: acted)
            )
            result.areas[CareActionsObservation.self] = CareActionsObservation(outcomes: acted.withLock { $0 })
            result.traffic.trace = runner.trace
            await readBack(into: &result, scenario, options, runner: runner, base: base, naming: naming, whole: whole)
            await probeAccess(into: &result, setup, naming: naming, lifecycle: lifecycle, runner: runner, base: base)
            await readNotifications(into: &result, team)
            await readAuditTrail(into: &result, setup, naming: naming, lifecycle: lifecycle, runner: runner, base: base)
            return result
        }
        await readAfterDeletion(into: &result, setup, naming: naming, lifecycle: lifecycle, runner: runner, base: base)
        result.traffic.network = weathered(setup, resources, mqtt: weather?.mqtt)
        // Unsharded: the traffic sent; in a shard, the whole scenario's, by the shard that digests it.
        var digest: String?
        if let whole {
            digest = whole.digested.map { trafficDigest(setup, plan, naming: naming, whole: $0) }
        } else {
            digest = trafficDigest(setup, plan, naming: naming, whole: nil)
        }
        result.traffic.ble = resources.link?.summary(devices: setup.bleKeys)
        result.traffic.withheld = (plan.withheldCount, plan.withheldCorrupt.mapValues(\.rawValue))
        try judgeable(result, scenario, base: base, options: options, resources: resources)
        return (result.traffic.requests, digest, result, base)
    }

    /// The enrol and reset steps of `setup`'s patients, sent through `runner`'s client to `base`.
    static func patientLifecycle(
        _ setup: ScenarioSetup,
        naming: WireNaming,
        runner: LiveRunner,
        base: String
    ) -> PatientLifecycle {
        PatientLifecycle(
            setup.options.target.profile.lifecycle,
            naming: naming,
            run: setup.options.runID,
            scenario: setup.scenario,
            base: base,
            client: runner.client,
            auth: runner.auth
        )
    }

    /// The digest of the scenario's whole traffic (as relayed) in the reference contract's form, so
    /// one golden file serves both modes and every SUT profile (`whole`: the scenario a shard's part is of).
    static func trafficDigest(
        _ setup: ScenarioSetup,
        _ plan: TrafficPlanStream,
        naming: WireNaming,
        whole: Scenario?
    ) -> String {
        let seed = setup.options.pacing.seed
        if let whole { return TrafficPlan.streamedDigest(for: whole, seed: seed) }
        if setup.overBLE || profileShaped(setup.options, naming: naming) {
            return TrafficPlan.streamedDigest(for: setup.scenario, seed: seed)
        }
        return plan.digest ?? ""
    }

    /// Tries the access-control matrix of the scenario's care teams (``AccessMatrix``) after its
    /// read-back, unless the run already failed to reach the SUT.
    static func probeAccess(
        into result: inout RunObservation,
        _ setup: ScenarioSetup,
        naming: WireNaming,
        lifecycle: PatientLifecycle,
        runner: LiveRunner,
        base: String
    ) async {
        guard result.misconfiguration == nil, !result.traffic.unreachable else { return }
        let (scenario, options) = (setup.scenario, setup.options)
        let matrix = AccessMatrix(
            scenario: scenario,
            naming: naming,
            base: base,
            client: runner.client,
            profile: options.target.profile,
            lifecycle: lifecycle
        ) { patient in
            firstHTTPRequest(of: patient, trafficPlan(scenario, options, bleLink: setup.overBLE, naming: naming))
        }
        result.areas[AccessMatrixObservation.self] = AccessMatrixObservation(
            probes: await matrix.run(observed: result.alerts.observed)
        )
    }

    /// A pause of the run at each care-team action of the timeline (those of the scenario's own
    /// patients, a shard's part included; `no-response` sends nothing), where the action is carried
    /// out and its outcome kept in `acted`.
    static func careActionBarriers(_ team: CareTeamClient, into acted: Locked<[CareActionOutcome]>) -> [RunBarrier] {
        let patients = Set(team.scenario.patients.map(\.id))
        return team.scenario.careActions.filter { $0.action.stopsEscalation && patients.contains($0.patient) }.map {
            action in
            RunBarrier(at: action.at) { listed in
                let outcome = await team.perform(action, observed: listed)
                acted.withLock { $0.append(outcome) }
            }
        }
    }

    /// Reads every person's notifications after the run (``CareTeamClient/notifications()``) when a
    /// patient of the scenario has an escalation policy and the run reached the SUT.
    static func readNotifications(into result: inout RunObservation, _ team: CareTeamClient) async {
        guard result.misconfiguration == nil, !result.traffic.unreachable, !team.people.isEmpty else { return }
        let (notifications, note, misconfiguration) = await team.notifications()
        result.areas[InboxesObservation.self] = InboxesObservation(
            notifications: notifications,
            unread: note,
            readers: notifications == nil ? [] : team.people
        )
        if let misconfiguration { result.misconfiguration = misconfiguration }
    }

    /// The first request of `patient`'s traffic that goes over HTTP and must be accepted, among the
    /// plan's first 100,000.
    static func firstHTTPRequest(of patient: String, _ plan: TrafficPlanStream) -> PlannedRequest? {
        plan.prefix(100_000).first {
            $0.patientID == patient && $0.topic == nil && $0.expectedRejection == nil && $0.unroutable == nil
        }
    }

    /// Throws when the SUT lists alerts of the scenario's patients before anything was sent (left by
    /// an earlier run), or its alert list passed a bound of the harness: the run cannot be judged.
    static func checkNothingLeftOver(_ runner: LiveRunner, _ scenario: Scenario) async throws(HarnessError) {
        let leftOver: [ObservedAlert]
        do throws(HarnessError) { leftOver = try await runner.leftOverAlerts() } catch {
            throw .infrastructure("\(scenario.name): \(error.description)")
        }
        if let problem = LiveRunner.leftOverProblem(leftOver) {
            throw .infrastructure("\(scenario.name): \(problem)")
        }
    }

    /// Throws when the run cannot be judged: the embedded SUT died, the SUT never answered, or the run
    /// revealed a misconfiguration.
    static func judgeable(
        _ result: RunObservation,
        _ scenario: Scenario,
        base: String,
        options: LiveOptions,
        resources: RunResources
    ) throws(HarnessError) {
        if let embedded = resources.embedded, !embedded.isRunning {
            throw .infrastructure("\(scenario.name): the embedded reference SUT died during the run")
        }
        if result.traffic.unreachable && result.traffic.outcomes.allSatisfy({ $0.status == nil }) {
            let reason = result.traffic.outcomes.first?.error ?? ""
            let hint = RunHealth.tlsHint(
                reason,
                url: base,
                clientCertificate: options.target.clientCertificate != nil,
                names: options.names
            )
            throw .infrastructure("\(scenario.name): the SUT at \(base) did not answer: \(reason)\(hint)")
        }
        if let problem = result.misconfiguration { throw .infrastructure("\(scenario.name): \(problem)") }
    }

    /// Reads back the SUT's stored readings through the profile's `stored-readings:` (before the
    /// lifecycle's reset, which may delete them), unless the run already failed to reach the SUT; a
    /// read-back that fails is a misconfiguration (exit 3). The narrowed read-backs are asked for the
    /// first patients of the `whole` scenario (a shard's part is of it), so that shards ask what one
    /// process would.
    static func readBack(
        into result: inout RunObservation,
        _ scenario: Scenario,
        _ options: LiveOptions,
        runner: LiveRunner,
        base: String,
        naming: WireNaming,
        whole: WholeScenario?
    ) async {
        guard let source = options.target.profile.storedReadings, result.misconfiguration == nil,
            !result.traffic.unreachable
        else {
            return
        }
        var fetch = StoredReadBackFetch(client: runner.client, base: base, source: source, auth: runner.auth)
        fetch.narrowedPatients = Set(
            (whole?.patients ?? scenario.patients.map(\.id)).prefix(ReadBackQuery.patientLimit)
        )
        for request in result.traffic.requests {
            fetch.sent[naming.patient(request.patientID), default: 0] += request.readingCount
        }
        let patients = scenario.patients.map { (scenario: $0.id, wire: naming.patient($0.id)) }
        // A shard's read-back shares the SUT with every other shard's, all at once: it gets the time
        // of the whole scenario's (ten shards of a 250,000-patient ward each read back 25,000 patients,
        // and 300 s ended every one of them short of its last 4 %).
        fetch.deadline = StoredReadBackFetch.deadline(patients: whole?.patients.count ?? patients.count)
        switch await fetch.fetch(patients: patients, readingID: naming.scenarioReadingID) {
        case .success(var stored):
            stored.kinds = source.kinds
            result.areas[StoredReadBack.self] = stored
        case .failure(let problem):
            result.misconfiguration =
                "reading back the stored readings (stored-readings of the profile): \(problem.text)"
        }
    }

    /// Whether the traffic takes the SUT profile's shape rather than the reference contract's: its
    /// routes, ids at the SUT, or MQTT topic.
    static func profileShaped(_ options: LiveOptions, naming: WireNaming) -> Bool {
        !options.target.profile.ingestion.routes.isBuiltIn || !naming.isIdentity
            || options.target.profile.mqtt.topic != .vitalsim || options.target.profile.conformance.kinds != nil
    }

    /// Runs `body` between the profile's enrolment of the scenario's patients and their reset; the
    /// reset follows a run that failed too. A failed step is a misconfiguration (exit 3).
    static func between(
        _ lifecycle: PatientLifecycle,
        of scenario: Scenario,
        _ body: () async throws(HarnessError) -> RunObservation
    ) async throws(HarnessError) -> RunObservation {
        let (enrolled, enrolment) = await lifecycle.enrol()
        let result: RunObservation
        do throws(HarnessError) {
            if let enrolment { throw .infrastructure("\(scenario.name): lifecycle: \(enrolment.message)") }
            result = try await body()
        } catch {
            // Reset what was enrolled even when the run could not go on; the first problem is reported.
            _ = await lifecycle.reset(enrolled)
            throw error
        }
        if let problem = await lifecycle.reset(enrolled) {
            throw .infrastructure(
                "\(scenario.name): lifecycle: \(problem.message) (the SUT may keep this scenario's state)"
            )
        }
        return result
    }

    /// The HCI controllers of the BLE devices' peripherals and of the embedded SUT's gateway: bumble's
    /// virtual controllers for the embedded SUT, the user's `--hci` for a `--target`.
    static func controllers(
        _ setup: ScenarioSetup,
        _ resources: RunResources
    ) throws(HarnessError) -> ([String], [String]) {
        let options = setup.options
        guard setup.overBLE else { return (options.ble.hci, []) }
        guard options.pacing.speed != nil else {
            throw .usage(
                "\(setup.name): \(options.names[.bleMode]) needs \(options.names[.speed]) (e.g. 60): BLE devices send on their own schedule and a gateway stamps heart rate and SpO2 on receipt"
            )
        }
        let count = setup.bleDevices.count
        guard options.target.url == nil else {
            guard options.ble.hci.count == count else {
                throw .usage(
                    "\(setup.name) has \(count) BLE device(s) (\(setup.bleKeys.joined(separator: ", "))): give one \(options.names[.hci]) per device, in that order (\(options.ble.hci.count) given)"
                )
            }
            return (options.ble.hci, [])
        }
        guard options.ble.hci.isEmpty else {
            throw .usage(
                "\(options.names[.hci]) values are for a SUT whose gateway connects to the BLE devices (\(options.names[.target])); for the embedded SUT vitalsim starts virtual controllers itself"
            )
        }
        guard
            let python = BumbleControllers.python(
                explicit: options.ble.bumblePython,
                executable: options.embedded.executable
            )
        else {
            throw .infrastructure(
                "\(setup.name): \(options.names[.bleMode]) needs bumble's virtual controllers: run ci/setup-debian.sh (it creates .venv-bumble) or give \(options.names[.bumblePython])"
            )
        }
        try? FileManager.default.createDirectory(atPath: setup.scratch, withIntermediateDirectories: true)
        let bumbleControllers = try BumbleControllers(
            python: python,
            count: 2 * count,
            log: setup.scratch + "/bumble.log"
        )
        resources.controllers = bumbleControllers
        return (
            bumbleControllers.ports.prefix(count).map { "tcp:127.0.0.1:\($0)" },
            bumbleControllers.ports.suffix(count).map { "tcp:127.0.0.1:\($0)" }
        )
    }

    /// The MQTT broker: `--mqtt`, or a mosquitto started for the embedded SUT when the scenario needs one.
    static func mqttEndpoint(
        _ setup: ScenarioSetup,
        _ resources: RunResources
    ) throws(HarnessError) -> (host: String, port: Int)? {
        let options = setup.options
        guard setup.usesMQTT || setup.observesMQTT, options.mqtt.broker == nil else { return options.mqtt.broker }
        guard options.target.url == nil else {
            throw .usage(
                "\(setup.name) " + (setup.usesMQTT ? "sends over MQTT" : "observes alerts over MQTT")
                    + ": give \(options.names[.mqttBroker]), the broker the SUT at \(options.target.url ?? "") uses"
            )
        }
        let access = setup.credentials?.brokerAccess(
            topics: options.target.profile.mqttTopics.isEmpty ? [.vitalsim] : options.target.profile.mqttTopics
        )
        let mosquittoBroker = try MosquittoBroker(
            directory: setup.scratch + "-mosquitto",
            maxQueued: options.mqtt.brokerQueue,
            access: access
        )
        resources.broker = mosquittoBroker
        return (mosquittoBroker.host, mosquittoBroker.port)
    }

    /// The webhook receiver (`--observe webhook`), whose URL the SUT posts alerts to.
    static func webhookReceiver(_ setup: ScenarioSetup, _ resources: RunResources) async throws(HarnessError) -> String?
    {
        guard setup.options.push.channels.contains(.webhook) else { return nil }
        let (observer, url) = try await PushObserver.webhook(
            port: setup.options.push.webhookPort,
            read: pushedAlert(setup, .webhook)
        )
        resources.observers.append(observer)
        if setup.options.target.url != nil {
            setup.options.note("\(setup.name): webhook receiver at \(url) — the SUT must POST its alerts there")
        }
        return url
    }

    /// The SUT's base URL and CA: `--target`, or the embedded reference SUT started for this scenario.
    static func sut(
        _ setup: ScenarioSetup,
        _ resources: RunResources,
        endpoint: (host: String, port: Int)?,
        webhook: String?,
        gatewayHCI: [String]
    ) throws(HarnessError) -> (String, String?) {
        let options = setup.options
        if let target = options.target.url { return (target, options.target.caFile) }
        var credentials: EmbeddedSUT.Credentials?
        if let runCredentials = setup.credentials {
            try? FileManager.default.createDirectory(atPath: setup.scratch, withIntermediateDirectories: true)
            let file = setup.scratch + "/credentials.yaml"
            try runCredentials.write(to: file)
            credentials = EmbeddedSUT.Credentials(
                file: file,
                mqtt: resources.broker == nil ? nil : (RunCredentials.sutUser, runCredentials.sutPassword)
            )
        }
        let sut = try EmbeddedSUT(
            credentials: credentials,
            executable: options.embedded.executable,
            scenario: setup.path,
            faults: options.embedded.faults,
            directory: setup.scratch,
            mqtt: setup.usesMQTT || setup.observesMQTT ? endpoint.map { "\($0.host):\($0.port)" } : nil,
            mqttCAFile: options.mqtt.caFile,
            mqttTopics: options.target.profile.mqttTopics.map(\.description),
            webhook: webhook,
            bleGateway: gatewayHCI,
            bleSpeed: setup.overBLE ? options.pacing.speed : nil,
            otlpEndpoint: options.embedded.otlpEndpoint
        )
        resources.embedded = sut
        return (sut.base, sut.caFile)
    }

    /// The MQTT publisher of the scenario's MQTT devices, subscribed to the SUT's rejections and
    /// confirmations and, with `brokerCounters` (the embedded broker), to its drop counter. Through a
    /// network's weather (`weather`, the proxy in front of the broker), the publisher only publishes
    /// and a second connection, straight to the broker, reads the SUT's verdicts: the weather cuts
    /// the devices' connection, not the harness's instrument.
    static func publisher(
        _ setup: ScenarioSetup,
        endpoint: (host: String, port: Int)?,
        through weather: WeatherProxy?,
        brokerCounters: Bool
    ) async throws(HarnessError) -> (client: MQTTClient, verdicts: MQTTClient?)? {
        guard setup.usesMQTT, let endpoint else { return nil }
        do throws(MQTTError) {
            guard let weather else {
                let client = try await mqttConnection(setup, endpoint, id: "", subscribed: true, brokerCounters)
                return (client, nil)
            }
            let proxied = (host: endpoint.host, port: weather.port)
            let client = try await mqttConnection(setup, proxied, id: "", subscribed: false, false)
            let verdicts = try await mqttConnection(setup, endpoint, id: "-verdicts", subscribed: true, brokerCounters)
            return (client, verdicts)
        } catch { throw .infrastructure("\(setup.name): \(error)\(mqttHint(error))") }
    }

    /// One connection of the harness to the broker at `endpoint`; `subscribed`: to the SUT's
    /// rejections and confirmations, and with `brokerCounters` to the broker's drop counter.
    static func mqttConnection(
        _ setup: ScenarioSetup,
        _ endpoint: (host: String, port: Int),
        id suffix: String,
        subscribed: Bool,
        _ brokerCounters: Bool
    ) async throws(MQTTError) -> MQTTClient {
        let mqttClient = try MQTTClient(
            setup.options.mqtt.credentials.applied(
                to: .init(
                    host: endpoint.host,
                    port: endpoint.port,
                    clientID: "vitalsim-run-\(getpid())-\(setup.name)\(suffix)",
                    cleanStart: !setup.options.mqtt.persistentSession,
                    caFile: setup.options.mqtt.caFile
                )
            )
        )
        try await mqttClient.connect()
        guard subscribed else { return mqttClient }
        if let rejections = setup.options.target.profile.mqtt.rejections {
            try await mqttClient.subscribeAcknowledged(rejections.topic, qos: 1)
        }
        // Confirmations at QoS 0: at QoS 1 the PUBACKs this client owes for them share its network
        // loop with the publishes and raised reading → ack p50 from 3.3 to 18 ms (copd-desaturation
        // at --speed 300); the broker delivers QoS 0 to a connected client without a queue limit.
        if let confirmations = setup.options.target.profile.mqtt.confirmations {
            try await mqttClient.subscribeAcknowledged(confirmations.topic, qos: 0)
        }
        if brokerCounters { try await mqttClient.subscribeAcknowledged(LiveRunner.droppedTopic, qos: 0) }
        return mqttClient
    }

    /// A hint for a broker that refused the harness's credentials.
    static func mqttHint(_ error: MQTTError) -> String {
        guard case .refused(let reason) = error,
            reason.lowercased().contains("authori") || reason.lowercased().contains("password")
        else { return "" }
        return
            " (give the broker's credentials in the SUT profile's mqtt: username and password-env, or a client certificate)"
    }

    /// How a pushed message is read: the profile's `alerts.push.item` and `alerts.fields`.
    /// How a message pushed on `channel` is read: an alert through the profile's fields, nil when
    /// it is none (counted in the SUT contract when the channel is the only alert source).
    static func pushedAlert(_ setup: ScenarioSetup, _ channel: PushChannel) -> @Sendable ([UInt8]) -> ObservedAlert? {
        let source = setup.options.target.profile.alerts
        let mapping = setup.options.target.profile.mapping
        let contract = source.pushOnly == channel ? setup.contract : nil
        return { bytes in
            switch source.read(pushed: bytes, mapping: mapping) {
            case .success(let alert): return alert
            case .failure(let why):
                contract?.pushedUnreadable(why.reason)
                return nil
            }
        }
    }

    /// The SSE and MQTT push observers (`--observe`); the webhook receiver is already listening.
    static func observe(
        _ setup: ScenarioSetup,
        _ resources: RunResources,
        base: String,
        ca: String?,
        endpoint: (host: String, port: Int)?
    ) async throws(HarnessError) {
        let options = setup.options
        for kind in options.push.channels {
            switch kind {
            case .webhook: continue
            case .sse:
                // A static credential only: the stream is opened once (an OAuth2 token is not renewed on it).
                let headers =
                    options.target.headers
                    + (options.target.profile.auth.readerHeaders ?? options.target.profile.auth.headers)
                resources.observers.append(
                    .sse(
                        url: SUTProfile.resolve(options.target.profile.alerts.push.sse, base: base),
                        caFile: ca,
                        insecure: options.target.insecure,
                        headers: headers,
                        clientCertificate: options.target.clientCertificate,
                        read: pushedAlert(setup, .sse)
                    )
                )
            case .mqtt:
                guard let endpoint else { continue }
                do throws(MQTTError) {
                    resources.observers.append(
                        try await .mqtt(
                            host: endpoint.host,
                            port: endpoint.port,
                            clientID: "vitalsim-observe-\(getpid())-\(setup.name)",
                            caFile: options.mqtt.caFile,
                            credentials: options.mqtt.credentials,
                            topic: options.target.profile.alerts.push.mqttTopic,
                            read: pushedAlert(setup, .mqtt)
                        )
                    )
                } catch {
                    throw .infrastructure("\(setup.name): observing alerts over MQTT: \(error)\(mqttHint(error))")
                }
            }
        }
    }

    /// The ids the scenario's patients and devices have at the SUT (the profile's `lifecycle`),
    /// which must also be able to pass on the patients' own alert limits.
    static func wireNaming(
        _ scenario: Scenario,
        _ options: LiveOptions,
        bleLink: Bool
    ) throws(HarnessError) -> WireNaming {
        let naming: WireNaming
        do throws(WireNamingError) {
            naming = try options.target.profile.lifecycle.naming(run: options.runID, scenario: scenario)
        } catch {
            throw .usage("\(scenario.name): \(error)")
        }
        if bleLink, !naming.isIdentity {
            throw .usage(
                "\(scenario.name): lifecycle.patient-id and device-id cannot apply to devices carried over \(options.names[.bleMode]) (the SUT's gateway names them); relay them instead"
            )
        }
        // Alerts judged by limits the SUT was never told would read as clinical failures.
        if let problem = options.target.profile.lifecycle.limitsProblem(scenario) {
            throw .infrastructure("\(scenario.name): \(problem) (SUT profile \(options.target.profile.name))")
        }
        return naming
    }

    /// Under a network's weather (``ScenarioSetup/network``), a proxy in front of the SUT's HTTP(S)
    /// endpoint for the devices' requests (`http`: the base URL through it) and, when the scenario's
    /// devices publish over MQTT, one in front of the broker for their connection. The harness's own
    /// reads (alerts, read-back, the SUT's verdicts on MQTT messages) go direct.
    static func weatherProxies(
        _ setup: ScenarioSetup,
        _ resources: RunResources,
        base: String,
        broker: (host: String, port: Int)?
    ) throws(HarnessError) -> (http: String, mqtt: WeatherProxy?)? {
        guard let weather = setup.network else { return nil }
        guard let url = URLComponents(string: base), let host = url.host else {
            throw .usage("--network: the SUT's URL \(base) names no host")
        }
        let http = try WeatherProxy(weather, upstream: host, port: url.port ?? (url.scheme == "https" ? 443 : 80))
        resources.weather.append(http)
        var mqtt: WeatherProxy?
        if setup.usesMQTT, let broker {
            if setup.options.mqtt.qos == 0, weather.resets > 0 {
                throw .usage(
                    "\(setup.name): network \(weather.name) cuts connections (resets \(NetworkWeather.percent(weather.resets))), and MQTT messages at QoS 0 lost with them could not be told from readings the SUT lost; use --qos 1, or a network with resets=0"
                )
            }
            let proxy = try WeatherProxy(weather, upstream: broker.host, port: broker.port)
            resources.weather.append(proxy)
            mqtt = proxy
        }
        let allowance = weather.allowance(reconnecting: mqtt != nil)
        setup.options.note(
            "\(setup.name): \(weather.summary) for the devices' \(mqtt == nil ? "HTTP requests" : "HTTP requests and MQTT connection") (latency budgets allow \(NetworkWeather.ms(allowance)) more)"
        )
        return (http.url(replacing: base), mqtt)
    }

    /// The network the scenario ran under and its budgets' allowance, for the judge; says what the
    /// weather did to the devices' traffic.
    static func weathered(
        _ setup: ScenarioSetup,
        _ resources: RunResources,
        mqtt: WeatherProxy?
    ) -> (summary: String, allowance: Double)? {
        guard let weather = setup.network else { return nil }
        let http = resources.weather.first.map(\.tally).flatMap { $0.connections == 0 ? nil : $0 }
        let carried = [
            http.map { "the devices' HTTP requests \($0)" },
            mqtt.map { "the devices' MQTT connection \($0.tally)" },
        ]
        setup.options.note("\(setup.name): the network carried \(carried.compactMap { $0 }.joined(separator: "; "))")
        return (weather.summary, weather.allowance(reconnecting: mqtt != nil).seconds * 1000)
    }

    /// The runner that sends the plan to the SUT and polls its alerts.
    static func runner(
        _ setup: ScenarioSetup,
        _ resources: RunResources,
        base: String,
        ingestionBase: String? = nil,
        ca: String?,
        client: (client: MQTTClient, verdicts: MQTTClient?)?,
        naming: WireNaming
    ) -> LiveRunner {
        let options = setup.options
        let sut = resources.embedded
        let alive: @Sendable () -> Bool = { sut?.isRunning ?? true }
        let name = setup.name
        var target = options.target
        target.caFile = ca
        var hooks = LiveRunner.Hooks()
        let report = options.progress
        let metrics = options.metrics
        if report != nil || metrics != nil {
            hooks.progress = { @Sendable p in
                report?(name, p)
                metrics?.progress(scenario: name, fraction: p.fraction)
            }
        }
        let trace = RequestTrace(run: options.runID, scenario: setup.scenario.name)
        let spans = options.tracer.map { RunSpans(tracer: $0, trace: trace, shard: options.sharding.label) }
        if let metrics {
            hooks.dispatched = { metrics.dispatched(scenario: name, lagSeconds: $0) }
        }
        if metrics != nil || spans != nil {
            hooks.answered = { request, outcome, seconds in
                metrics?.answered(
                    scenario: name,
                    status: outcome.status,
                    readings: request.readings.count,
                    latencySeconds: seconds
                )
                spans?.answered(request, outcome, sinceIntended: seconds)
            }
        }
        if let spans {
            hooks.observed = { spans.observed($0, carrier: $1, sinceDue: $2, sinceSeen: $3) }
        }
        hooks.isAlive = alive
        hooks.meterHiccups = options.pacing.meterHiccups
        hooks.ingestionBase = ingestionBase
        // Alerts of patients that are not the scenario's (another scenario's on a shared SUT) are
        // not this run's to judge, with or without a lifecycle in the profile.
        let patients = Set(setup.scenario.patients.map(\.id))
        hooks.keepsPatient = { [keeps = options.keepsPatient] in patients.contains($0) && keeps($0) }
        hooks.note = { [note = options.note] in note("\(name): \($0)") }
        hooks.names = options.names
        let mqtt = client.map { client in
            LiveRunner.MQTTLink(
                client: client.client,
                verdicts: client.verdicts,
                qos: options.mqtt.qos,
                only: options.target.profile.ingestion.routes.isBuiltIn
                    && setup.scenario.patients.allSatisfy { $0.devices.allSatisfy { $0.transport == .mqtt } },
                brokerCounters: resources.broker != nil
            )
        }
        return LiveRunner(
            base: base,
            target: target,
            pacing: options.pacing,
            mqtt: mqtt,
            observers: resources.observers,
            naming: naming,
            contract: setup.contract,
            trace: trace,
            hooks: hooks
        )
    }

    /// The BLE devices as live peripherals, connected by the SUT's gateway before the run starts;
    /// nil without a BLE link.
    static func bleLink(
        _ setup: ScenarioSetup,
        _ resources: RunResources,
        peripheralHCI: [String],
        clock: AnyClock<Duration>
    ) throws(HarnessError) -> LiveRunner.Alongside? {
        let options = setup.options
        guard setup.overBLE, let speed = options.pacing.speed else { return nil }
        let captures = options.reports.evidence.map { "\($0)/\(setup.name)/ble-live" }
        if let captures {
            try? FileManager.default.createDirectory(atPath: captures, withIntermediateDirectories: true)
        }
        let link = try BLELink(
            scenario: setup.scenario,
            seed: options.pacing.seed,
            hci: peripheralHCI,
            speed: speed,
            captureDirectory: captures
        )
        resources.link = link
        if options.target.url != nil {
            options.note(
                "\(setup.name): BLE devices advertising on \(peripheralHCI.joined(separator: ", ")) — waiting for the SUT's gateway to subscribe"
            )
        }
        try link.connect(timeout: options.target.url == nil ? 60 : 300)
        return link.alongside(startUnixMilliseconds: setup.scenario.startUnixMilliseconds, clock: clock)
    }
}
