import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

extension ScenarioSession {
    /// Starts the helpers of `setup`'s run into `resources`, in the order they depend on each other,
    /// and makes the runner.
    static func connect(
        _ setup: ScenarioSetup,
        _ resources: RunResources,
        naming: WireNaming
    ) async throws(HarnessError) -> Connections {
        let connector = SessionConnector(setup: setup, resources: resources)
        let (peripheralHCI, gatewayHCI) = try connector.controllers()
        let endpoint = try connector.mqttEndpoint()
        let webhook = try await connector.webhookReceiver()
        let (base, ca) = try connector.sut(endpoint: endpoint, webhook: webhook, gatewayHCI: gatewayHCI)
        let weather = try connector.weatherProxies(base: base, broker: endpoint)
        let client = try await connector.publisher(
            endpoint: endpoint,
            through: weather?.mqtt,
            brokerCounters: resources.broker != nil
        )
        try await connector.observe(base: base, ca: ca, endpoint: endpoint)
        let runner = connector.runner(base: base, ingestionBase: weather?.http, ca: ca, client: client, naming: naming)
        return Connections(
            base: base,
            peripheralHCI: peripheralHCI,
            mqttWeather: weather?.mqtt,
            runner: runner,
            webhook: webhook
        )
    }
}

/// What one scenario's run connects before it starts, each helper kept in `resources` (so that it
/// is stopped with the run): bumble's controllers, mosquitto, the webhook receiver, the embedded SUT,
/// the network's proxies, the MQTT publisher, the push observers, and the runner over them.
struct SessionConnector {
    let setup: ScenarioSetup
    let resources: RunResources

    /// The HCI controllers of the BLE devices' peripherals and of the embedded SUT's gateway: bumble's
    /// virtual controllers for the embedded SUT, the user's `--hci` for a `--target`.
    func controllers() throws(HarnessError) -> ([String], [String]) {
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
    func mqttEndpoint() throws(HarnessError) -> (host: String, port: Int)? {
        let options = setup.options
        guard setup.usesMQTT || setup.observesMQTT, options.mqtt.broker == nil else { return options.mqtt.broker }
        if let problem = options.missingBroker(setup.scenario) { throw .usage("\(setup.name) \(problem)") }
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
    func webhookReceiver() async throws(HarnessError) -> String? {
        guard setup.options.push.channels.contains(.webhook) else { return nil }
        if let settings = setup.options.target.profile.alerts.subscriptions {
            let receiver = try await SubscriptionReceiver.start(
                settings: settings,
                port: setup.options.push.webhookPort,
                contract: setup.contract
            )
            resources.subscriptions = receiver
            resources.observers.append(receiver.observer)
            return nil
        }
        let (observer, url) = try await PushObserver.webhook(
            port: setup.options.push.webhookPort,
            settings: setup.options.target.profile.alerts.webhook,
            contract: setup.contract,
            read: pushedAlert(.webhook)
        )
        resources.observers.append(observer)
        if setup.options.target.url != nil {
            setup.options.note("\(setup.name): webhook receiver at \(url) — the SUT must POST its alerts there")
        }
        return url
    }
    /// The SUT's base URL and CA: `--target`, or the embedded reference SUT started for this scenario.
    func sut(
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
            webhookSignature: options.target.profile.alerts.webhook.signature,
            bleGateway: gatewayHCI,
            bleSpeed: setup.overBLE ? options.pacing.speed : nil,
            otlpEndpoint: options.embedded.otlpEndpoint
        )
        resources.embedded = sut
        return (sut.base, sut.caFile)
    }
    /// Under a network's weather (``ScenarioSetup/network``), a proxy in front of the SUT's HTTP(S)
    /// endpoint for the devices' requests (`http`: the base URL through it) and, when the scenario's
    /// devices publish over MQTT, one in front of the broker for their connection. The harness's own
    /// reads (alerts, read-back, the SUT's verdicts on MQTT messages) go direct.
    func weatherProxies(
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
    /// The MQTT publisher of the scenario's MQTT devices, subscribed to the SUT's rejections and
    /// confirmations and, with `brokerCounters` (the embedded broker), to its drop counter. Through a
    /// network's weather (`weather`, the proxy in front of the broker), the publisher only publishes
    /// and a second connection, straight to the broker, reads the SUT's verdicts: the weather cuts
    /// the devices' connection, not the harness's instrument.
    func publisher(
        endpoint: (host: String, port: Int)?,
        through weather: WeatherProxy?,
        brokerCounters: Bool
    ) async throws(HarnessError) -> (client: MQTTClient, verdicts: MQTTClient?)? {
        guard setup.usesMQTT, let endpoint else { return nil }
        do throws(MQTTError) {
            guard let weather else {
                let client = try await mqttConnection(endpoint, id: "", subscribed: true, brokerCounters)
                return (client, nil)
            }
            let proxied = (host: endpoint.host, port: weather.port)
            let client = try await mqttConnection(proxied, id: "", subscribed: false, false)
            let verdicts = try await mqttConnection(endpoint, id: "-verdicts", subscribed: true, brokerCounters)
            return (client, verdicts)
        } catch { throw .infrastructure("\(setup.name): \(error)\(mqttHint(error))") }
    }
    /// One connection of the harness to the broker at `endpoint`; `subscribed`: to the SUT's
    /// rejections and confirmations, and with `brokerCounters` to the broker's drop counter.
    func mqttConnection(
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
    func mqttHint(_ error: MQTTError) -> String {
        guard case .refused(let reason) = error,
            reason.lowercased().contains("authori") || reason.lowercased().contains("password")
        else { return "" }
        return
            " (give the broker's credentials in the SUT profile's mqtt: username and password-env, or a client certificate)"
    }
    /// How a pushed message is read: the profile's `alerts.push.item` and `alerts.fields`.
    /// How a message pushed on `channel` is read: an alert through the profile's fields, nil when
    /// it is none (counted in the SUT contract when the channel is the only alert source).
    func pushedAlert(_ channel: PushChannel) -> @Sendable ([UInt8]) -> ObservedAlert? {
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
    func observe(
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
                        read: pushedAlert(.sse)
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
                            read: pushedAlert(.mqtt)
                        )
                    )
                } catch {
                    throw .infrastructure("\(setup.name): observing alerts over MQTT: \(error)\(mqttHint(error))")
                }
            }
        }
    }
    /// The runner that sends the plan to the SUT and polls its alerts.
    func runner(
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
}
