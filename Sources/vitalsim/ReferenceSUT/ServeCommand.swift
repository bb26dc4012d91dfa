import ArgumentParser
import Bluetooth
import Foundation
import Logging
import ReferenceEngine
import ReferenceSUT
import Telemetry
import Traffic
import Transports
import VitalSimCore

extension VitalSim {
    /// `vitalsim serve` — the reference SUT.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the reference SUT: the remote-monitoring backend of the source documents.",
            discussion: """
                HTTP(S) ingestion (POST /api/iot-heart-rate, /api/healthkit, /api/v1/observations, /fhir/Observation), MQTT ingestion
                (vitals/{patientId}/{kind}), the alert engine, alert delivery (GET /api/v1/alerts, SSE /api/v1/alerts/stream, webhook,
                MQTT alerts/{patientId}), SQLite or PostgreSQL storage, /healthz and /metrics. See docs/openapi.yaml and docs/alert-rules.md.
                Standard output carries `ca-certificate PATH` (with --self-signed), the --dev credentials and finally `listening on URL`.
                SIGTERM drains in-flight requests before exiting.
                """
        )
        @Option(name: .long, help: "Address to bind (loopback by default).") var host = "127.0.0.1"
        @Option(name: .long, help: "Port; 0 picks a free one.") var port = 8080
        @Option(name: .long, help: "Alert rules file (default: the shipped rules, docs/alert-rules.md).") var rules:
            String?
        @Option(name: .long, help: "Take patients' profiles from this scenario file.") var scenario: String?
        @Option(
            name: .long,
            help:
                "A patient's profile, PATIENT=PROFILE with a profile of \(Profile.allCases.map(\.rawValue).joined(separator: ", ")) (repeatable); others are adult."
        ) var patient: [PatientProfile] = []
        @Flag(
            name: .long,
            help:
                "Demo mode: plain HTTP, a temporary SQLite database, and printed credentials (`device-token PATIENT DEVICE TOKEN` per patient, 501 among them, and `reader-token TOKEN`)."
        ) var dev = false
        @Option(name: .long, help: "Credentials file (YAML: devices with token/patient/device, readers with token).")
        var credentials: String?
        @Option(
            name: .long,
            help:
                "SQLite file path, or postgres://USER[:PASSWORD]@HOST:PORT/DATABASE (default: vitalsim-sut.sqlite; --dev: a temporary file)."
        ) var database: String?
        @Option(name: .long, help: "PEM certificate chain for HTTPS.") var tlsCert: String?
        @Option(name: .long, help: "PEM private key for HTTPS.") var tlsKey: String?
        @Flag(
            name: .long,
            help:
                "Serve HTTPS with a throwaway CA and certificate for localhost (its CA file is printed as `ca-certificate PATH`)."
        ) var selfSigned = false
        @Option(
            name: .long,
            help:
                "Mutual TLS: require client certificates signed by this CA (PEM). With --self-signed, 'self' uses the throwaway CA and mints a client certificate (printed as `client-certificate PATH` and `client-key PATH`)."
        ) var clientCa: String?
        @Option(
            name: .long,
            help: "MQTT broker HOST:PORT: ingest vitals/{patientId}/{kind} and publish alerts/{patientId}."
        ) var mqtt: String?
        @Option(name: .long, help: "PEM CA bundle: connect to the MQTT broker over TLS and verify its certificate.")
        var mqttCacert: String?
        @Option(name: .long, help: "User name for the MQTT broker.") var mqttUsername: String?
        @Option(
            name: .customLong("mqtt-topic"),
            help:
                "Topic template readings arrive on, with {patient} and {kind} levels (and optionally {device}); default vitals/{patient}/{kind}. Repeat for several."
        ) var mqttTopics: [String] = []
        @Option(name: .long, help: "Environment variable holding the MQTT password (with --mqtt-username).")
        var mqttPasswordEnv: String?
        @Flag(
            name: .long,
            help:
                "Offer HTTP/2 over TLS (ALPN h2, HTTP/1.1 still accepted); needs --tls-cert/--tls-key or --self-signed."
        )
        var http2 = false
        @Option(name: .long, help: "POST every alert to this URL (retried with backoff).") var webhook: String?
        @Option(
            name: .long,
            help: "Sign every webhook POST: hub-sha256 or standard-webhooks (with --webhook-secret-env)."
        ) var webhookSignature: String?
        @Option(name: .long, help: "Environment variable holding the webhook signing secret.")
        var webhookSecretEnv: String?
        @Option(name: .long, help: "The header of a hub-sha256 signature.")
        var webhookSignatureHeader = "X-Hub-Signature-256"
        @Option(name: .long, help: "Readings per second per device before 429 (0: no limit).") var rateLimit: Double =
            1000
        @Option(
            name: .long,
            help:
                "Seconds a client may take to send a request's headers, or its body, before the connection is closed (408 for a body)."
        ) var readTimeout: Double = 30
        @Option(name: .long, help: "Deliberate fault (repeatable): \(FaultPlan.spellings).") var fault: [String] = []
        @Flag(
            name: .long,
            help: "Also ingest from BLE devices as a gateway (central): needs --hci, and --scenario or --ble-device."
        )
        var bleGateway = false
        @Option(
            name: .long,
            help: "HCI controller for the BLE gateway, one per device to connect (repeatable): tcp:HOST:PORT or hciN."
        )
        var hci: [String] = []
        @Option(
            name: .long,
            help:
                "A BLE device the gateway may connect to (repeatable): ADDRESS=PATIENT/DEVICE, e.g. C0:11:22:33:44:55=501/hr-strap."
        ) var bleDevice: [BLEDeviceBinding] = []
        @Option(
            name: .long,
            help:
                "Stamp BLE values that carry no time stamp (heart rate, continuous SpO2, CGM, battery) on the --scenario's time axis: its start once every device has subscribed, running N times faster than the wall clock (for vitalsim run --ble hci --speed N; default: the wall clock, as a real gateway)."
        ) var bleSpeed: Double?
        @Option(name: .long, help: "Log level.") var logLevel = LogLevel.warning
        @OptionGroup(title: "OpenTelemetry") var telemetry: TelemetryFlags

        func validate() throws {
            if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
            if selfSigned && tlsCert != nil {
                throw ValidationError("use either --self-signed or --tls-cert/--tls-key")
            }
            if http2 && !selfSigned && tlsCert == nil {
                throw ValidationError("--http2 is offered over TLS (ALPN): add --self-signed or --tls-cert/--tls-key")
            }
            for mqttTopic in mqttTopics {
                do throws(MQTTTopicTemplateError) {
                    let mqttTopicTemplate = try MQTTTopicTemplate(mqttTopic)
                    guard mqttTopicTemplate.names("patient"), mqttTopicTemplate.names("kind") else {
                        throw MQTTTopicTemplateError("--mqtt-topic needs {patient} and {kind} levels")
                    }
                } catch { throw ValidationError("--mqtt-topic: \(error.description)") }
            }
            if mqttPasswordEnv != nil && mqttUsername == nil {
                throw ValidationError("--mqtt-password-env goes with --mqtt-username")
            }
            if let clientCa {
                if !selfSigned && tlsCert == nil {
                    throw ValidationError("--client-ca is mutual TLS: add --self-signed or --tls-cert/--tls-key")
                }
                if clientCa == "self" && !selfSigned {
                    throw ValidationError("--client-ca self goes with --self-signed")
                }
                if clientCa != "self" && !FileManager.default.isReadableFile(atPath: clientCa) {
                    throw ValidationError("--client-ca: no readable file at \(clientCa)")
                }
            }
            if dev && credentials != nil {
                throw ValidationError("--dev prints its own credentials; drop --credentials")
            }
            if !(0...65535).contains(port) { throw ValidationError("--port must be 0...65535") }
            if rateLimit < 0 { throw ValidationError("--rate-limit must be ≥ 0") }
            if !(0.1...3600).contains(readTimeout) {
                throw ValidationError("--read-timeout must be 0.1 to 3600 seconds")
            }
            if let mqtt, parseHostPort(mqtt) == nil { throw ValidationError("--mqtt must be HOST:PORT, got '\(mqtt)'") }
            if let webhook, !(webhook.hasPrefix("http://") || webhook.hasPrefix("https://")) {
                throw ValidationError("--webhook must be an http:// or https:// URL")
            }
            if bleGateway && hci.isEmpty { throw ValidationError("--ble-gateway needs at least one --hci controller") }
            if !bleGateway && (!hci.isEmpty || !bleDevice.isEmpty) {
                throw ValidationError("--hci and --ble-device go with --ble-gateway")
            }
            if let bleSpeed, !bleGateway || scenario == nil || !(bleSpeed > 0) {
                throw ValidationError("--ble-speed goes with --ble-gateway and --scenario, and must be positive")
            }
            if bleGateway && scenario == nil && bleDevice.isEmpty {
                throw ValidationError(
                    "--ble-gateway needs --scenario FILE (its BLE devices) or --ble-device ADDRESS=PATIENT/DEVICE"
                )
            }
        }

        func run() async throws {
            var config = try configuration()
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("vitalsim-serve-\(getpid())")
                .path
            configureStorageAndTLS(&config, scratch: scratch)
            let credentialLines = announce(&config)
            var logger = Logger(label: "vitalsim.serve") { StreamLogHandler.standardError(label: $0) }
            logger.logLevel = logLevel.level
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            // A span per request, in the caller's trace (traceparent), exported over OTLP.
            let exporter = try telemetry.start(service: "vitalsim-reference-sut", attributes: [:])
            exporter?.bootstrapInstrumentation()
            config.traced = exporter != nil
            do throws(ReferenceSetupError) {
                try await ReferenceService.run(config, logger: logger) { line in
                    // Credentials go out just before the listening line, so that a reader of stdout has them when the
                    // server is ready.
                    let text = line.hasPrefix("listening on") ? credentialLines + line + "\n" : line + "\n"
                    FileHandle.standardOutput.write(Data(text.utf8))
                }
            } catch {
                await exporter?.shutdown()
                throw CommandFailure.infrastructure("vitalsim serve: \(error)")
            }
            await exporter?.shutdown()
        }

        /// The webhook signature of `--webhook-signature` and `--webhook-secret-env`, or nil.
        func signature() throws -> WebhookSignature? {
            guard let webhookSignature else {
                if webhookSecretEnv != nil {
                    throw CommandFailure.input("--webhook-secret-env goes with --webhook-signature")
                }
                return nil
            }
            guard let scheme = WebhookSignature.Scheme(rawValue: webhookSignature) else {
                throw CommandFailure.input(
                    "--webhook-signature must be "
                        + WebhookSignature.Scheme.allCases.map(\.rawValue).joined(separator: " or ")
                )
            }
            guard webhook != nil, let webhookSecretEnv else {
                throw CommandFailure.input("--webhook-signature needs --webhook and --webhook-secret-env")
            }
            guard let secret = ProcessInfo.processInfo.environment[webhookSecretEnv], !secret.isEmpty else {
                throw CommandFailure.input(
                    "vitalsim serve: --webhook-secret-env names \(webhookSecretEnv), which is not set"
                )
            }
            return WebhookSignature(scheme: scheme, secret: secret, header: webhookSignatureHeader)
        }
        /// The service's configuration from the flags and the files they name (rules, scenario,
        /// credentials); a bad file or fault exits 2 with its message.
        func configuration() throws -> ReferenceServiceConfiguration {
            var config = ReferenceServiceConfiguration()
            config.host = host
            config.port = port
            config.rateLimit = rateLimit
            config.readTimeout = .milliseconds(Int64(readTimeout * 1000))
            config.webhook = webhook
            config.webhookSignature = try signature()
            if let mqtt { config.mqtt = parseHostPort(mqtt) }
            config.mqttCAFile = mqttCacert
            config.mqttCredentials.username = mqttUsername
            if !mqttTopics.isEmpty { config.mqttTopics = mqttTopics.compactMap { try? MQTTTopicTemplate($0) } }
            if let mqttPasswordEnv {
                guard let password = ProcessInfo.processInfo.environment[mqttPasswordEnv] else {
                    throw CommandFailure.input(
                        "vitalsim serve: --mqtt-password-env names \(mqttPasswordEnv), which is not set"
                    )
                }
                config.mqttCredentials.password = password
            }
            config.http2 = http2
            do {
                config.rules =
                    try rules.map { try RuleSetLoader.parse(try FileText.read($0), file: $0) }
                    ?? RuleSetLoader.defaultRules()
                if let scenario { try apply(scenario: scenario, to: &config) }
                if let credentials {
                    config.credentials = try CredentialsLoader.parse(try FileText.read(credentials), file: credentials)
                }
            } catch let loadError as ScenarioLoadError {
                throw CommandFailure.input(loadError.description)
            } catch {
                throw CommandFailure.input("\(error)")
            }
            for p in patient { config.profiles[p.patientID] = p.profile }
            for d in bleDevice {
                config.bleTargets.append(
                    BLEGateway.Target(address: d.address, patientID: d.patientID, deviceID: d.deviceID)
                )
            }
            config.bleGateway = bleGateway ? hci : []
            let known = Set(config.rules.map(\.id))
            for f in fault {
                do throws(FaultPlanError) { try config.faults.add(f, knownRules: known) } catch {
                    throw CommandFailure.input("--fault \(error.text): \(error.reason)")
                }
            }
            return config
        }

        /// The patients' profiles, care teams and own limits of a scenario and, for a BLE gateway, its BLE devices (by the
        /// addresses `vitalsim run --ble hci` gives them) and its time axis.
        func apply(scenario path: String, to config: inout ReferenceServiceConfiguration) throws {
            let loaded = try TracedScenarioLoader.load(path: path)
            for p in loaded.patients {
                config.profiles[p.id] = p.profile
                if !p.careTeam.isEmpty { config.careTeams[p.id] = p.careTeam }
                if !p.escalation.isEmpty { config.escalations[p.id] = p.escalation }
                guard !p.thresholds.isEmpty else { continue }
                if let problem = AlertRule.limitProblem(p.thresholds, profile: p.profile, rules: config.rules) {
                    let issue = ScenarioIssue(
                        file: path,
                        line: max(problem.limit.line, 1),
                        column: 1,
                        field: "patient \(p.id) \(problem.field)",
                        message: problem.message + " (the rules of \(rules ?? "the reference SUT"))"
                    )
                    throw ScenarioLoadError(issues: [issue])
                }
                config.limits[p.id] = p.thresholds
            }
            guard bleGateway else { return }
            config.bleTargets = loaded.bleDevices.map { patient, spec in
                BLEGateway.Target(
                    address: StaticRandomAddress.derive(seed: loaded.seed, label: "\(patient)/\(spec.id)"),
                    patientID: patient,
                    deviceID: spec.id
                )
            }
            if let bleSpeed {
                config.bleClock = .init(startUnixMilliseconds: loaded.startUnixMilliseconds, speed: bleSpeed)
            }
        }

        /// Storage (`--database`, or a temporary SQLite file with `--dev`) and TLS.
        func configureStorageAndTLS(_ config: inout ReferenceServiceConfiguration, scratch: String) {
            if let database {
                config.storage =
                    database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
                    ? .postgres(url: database) : .sqlite(path: database)
            } else if dev {
                try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
                config.storage = .sqlite(path: scratch + "/sut.sqlite")
            }
            if let clientCa { config.clientCA = clientCa == "self" ? .selfSigned : .file(clientCa) }
            if selfSigned {
                config.tls = .selfSigned(directory: scratch + "/tls")
            } else if let tlsCert, let tlsKey {
                config.tls = .files(certificate: tlsCert, key: tlsKey)
            }
        }

        /// Demo credentials with `--dev` (returned as the lines printed with the listening line), a
        /// warning for an open API, and a banner for faulty modes.
        func announce(_ config: inout ReferenceServiceConfiguration) -> String {
            var out = ""
            if dev {
                config.credentials = Credentials.demo(patients: Array(Set(["501"] + config.profiles.keys)).sorted())
                for (token, owner) in config.credentials.devices.sorted(by: { $0.value.patientID < $1.value.patientID })
                {
                    out += "device-token \(owner.patientID) \(owner.deviceID) \(token)\n"
                }
                for token in config.credentials.readers.sorted() { out += "reader-token \(token)\n" }
                for token in config.credentials.admins.sorted() { out += "admin-token \(token)\n" }
            } else if !config.credentials.enforced {
                printError(
                    "vitalsim serve: no credentials configured — the API is open to anyone who can reach \(host) (use --credentials FILE or --dev)"
                )
            }
            if config.faults.isActive {
                let banner = String(repeating: "!", count: 78)
                printError(
                    ([banner, "!!! FAULTY MODE: this reference SUT misbehaves ON PURPOSE (vitalsim serve --fault)"]
                        + config.faults.summary.map { "!!!   \($0)" } + [banner]).joined(separator: "\n")
                )
            }
            return out
        }
    }
}

/// `HOST:PORT` (IPv6 as `[::1]:PORT`).
func parseHostPort(_ text: String) -> (host: String, port: Int)? {
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
        (1...65535).contains(port)
    else {
        return nil
    }
    var host = String(text[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    return host.isEmpty ? nil : (host, port)
}
