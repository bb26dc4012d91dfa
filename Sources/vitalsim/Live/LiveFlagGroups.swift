import ArgumentParser
import Foundation
import Judge
import LiveHarness
import RunRecord
import SUTAdapter
import Transports
import VitalSimCore

/// `run`, `record` and `shrink` options: how the SUT is reached: its profile, URL, TLS and extra headers.
struct TargetFlags: ParsableArguments {
    @Option(
        name: .long,
        help:
            "SUT profile (YAML; docs/sut-profiles.md): how the SUT is reached, authenticated to and its alerts read and mapped. Default: the reference SUT's own contract."
    ) var sut: String?
    @Option(
        name: .long,
        help:
            "Base URL of the SUT, overriding the profile's base-url (default: start the embedded reference SUT, over HTTPS, per scenario)."
    ) var target: String?
    @Option(name: .long, help: "PEM CA bundle to verify the SUT's certificate.") var cacert: String?
    @Flag(name: .long, help: "Do not verify the SUT's certificate (only when you must).") var insecure = false
    @Option(name: .long, help: "PEM client certificate for a SUT that requires mutual TLS (with --client-key).")
    var clientCert: String?
    @Option(name: .long, help: "PEM private key of --client-cert.") var clientKey: String?
    @Flag(
        name: .long,
        help: """
            Speak HTTP/2 where the SUT offers it over TLS (ALPN). Off by default: libcurl 7.88 resets every finished \
            HTTP/2 stream, which servers with rapid-reset protection answer with GOAWAY after a few hundred requests.
            """
    ) var http2 = false
    @Option(
        name: .long,
        help: "Extra request header for every request, e.g. 'Authorization: Bearer TOKEN' (repeatable)."
    ) var header: [String] = []

    func validate() throws {
        if let target, !(target.hasPrefix("http://") || target.hasPrefix("https://")) {
            throw ValidationError("--target must be an http:// or https:// URL")
        }
    }

    /// The run's target: these flags over what the SUT profile says (its base URL and TLS).
    func settings(profile: SUTProfile?) throws -> LiveOptions.Target {
        var settings = LiveOptions.Target()
        settings.profile = profile ?? .vitalsim
        settings.url = target ?? profile?.baseURL
        settings.caFile = cacert ?? profile?.tls.caFile
        settings.insecure = insecure || profile?.tls.insecure == true
        settings.clientCertificate = try clientCertificate(certificate: clientCert, key: clientKey, profile: profile)
        settings.http2 = http2
        settings.headers = header
        return settings
    }
}

/// `run`, `record` and `shrink` options: how fast readings go, how many connections carry them, and how long the run
/// waits.
struct PacingFlags: ParsableArguments {
    @Option(name: .long, help: "Virtual seconds per wall second (a positive number, e.g. 60), or max.") var speed =
        Speed.max
    @Option(
        name: .long,
        help: "Seed overriding each scenario's own (golden files record the seed they were made with)."
    ) var seed: UInt64?
    @Option(name: .long, help: "Parallel connections to the SUT.") var connections = 8
    @Option(
        name: .long,
        help: "Seconds without a new alert, after the last reading is answered, before the alerts are judged."
    ) var settle: Double = 2
    @Option(
        name: .long,
        help:
            "Seconds past the reading → alert budget that an expected alert not yet listed is still waited for after the last answer, so that a late one is judged over budget rather than missed."
    ) var alertWait: Double = 30
    @Option(
        name: .long,
        help:
            "Seconds a request is retried while a SUT (or MQTT broker) that answered before is down (a restart); the run holds its later readings meanwhile, then stops and counts the rest as not sent."
    ) var outageLimit: Double = 60
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The network between the devices and the SUT: a preset (4g, congested-wifi, hospital-gateway) and/or settings latency=, jitter=, loss=, bandwidth=, resets=, partition=LENGTH/EVERY, seed= (comma-separated); none for loopback as it is.",
            discussion:
                "The devices' HTTP requests and MQTT connection go through proxies the run starts in front of the SUT and its broker; latency budgets allow for the network. The harness's own reads go direct. Takes the place of the scenarios' own network: keys."
        )
    ) var network: String?

    func validate() throws {
        if let network {
            do throws(NetworkWeatherError) { _ = try NetworkWeather.parse(network) } catch {
                throw ValidationError("--network: \(error.description)")
            }
        }
        if !(1...64).contains(connections) { throw ValidationError("--connections must be 1...64") }
        if !(0.1...300).contains(settle) { throw ValidationError("--settle must be 0.1...300 seconds") }
        if !(0...3600).contains(alertWait) { throw ValidationError("--alert-wait must be 0...3600 seconds") }
        if !(0...3600).contains(outageLimit) { throw ValidationError("--outage-limit must be 0...3600 seconds") }
    }

    /// The run's pacing.
    var settings: LiveOptions.Pacing {
        var settings = LiveOptions.Pacing()
        settings.speed = speed.factor
        settings.seed = seed
        settings.connections = connections
        settings.settle = .milliseconds(Int64(settle * 1000))
        settings.alertWait = .milliseconds(Int64(alertWait * 1000))
        settings.outageLimit = .milliseconds(Int64(outageLimit * 1000))
        return settings
    }

    /// The network of the devices' traffic (`--network`), checked by ``validate()``.
    var weather: NetworkWeather? { network.flatMap { try? NetworkWeather.parse($0) } }
}

/// `run`, `record` and `shrink` options: the broker devices with transport mqtt publish to, and how.
struct MQTTFlags: ParsableArguments {
    @Option(
        name: .long,
        help: "MQTT broker HOST:PORT for devices with transport mqtt (default: start mosquitto for the embedded SUT)."
    )
    var mqtt: String?
    @Option(name: .long, help: "QoS of MQTT messages: 0, 1 or 2.") var qos = 1
    @Option(
        name: .long,
        help:
            "QoS 1/2 messages the embedded mosquitto queues per client beyond those in flight before dropping them (max_queued_messages; 1...1000000)."
    ) var mqttBrokerQueue = 100_000
    @Option(name: .long, help: "PEM CA bundle: MQTT over TLS, verifying the broker (the embedded SUT uses it too).")
    var mqttCacert: String?
    @Option(
        name: .long,
        help: "MQTT session of the publisher: clean or persistent (queued QoS 1/2 messages survive a reconnection)."
    )
    var mqttSession = MQTTSession.clean

    func validate() throws {
        if !(1...1_000_000).contains(mqttBrokerQueue) {
            throw ValidationError("--mqtt-broker-queue must be 1...1000000")
        }
        if let mqtt, parseHostPort(mqtt) == nil { throw ValidationError("--mqtt must be HOST:PORT, got '\(mqtt)'") }
        if let mqttCacert, !FileManager.default.fileExists(atPath: mqttCacert) {
            throw ValidationError("--mqtt-cacert: no such file \(mqttCacert)")
        }
        if !(0...2).contains(qos) { throw ValidationError("--qos must be 0, 1 or 2, got \(qos)") }
    }

    /// The run's MQTT settings, with the clients' `credentials` (from the SUT profile).
    func settings(credentials: MQTTCredentials) -> LiveOptions.MQTT {
        var settings = LiveOptions.MQTT()
        settings.broker = mqtt.flatMap(parseHostPort)
        settings.qos = qos
        settings.brokerQueue = mqttBrokerQueue
        settings.caFile = mqttCacert
        settings.credentials = credentials
        settings.persistentSession = mqttSession == .persistent
        return settings
    }
}

/// `run`, `record` and `shrink` options: push channels observed beside the alert list.
struct PushFlags: ParsableArguments {
    @Option(
        name: .long,
        help:
            "Also observe alerts on a push channel and check every alert arrives there: sse, mqtt or webhook (repeatable; the alert list is polled too, unless the SUT profile's alerts.source is a push channel)."
    ) var observe: [PushChannel] = []
    @Option(
        name: .long,
        help:
            "Port of the webhook receiver for --observe webhook (127.0.0.1; 0 picks a free one, printed with --target)."
    )
    var webhookPort = 0

    func validate() throws {
        if !(0...65535).contains(webhookPort) { throw ValidationError("--webhook-port must be 0...65535") }
    }

    /// The push channels the run observes.
    var settings: LiveOptions.Push {
        var settings = LiveOptions.Push()
        settings.channels = observe
        settings.webhookPort = webhookPort
        return settings
    }
}

/// `run`, `record` and `shrink` options: how Bluetooth devices reach the SUT: relayed, or as live peripherals over HCI.
struct BluetoothFlags: ParsableArguments {
    @Option(
        name: .long,
        help:
            "How Bluetooth devices with transport ble reach the SUT: relay (decoded and posted over HTTPS, as a phone gateway does) or hci (live BLE peripherals on HCI controllers, connected to by the SUT's BLE gateway; needs a finite --speed)."
    ) var ble = LiveOptions.BLE.Mode.relay
    @Option(
        name: .long,
        help:
            "With --ble hci and --target: the HCI controller of each BLE device, in scenario order (tcp:HOST:PORT or hciN; repeatable). Without --target, bumble's virtual controllers are started."
    ) var hci: [String] = []
    @Option(
        name: .long,
        help:
            "Python interpreter with bumble for --ble hci (default: $VITALSIM_BUMBLE_PYTHON or .venv-bumble/bin/python)."
    ) var bumblePython: String?

    func validate() throws {
        if !hci.isEmpty, ble != .hci { throw ValidationError("--hci goes with --ble hci") }
        if let bumblePython, !FileManager.default.isExecutableFile(atPath: bumblePython) {
            throw ValidationError("--bumble-python: no executable at \(bumblePython)")
        }
    }

    /// How the run carries Bluetooth devices.
    var settings: LiveOptions.BLE {
        var settings = LiveOptions.BLE()
        settings.mode = ble
        settings.hci = hci
        settings.bumblePython = bumblePython
        return settings
    }
}
