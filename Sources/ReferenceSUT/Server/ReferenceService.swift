import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ReferenceEngine
import ServiceLifecycle
import Transports
import UnixSignals
import VitalSimCore

/// Everything `vitalsim serve` needs to run the reference SUT.
package struct ReferenceServiceConfiguration: Sendable {
    package enum TLSMode: Sendable {
        case none
        /// PEM certificate chain and private key files.
        case files(certificate: String, key: String)
        /// A throwaway CA and server certificate minted into this directory.
        case selfSigned(directory: String)
    }

    package enum StorageMode: Sendable {
        case sqlite(path: String)
        case postgres(url: String)
    }

    package var host = "127.0.0.1"
    package var port = 8080
    package var tls = TLSMode.none
    /// Offer HTTP/2 over TLS (ALPN `h2`, falling back to HTTP/1.1).
    package var http2 = false
    /// Mutual TLS: clients must present a certificate signed by this CA (PEM), or with a self-signed
    /// setup by its throwaway CA (`.selfSigned`), which also mints a client certificate.
    package var clientCA: ClientCA?

    /// Who may sign the certificates TLS clients must present.
    package enum ClientCA: Sendable {
        case file(String)
        case selfSigned
    }
    package var storage = StorageMode.sqlite(path: "vitalsim-sut.sqlite")
    package var mqtt: (host: String, port: Int)?
    /// CA bundle for a TLS connection to the MQTT broker (nil: plain TCP).
    package var mqttCAFile: String?
    /// The topics readings arrive on (`--mqtt-topic`, repeatable): `{patient}` and `{kind}` levels.
    package var mqttTopics = [MQTTTopicTemplate.vitalsim]
    /// How the SUT authenticates to the broker (`--mqtt-username`, `--mqtt-password-env`).
    package var mqttCredentials = MQTTCredentials()
    package var webhook: String?
    /// How every webhook POST is signed; nil: unsigned.
    package var webhookSignature: WebhookSignature?
    package var rules: [AlertRule] = []
    package var profiles: [String: Profile] = [:]
    /// Patients' own alert limits (a scenario's `thresholds:`), by patient.
    package var limits: [String: [ThresholdOverride]] = [:]
    /// Patients' care teams (a scenario's `care-team:`), by patient.
    package var careTeams: [String: [CareTeamMember]] = [:]
    /// Patients' escalation policies (a scenario's `escalation:`), by patient.
    package var escalations: [String: EscalationPolicy] = [:]
    package var credentials = Credentials()
    package var faults = FaultPlan()
    /// How long a client may take to send a request's headers (from the connection's start or its
    /// previous response) or its body (from its headers) before the connection is closed.
    package var readTimeout = Duration.seconds(30)
    /// Readings per second per device; 0 disables the limit.
    package var rateLimit: Double = 1000
    /// A span per request through Hummingbird's tracing middleware, to the tracer bootstrapped in
    /// `InstrumentationSystem` (`vitalsim serve --otlp-endpoint`): in the caller's trace when the
    /// request carries a `traceparent`.
    package var traced = false
    /// BLE gateway: one HCI transport per central (`tcp:HOST:PORT` or `hciN`), and the devices it may connect to.
    package var bleGateway: [String] = []
    package var bleTargets: [BLEGateway.Target] = []
    /// The BLE gateway's receipt clock on a scenario's time axis (nil: the wall clock).
    package var bleClock: BLEGateway.VirtualClock?

    package init() {}
}

/// Runs the reference SUT until SIGTERM/SIGINT, then drains: stops accepting connections, ends SSE
/// streams, lets in-flight requests finish (their readings commit before they are answered), and
/// closes MQTT and storage.
package enum ReferenceService {
    /// - Parameter announce: called with lines for standard output (`certificate …`, `listening on URL`).
    package static func run(
        _ config: ReferenceServiceConfiguration,
        logger: Logger,
        announce: @escaping @Sendable (String) -> Void
    ) async throws(ReferenceSetupError) {
        let storage = try await openStorage(config.storage)
        let mqtt = try await connectMQTT(config)
        let metrics = ServerMetrics()
        let hub = AlertHub(
            channels: .init(webhook: config.webhook, webhookSignature: config.webhookSignature, mqtt: mqtt),
            metrics: metrics
        )
        let store = ReferenceStore(
            rules: config.rules,
            profiles: config.profiles,
            limits: config.limits,
            careTeams: config.careTeams,
            escalations: config.escalations,
            storage: storage,
            hub: hub,
            faults: config.faults
        )
        do throws(StorageError) {
            let (readings, alerts) = try await store.recover()
            if readings > 0 {
                logger.notice(
                    "recovered stored readings and alerts",
                    metadata: ["readings": "\(readings)", "alerts": "\(alerts)"]
                )
            }
        } catch { throw .storage(error) }
        let context = ServerContext(
            store: store,
            credentials: config.credentials,
            limiter: RateLimiter(rate: config.rateLimit),
            faults: config.faults,
            traced: config.traced
        )
        let app = try application(config, context: context, logger: logger, announce: announce)
        var ingest: Task<Void, Never>?
        if let mqtt {
            let ingestor = MQTTIngestor(client: mqtt, context: context, topics: config.mqttTopics)
            do throws(MQTTError) { try await ingestor.subscribe() } catch { throw .mqtt(error) }
            ingest = Task { await ingestor.run() }
        }
        var services: [any Service] = [app]
        if !config.bleGateway.isEmpty {
            services.append(
                BLEGateway(
                    hci: config.bleGateway,
                    targets: config.bleTargets,
                    context: context,
                    logger: logger,
                    virtualClock: config.bleClock
                )
            )
        }
        services.append(DrainService(hub: hub))
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        do { try await group.run() } catch { throw .server("\(error)") }
        mqtt?.disconnect()
        ingest?.cancel()
        await storage.close()
    }

    static func openStorage(
        _ mode: ReferenceServiceConfiguration.StorageMode
    ) async throws(ReferenceSetupError) -> any ReadingStorage {
        do throws(StorageError) {
            switch mode {
            case let .sqlite(path): return try SQLiteStorage(path: path)
            case let .postgres(url): return try await PostgresStorage(url: url)
            }
        } catch { throw .storage(error) }
    }

    /// Bytes an MQTT packet may hold beyond the body limit (topic, properties, header) before the
    /// broker stops delivering it to the reference SUT.
    static let packetMargin = 64 << 10

    /// The connected client for alert publishing and MQTT ingestion, or nil without a broker.
    static func connectMQTT(_ config: ReferenceServiceConfiguration) async throws(ReferenceSetupError) -> MQTTClient? {
        guard let mqtt = config.mqtt else { return nil }
        do throws(MQTTError) {
            let clientID = "vitalsim-reference-sut-\(config.port)-\(getpid())"
            var configuration = config.mqttCredentials.applied(
                to: .init(host: mqtt.host, port: mqtt.port, clientID: clientID, caFile: config.mqttCAFile)
            )
            // A message far over the body limit is never delivered (nor read into memory): the broker
            // drops it for this client. One up to the limit and a margin for the topic and properties
            // is read and refused with 413 on errors/{patientId}.
            configuration.maximumPacketSize = UInt32(ReferenceServer.maxBody + ReferenceService.packetMargin)
            let client = try MQTTClient(configuration)
            try await client.connect()
            return client
        } catch { throw .mqtt(error) }
    }

    /// The HTTP(S) application; announces the CA it minted and the URL it listens on.
    static func application(
        _ config: ReferenceServiceConfiguration,
        context: ServerContext,
        logger: Logger,
        announce: @escaping @Sendable (String) -> Void
    ) throws(ReferenceSetupError) -> some Service {
        let server: HTTPServerBuilder
        let scheme: String
        switch config.tls {
        case .none:
            server = .http1(configuration: http1(config))
            scheme = "http"
        case let .files(certificate, key):
            var clients: String?
            if case let .file(ca)? = config.clientCA { clients = ca }
            server = try tlsServer(certificate: certificate, key: key, config: config, clientCA: clients)
            scheme = "https"
        case let .selfSigned(directory):
            let minted = try SelfSignedCertificate.make(in: directory, client: config.clientCA != nil)
            announce("ca-certificate \(minted.caFile)")
            if let client = minted.client {
                announce("client-certificate \(client.certificate)")
                announce("client-key \(client.key)")
            }
            var clients: String?
            switch config.clientCA {
            case .file(let ca)?: clients = ca
            case .selfSigned?: clients = minted.caFile
            case nil: clients = nil
            }
            server = try tlsServer(
                certificate: minted.certificateFile,
                key: minted.keyFile,
                config: config,
                clientCA: clients
            )
            scheme = "https"
        }
        let host = config.host
        return Application(
            router: ReferenceServer.router(context),
            server: server,
            configuration: .init(address: .hostname(host, port: config.port)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                let shown = host.contains(":") ? "[\(host)]" : host
                announce("listening on \(scheme)://\(shown):\(bound)")
            },
            logger: logger
        )
    }

    /// HTTP/1's read deadlines (``RequestDeadlineHandler``; the idle timeout closes slow headers).
    static func http1(_ config: ReferenceServiceConfiguration) -> HTTP1Channel.Configuration {
        let deadline = TimeAmount(config.readTimeout)
        return HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestDeadlineHandler(deadline: deadline)],
            idleTimeout: deadline
        )
    }

    /// - Parameter clientCA: require client certificates signed by this CA (PEM file): mutual TLS.
    static func tlsServer(
        certificate: String,
        key: String,
        config: ReferenceServiceConfiguration,
        clientCA: String? = nil
    ) throws(ReferenceSetupError) -> HTTPServerBuilder {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            guard !chain.isEmpty else { throw ReferenceSetupError.tls("\(certificate) holds no PEM certificate") }
            let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain,
                privateKey: .privateKey(privateKey)
            )
            if let clientCA {
                tls.certificateVerification = .noHostnameVerification
                tls.trustRoots = .file(clientCA)
            }
            let http1 = http1(config)
            return config.http2
                ? try .http2Upgrade(
                    tlsConfiguration: tls,
                    configuration: .init(idleTimeout: config.readTimeout, streamConfiguration: http1)
                )
                : try .tls(.http1(configuration: http1), tlsConfiguration: tls)
        } catch let setupError as ReferenceSetupError { throw setupError } catch {
            throw .tls("cannot use certificate \(certificate) with key \(key): \(error)")
        }
    }
}

/// Shut down first on SIGTERM (it is the last service): ends SSE streams so the HTTP server can
/// drain the remaining requests.
struct DrainService: Service {
    let hub: AlertHub
    func run() async throws {
        try? await gracefulShutdown()
        await hub.close()
    }
}
