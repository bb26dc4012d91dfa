import Foundation
import Judge
import Locking
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// One scenario's live run, from its helpers to its verdict: ``prepare(_:_:options:contract:whole:)``
/// starts what the run needs (the helper processes, the SUT, the connections, the runner), ``run(awaiting:)``
/// sends the traffic between the lifecycle's enrolment and reset with each conformance area's probe
/// at its moment (during the run, after it, after the reset), and ``judge(_:against:)`` makes the
/// verdict. It owns what each step hands the next — the setup, the ids at the SUT, the base URL,
/// the runner, the lifecycle, the care team's client, the helper processes — and ``stop()`` ends
/// its helpers.
final class ScenarioSession {
    let setup: ScenarioSetup
    /// The ids of the scenario's patients and devices at the SUT.
    let naming: WireNaming
    /// In a shard, what it knows of the whole scenario its part is of (nil: unsharded).
    let whole: WholeScenario?
    /// The scenario's traffic in the SUT profile's shape, generated as the runner consumes it.
    let plan: TrafficPlanStream
    /// The helper processes and connections, stopped together.
    let resources: RunResources
    /// The SUT's base URL: the target's, or the embedded SUT's.
    let base: String
    /// The HCI controllers of the BLE devices' peripherals (empty without a BLE link).
    let peripheralHCI: [String]
    /// The proxy in front of the broker for the devices' MQTT connection under a network's weather.
    let mqttWeather: WeatherProxy?
    let runner: LiveRunner
    /// The profile's enrolment and reset of the scenario's patients.
    let lifecycle: PatientLifecycle
    /// The care team's actions and inboxes at the SUT.
    let careTeam: CareTeamClient
    /// The conformance areas whose probes the run carries out.
    let registry: ConformanceRegistry

    private init(
        setup: ScenarioSetup,
        naming: WireNaming,
        whole: WholeScenario?,
        resources: RunResources,
        connections: Connections,
        registry: ConformanceRegistry
    ) {
        self.setup = setup
        self.naming = naming
        self.whole = whole
        self.resources = resources
        self.registry = registry
        plan = setup.trafficPlan(naming: naming)
        base = connections.base
        peripheralHCI = connections.peripheralHCI
        mqttWeather = connections.mqttWeather
        runner = connections.runner
        lifecycle = PatientLifecycle(
            setup.options.target.profile.lifecycle,
            naming: naming,
            run: setup.options.runID,
            scenario: setup.scenario,
            base: base,
            client: runner.client,
            auth: runner.auth,
            webhook: connections.webhook
        )
        careTeam = CareTeamClient(setup, naming: naming, runner: runner, base: base)
    }

    /// What ``prepare(_:_:options:contract:whole:)`` connected before the session exists.
    struct Connections {
        var base: String
        var peripheralHCI: [String]
        var mqttWeather: WeatherProxy?
        var runner: LiveRunner
        /// The webhook receiver's URL (its key in it), for enrolment templates.
        var webhook: String?
    }

    /// Starts what one scenario's run needs: the virtual BLE controllers, the broker, the webhook
    /// receiver, the SUT (or the target), the network's weather, the MQTT publisher and the push
    /// observers, then the runner. A failure stops whatever had started; `contract` records what
    /// the SUT answered (kept when the run fails).
    static func prepare(
        _ path: String,
        _ scenario: Scenario,
        options: LiveOptions,
        contract: ContractLog = ContractLog(),
        whole: WholeScenario? = nil,
        registry: ConformanceRegistry = .standard
    ) async throws(HarnessError) -> ScenarioSession {
        var options = options
        // An alert source that only pushes is observed like --observe, and read instead of a list.
        if let channel = options.target.profile.alerts.pushOnly, !options.push.channels.contains(channel) {
            options.push.channels.append(channel)
        }
        let overBLE = options.ble.mode == .hci && !scenario.bleDevices.isEmpty
        let naming = try ScenarioSetup.wireNaming(scenario, options, bleLink: overBLE)
        let setup = ScenarioSetup(path: path, scenario: scenario, options: options, contract: contract, naming: naming)
        let resources = RunResources()
        do throws(HarnessError) {
            let connections = try await connect(setup, resources, naming: naming)
            return ScenarioSession(
                setup: setup,
                naming: naming,
                whole: whole,
                resources: resources,
                connections: connections,
                registry: registry
            )
        } catch {
            resources.stop()
            throw error
        }
    }

    /// Ends the run's helper processes and connections.
    func stop() { resources.stop() }

    /// What a scenario's run observed, with its traffic digest (in a shard, the whole scenario's,
    /// nil unless this shard computes it).
    struct Outcome {
        var record: RunObservation
        var digest: String?
    }

    /// Sends the scenario's traffic between the lifecycle's enrolment and reset, with each
    /// conformance area's probe at its moment: those that act during the run as pauses of its
    /// schedule, those after it before the reset, those after the reset last (in the registry's
    /// order). `awaiting` are the alerts waited for at the end. Throws when the run cannot be judged.
    func run(awaiting: AlertWait) async throws(HarnessError) -> Outcome {
        let probes = registry.areas.compactMap { $0 as? any AreaProbe }
        var record = try await betweenEnrolmentAndReset { () async throws(HarnessError) -> RunObservation in
            try await checkNothingLeftOver()
            let alongside = try bleLink()
            let pauses = probes.filter { $0.phase == .duringRun }.map { $0.pauses(in: self) }
            var record = await runner.run(
                plan,
                span: setup.scenario.duration.milliseconds,
                startUnixMilliseconds: setup.scenario.startUnixMilliseconds,
                alongside: alongside,
                origin: setup.options.origin,
                awaiting: awaiting,
                barriers: pauses.flatMap(\.barriers)
            )
            for pause in pauses { pause.record(&record) }
            settleEpisodes(&record)
            record.traffic.trace = runner.trace
            for probe in probes where probe.phase == .afterRun { await probe.observe(in: self, into: &record) }
            return record
        }
        for probe in probes where probe.phase == .afterReset { await probe.observe(in: self, into: &record) }
        record.traffic.network = weathered()
        record.traffic.ble = resources.link?.summary(devices: setup.bleKeys)
        record.traffic.withheld = (plan.withheldCount, plan.withheldCorrupt.mapValues(\.rawValue))
        try checkJudgeable(record)
        return Outcome(record: record, digest: trafficDigest())
    }

    /// Runs `body` between the profile's enrolment of the scenario's patients and their reset; the
    /// reset follows a run that failed too. A failed step is a misconfiguration (exit 3).
    func betweenEnrolmentAndReset(
        _ body: () async throws(HarnessError) -> RunObservation
    ) async throws(HarnessError) -> RunObservation {
        let (enrolled, enrolment) = await lifecycle.enrol()
        var subscriptions: [String] = []
        let record: RunObservation
        do throws(HarnessError) {
            if let enrolment { throw .infrastructure("\(setup.name): lifecycle: \(enrolment.message)") }
            try await subscribe(enrolled, into: &subscriptions)
            record = try await body()
            try await checkSubscriptions()
        } catch {
            // Reset what was enrolled even when the run could not go on; the first problem is reported.
            _ = await unsubscribe(subscriptions)
            _ = await lifecycle.reset(enrolled)
            throw error
        }
        if let problem = await unsubscribe(subscriptions) {
            throw .infrastructure("\(setup.name): alerts.subscription: \(problem.message)")
        }
        if let problem = await lifecycle.reset(enrolled) {
            throw .infrastructure(
                "\(setup.name): lifecycle: \(problem.message) (the SUT may keep this scenario's state)"
            )
        }
        return record
    }

    /// The digest of the scenario's whole traffic (as relayed) in the reference contract's form, so
    /// one golden file serves both modes and every SUT profile; in a shard, the whole scenario's, by
    /// the shard that digests it (nil for the others).
    func trafficDigest() -> String? {
        let seed = setup.options.pacing.seed
        if let whole {
            return whole.digested.map { TrafficPlan.streamedDigest(for: $0, seed: seed) }
        }
        if setup.overBLE || setup.profileShaped(naming: naming) {
            return TrafficPlan.streamedDigest(for: setup.scenario, seed: seed)
        }
        return plan.digest ?? ""
    }

    /// Throws when the SUT lists alerts of the scenario's patients before anything was sent (left by
    /// an earlier run), or its alert list passed a bound of the harness: the run cannot be judged.
    func checkNothingLeftOver() async throws(HarnessError) {
        let leftOver: [ObservedAlert]
        do throws(HarnessError) { leftOver = try await runner.leftOverAlerts() } catch {
            throw .infrastructure("\(setup.name): \(error.description)")
        }
        if let problem = LiveRunner.leftOverProblem(leftOver) { throw .infrastructure("\(setup.name): \(problem)") }
    }

    /// Throws when the run cannot be judged: the embedded SUT died, the SUT never answered, or the run
    /// revealed a misconfiguration.
    func checkJudgeable(_ record: RunObservation) throws(HarnessError) {
        if let embedded = resources.embedded, !embedded.isRunning {
            throw .infrastructure("\(setup.name): the embedded reference SUT died during the run")
        }
        let outcomes = record.traffic.outcomes
        if record.traffic.unreachable && outcomes.allSatisfy({ $0.status == nil }) {
            let reason = outcomes.first?.error ?? ""
            let hint = RunHealth.tlsHint(
                reason,
                url: base,
                clientCertificate: setup.options.target.clientCertificate != nil,
                names: setup.options.names
            )
            throw .infrastructure("\(setup.name): the SUT at \(base) did not answer: \(reason)\(hint)")
        }
        if let problem = record.misconfiguration { throw .infrastructure("\(setup.name): \(problem)") }
    }
}
