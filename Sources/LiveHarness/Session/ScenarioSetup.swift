import Foundation
import Judge
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
    /// The FHIR Subscription receiver (`alerts.source: fhir-subscription`).
    var subscriptions: SubscriptionReceiver?
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

    /// The scenario's traffic in the SUT profile's shape (routes, ids at the SUT, MQTT topic),
    /// generated as it is consumed.
    func trafficPlan(naming: WireNaming) -> TrafficPlanStream {
        let routes = options.target.profile.sendingRoutes
        return TrafficPlanStream(
            for: scenario,
            seed: options.pacing.seed,
            bleLink: overBLE,
            routes: routes,
            naming: naming,
            mqttTopic: options.target.profile.mqtt.topic,
            deviceTimes: options.target.profile.alerts.fields.evidence == nil
                || options.target.profile.alerts.clock == .server
        )
    }

    /// Whether the traffic takes the SUT profile's shape rather than the reference contract's: its
    /// routes, ids at the SUT, or MQTT topic.
    func profileShaped(naming: WireNaming) -> Bool {
        !options.target.profile.ingestion.routes.isBuiltIn || !naming.isIdentity
            || options.target.profile.mqtt.topic != .vitalsim || options.target.profile.conformance.kinds != nil
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
        // Alerts judged by limits the SUT was never told would read as clinical failures; a SUT
        // claiming no rule is judged on no alert, so its limits do not matter.
        if options.target.profile.conformance.rules?.isEmpty != true,
            let problem = options.target.profile.lifecycle.limitsProblem(scenario)
        {
            throw .infrastructure("\(scenario.name): \(problem) (SUT profile \(options.target.profile.name))")
        }
        return naming
    }
}
