import Foundation
import Judge
import RunRecord
import SUTAdapter
import Tracing
import Traffic
import Transports
import VitalSimCore

/// The configuration of a live run (`vitalsim run`, `record`, `shrink`), in the groups the command
/// line shows them: the SUT and how it is reached, the embedded reference SUT, pacing, MQTT, push
/// channels, Bluetooth, reports and sharding. The library names no command-line flag: its messages
/// name a setting through ``names``, which the command line fills with its flags.
package struct LiveOptions: Sendable {
    /// The SUT, how it is reached and how it is spoken to.
    package var target = Target()
    /// The reference SUT a run starts for each scenario when it has no ``Target/url``.
    package var embedded: Embedded
    /// How fast readings go, over how many connections, and how long the end of a run waits.
    package var pacing = Pacing()
    /// The broker of the devices that send over MQTT.
    package var mqtt = MQTT()
    /// Push channels observed beside the alert list.
    package var push = Push()
    /// How Bluetooth devices reach the SUT.
    package var ble = BLE()
    /// Golden files and what the run writes.
    package var reports = Reports()
    /// The part of a suite's patients this run runs, and the schedule the shards keep.
    package var sharding = Sharding()
    /// The run id that `{run}` stands for in a SUT profile's `lifecycle`.
    package var runID = "run"
    /// Progress of each scenario: (scenario, requests answered and scenario time reached).
    package var progress: (@Sendable (String, LiveRunner.Progress) -> Void)?
    /// Live metrics of the run (`--metrics-port`, `--otlp-endpoint`), if served or exported.
    package var metrics: HarnessMetrics?
    /// Where the run's spans go (`--otlp-endpoint`): a span per request and per alert (``RunSpans``).
    package var tracer: (any Tracer)?
    /// How messages name the settings they point at (the command line: its flags).
    package var names = SettingNames.words
    /// Messages for the user (the command line prints them on standard error).
    package var note: @Sendable (String) -> Void = { _ in }
    /// The moment scenario time 0 of the scenario being run is due (set from ``Sharding/startAt``).
    var origin: ContinuousClock.Instant?
    /// The network between the devices and the SUT (`--network`); nil: loopback as it is.
    package var network: NetworkWeather?
    /// Whether the alerts of a (scenario) patient are this run's to judge (set per scenario by a shard).
    var keepsPatient: @Sendable (String) -> Bool = { _ in true }

    /// - Parameter executable: the `vitalsim` executable, to start the embedded reference SUT.
    package init(executable: String) { embedded = Embedded(executable: executable) }

    /// The SUT, how it is reached and how it is spoken to.
    package struct Target: Sendable {
        /// The SUT's base URL; nil starts the embedded reference SUT per scenario.
        package var url: String?
        /// How HTTP requests reach the SUT at ``url``: nil sends them with libcurl; a test gives an
        /// exchange that answers in memory (the reference SUT's router in-process).
        package var exchange: (any HTTPExchange)?
        /// CA bundle that verifies the SUT's certificate.
        package var caFile: String?
        /// Whether the SUT's certificate goes unverified.
        package var insecure = false
        /// The client certificate for a SUT that requires mutual TLS (the profile's `tls`).
        package var clientCertificate: ClientCertificate?
        /// Speak HTTP/2 where the SUT offers it (see ``HTTPMultiClient``); HTTP/1.1 keep-alive otherwise.
        package var http2 = false
        /// Extra request headers (credentials), e.g. `Authorization: Bearer …`.
        package var headers: [String] = []
        /// How the SUT is authenticated to and its alerts read; its base URL and TLS settings are
        /// already in ``url``, ``caFile`` and ``insecure``.
        package var profile = SUTProfile.vitalsim
        /// The run owns the SUT at ``url`` as it owns the embedded one (a test's in-process SUT):
        /// with the reference contract and no lifecycle, each scenario's patients are deleted after
        /// it and what is left of them read back.
        package var owned = false

        package init() {}
    }

    /// The reference SUT a run starts for each scenario when it has no target.
    package struct Embedded: Sendable {
        /// The `vitalsim` executable that serves it.
        package var executable: String
        /// Its faulty modes (`FaultPlan` syntax, e.g. `off-by-one`).
        package var faults: [String] = []
        /// The OpenTelemetry collector its spans go to (`--otlp-endpoint`), as the run's own.
        package var otlpEndpoint: String?
    }

    /// How fast readings go, over how many connections, and how long the end of a run waits.
    package struct Pacing: Sendable {
        /// Virtual seconds per wall second; nil sends as fast as the SUT answers.
        package var speed: Double?
        /// The seed of the traffic (nil: the scenario's own).
        package var seed: UInt64?
        /// Parallel connections (workers) to the SUT.
        package var connections = 8
        /// How long the alert list must stay unchanged at the end of a run.
        package var settle: Duration = .seconds(2)
        /// How long past the reading → alert budget an expected alert not yet listed is still waited
        /// for at the end of a run (see ``AlertWait``).
        package var alertWait: Duration = .seconds(30)
        /// How long a request is retried while a SUT that answered before is down (a restart); the run
        /// waits behind it rather than skipping readings.
        package var outageLimit: Duration = .seconds(60)
        /// Whether the harness meters its own stalls, so that a budget failed beside one is not
        /// judged (``LiveRunner/Hooks/meterHiccups``). False only for a caller that does not judge
        /// latency: tests that run many scenarios at once in one process on two cores, where the
        /// harness stalls by design.
        package var meterHiccups = true

        package init() {}
    }

    /// The broker of the devices that send over MQTT.
    package struct MQTT: Sendable {
        /// The broker; nil starts a mosquitto broker for the embedded SUT when a scenario needs one.
        package var broker: (host: String, port: Int)?
        /// QoS of the messages (0, 1 or 2).
        package var qos = 1
        /// `max_queued_messages` of the embedded mosquitto: QoS 1/2 messages it queues per client
        /// beyond those in flight before dropping them (a small value shows what a slow subscriber loses).
        package var brokerQueue = 100_000
        /// CA bundle for TLS to the broker (harness clients and the embedded SUT); nil: plain TCP.
        package var caFile: String?
        /// How the harness's clients authenticate to the broker (the profile's `mqtt`).
        package var credentials = MQTTCredentials()
        /// Keep the publisher's session (and its queued QoS 1/2 messages) across reconnections.
        package var persistentSession = false

        package init() {}
    }

    /// Push channels observed beside the alert list.
    package struct Push: Sendable {
        /// The channels.
        package var channels: [PushObserver.Kind] = []
        /// Port of the webhook receiver; 0 picks a free one.
        package var webhookPort = 0

        package init() {}
    }

    /// How Bluetooth devices reach the SUT.
    package struct BLE: Sendable {
        /// Relayed as a phone gateway relays them, or as live peripherals over HCI.
        package var mode: Mode = .relay
        /// HCI controllers for the devices' peripherals (one per device) when the SUT's own gateway
        /// connects to them; empty starts bumble's virtual controllers for the embedded SUT.
        package var hci: [String] = []
        /// The Python interpreter with bumble; nil looks for `.venv-bumble`.
        package var bumblePython: String?

        package init() {}

        /// How a run carries Bluetooth devices.
        package enum Mode: String, Sendable, CaseIterable {
            /// Decoded and posted over HTTPS, as a phone gateway relays them.
            case relay
            /// As live peripherals over HCI, to the SUT's BLE gateway (a real BLE host stack on both sides).
            case hci
        }
    }

    /// Golden files and what the run writes.
    package struct Reports: Sendable {
        /// Folder of golden files; nil uses each scenario's `golden` path.
        package var goldenDirectory: String?
        /// In CI a missing golden file is an error, never written.
        package var ci = false
        /// Prepare vitals charts for an HTML report.
        package var charts = false
        /// Write an evidence bundle per scenario under this folder.
        package var evidence: String?
        /// The version of the requirements catalogue the checks' ids are of (docs/requirements.md),
        /// written into evidence bundles.
        package var catalogueVersion: String?
        /// The key that signs each evidence bundle's manifest; nil: bundles are unsigned.
        package var signingKey: EvidenceSignature.SigningKey?
        /// Whether each scenario's part of the suite run lists every request and its outcome (for a
        /// shard result file).
        package var listsRequests = false

        package init() {}
    }

    /// The part of a suite's patients this run runs, and the schedule the shards keep.
    package struct Sharding: Sendable {
        /// The shard of the suite's patients this run runs; nil runs them all.
        package var shard: PatientShard?
        /// When scenario time 0 of the first scenario run is due, Unix ms: the shards of one run keep
        /// one schedule.
        package var startAt: Int64?

        package init() {}

        /// The shard as metrics and spans name it: `I/N`, or `all`.
        package var label: String { shard.map { "\($0.index)/\($0.count)" } ?? "all" }
    }
}

extension LiveOptions {
    /// Why `scenario` cannot run against the SUT given by URL: it sends or observes over MQTT and
    /// no broker (`--mqtt`) was given; nil when it can (the embedded SUT gets a broker of its own).
    func missingBroker(_ scenario: Scenario) -> String? {
        guard let url = target.url, mqtt.broker == nil else { return nil }
        let sends = scenario.sendsOverMQTT(target.profile.ingestion.routes)
        guard sends || push.channels.contains(.mqtt) || target.profile.alerts.pushOnly == .mqtt else { return nil }
        return (sends ? "sends over MQTT" : "observes alerts over MQTT")
            + ": give \(names[.mqttBroker]), the broker the SUT at \(url) uses"
    }
}
