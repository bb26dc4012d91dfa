import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ReferenceEngine
import ReferenceSUT
import TestFixtures
import Transports
import VitalSimCore

/// The reference SUT's HTTP routes in-process: the router `vitalsim serve` runs, over SQLite storage
/// in a temporary folder, driven through Hummingbird's router test framework (no socket, no process).
/// The wall clock the routes read (to refuse time stamps in the future) is fixed at ``now``.
/// `ReferenceSUTTests` drive the routes request by request; `LiveHarnessTests` run the harness
/// against them through ``RouterExchange``.
package struct InProcessSUT {
    /// 2025-01-01T00:00:00Z, in Unix milliseconds: every test time stamp (2024-11-07) is in its past.
    package static let now: Int64 = 1_735_689_600_000

    package var rules: [AlertRule]
    /// Patients' profiles, as `--patient ID=PROFILE` sets them.
    package var profiles: [String: Profile] = [:]
    /// Patients' own alert limits, as a scenario's `thresholds:` give them to `vitalsim serve --scenario`.
    package var limits: [String: [ThresholdOverride]] = [:]
    /// Patients' care teams, by patient (as `vitalsim serve --scenario` takes them).
    package var careTeams: [String: [CareTeamMember]] = [:]
    /// Patients' escalation policies, by patient (as `vitalsim serve --scenario` takes them).
    package var escalations: [String: EscalationPolicy] = [:]
    package var credentials = Credentials()
    package var faults = FaultPlan()
    /// Readings per second per device (0: no limit, as `--rate-limit 0`), on a clock that stands still.
    package var rateLimit: Double = 0
    /// The folder of the SQLite database, kept after the test (nil: a temporary one, removed): two
    /// runs on one folder are a restart.
    package var databaseDirectory: String?
    /// The wall clock stamping the audit trail: the real one, as the harness judges the stamps by
    /// its own.
    package var auditClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    /// Where alerts are also POSTed (`vitalsim serve --webhook URL`), if anywhere.
    package var webhook: String?

    package init(profiles: [String: Profile] = [:]) throws {
        rules = try RuleSetLoader.defaultRules()
        self.profiles = profiles
    }

    /// The reference SUT as `vitalsim serve --scenario FILE` configures it: the scenario's
    /// patients' profiles and own limits.
    package init(scenario: Scenario) throws {
        try self.init()
        for patient in scenario.patients {
            profiles[patient.id] = patient.profile
            if !patient.thresholds.isEmpty { limits[patient.id] = patient.thresholds }
            if !patient.careTeam.isEmpty { careTeams[patient.id] = patient.careTeam }
            if !patient.escalation.isEmpty { escalations[patient.id] = patient.escalation }
        }
    }

    /// Requires credentials, as `vitalsim serve --dev` does: a device token per patient (made up,
    /// given to nobody), a reader and an admin token.
    package mutating func requireCredentials() {
        credentials = Credentials.demo(patients: profiles.keys.sorted())
    }

    /// Takes the credentials of a `vitalsim serve --credentials FILE` file's text.
    package mutating func loadCredentials(_ text: String, file: String = "credentials.yaml") throws {
        credentials = try CredentialsLoader.parse(text, file: file)
    }

    /// Adds faulty modes as `vitalsim serve --fault` takes them (`drop-alerts=1`, `wrong-severity`, …).
    package mutating func add(faults: [String]) throws {
        for fault in faults { try self.faults.add(fault, knownRules: Set(rules.map(\.id))) }
    }

    /// Builds the service's context and router and runs `body` against them; the storage is closed after.
    package func test<Value: Sendable>(_ body: @Sendable (SUTTestClient) async throws -> Value) async throws -> Value {
        let directory =
            databaseDirectory ?? NSTemporaryDirectory() + "vitalsim-router-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { if databaseDirectory == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let storage = try SQLiteStorage(path: directory + "/sut.sqlite")
        let metrics = ServerMetrics()
        let store = ReferenceStore(
            rules: rules,
            profiles: profiles,
            limits: limits,
            careTeams: careTeams,
            escalations: escalations,
            storage: storage,
            hub: AlertHub(channels: AlertHub.Channels(webhook: webhook, webhookAttempts: 2), metrics: metrics),
            faults: faults
        )
        // As `vitalsim serve` starts: what storage holds is replayed through the engine.
        try await store.recover()
        let context = ServerContext(
            store: store,
            credentials: credentials,
            // The rate limiter's clock stands still: a burst is one instant however slowly it is sent.
            limiter: RateLimiter(rate: rateLimit, clock: { [started = ContinuousClock.now] in started }),
            faults: faults,
            clock: { Self.now },
            auditClock: auditClock
        )
        var logger = Logger(label: "ReferenceSUTTests")
        logger.logLevel = .error
        let app = Application(router: ReferenceServer.router(context), logger: logger)
        do {
            let value = try await app.test(.router) { client in try await body(SUTTestClient(client: client)) }
            await storage.close()
            return value
        } catch {
            await storage.close()
            throw error
        }
    }
}

/// A response: its status, headers and body (text and parsed JSON).
package struct SUTResponse: Sendable {
    package var status: Int
    package var headers: HTTPFields
    package var text: String

    /// The body as a JSON object (empty when it is not one).
    package var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }
    /// The body as a JSON array of objects (empty when it is not one).
    package var objects: [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] ?? []
    }
}

/// Requests to the in-process routes, with an optional bearer token.
package struct SUTTestClient: Sendable {
    package let client: any TestClientProtocol

    package func post(_ path: String, _ body: String, token: String? = nil) async throws -> SUTResponse {
        try await send(path, method: .post, body: body, token: token)
    }

    /// POSTs `bytes` as they are (a body that is not UTF-8, or too large to write as a literal).
    package func post(_ path: String, bytes: [UInt8]) async throws -> SUTResponse {
        let response = try await client.execute(
            uri: path,
            method: .post,
            headers: [.contentType: "application/json"],
            body: ByteBuffer(bytes: bytes)
        )
        return SUTResponse(
            status: Int(response.status.code),
            headers: response.headers,
            text: String(buffer: response.body)
        )
    }

    package func get(_ path: String, token: String? = nil) async throws -> SUTResponse {
        try await send(path, method: .get, token: token)
    }

    package func send(
        _ path: String,
        method: HTTPRequest.Method,
        body: String? = nil,
        token: String? = nil,
        headers extra: [(name: String, value: String)] = []
    ) async throws -> SUTResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        for field in extra { if let name = HTTPField.Name(field.name) { headers[name] = field.value } }
        let response = try await client.execute(
            uri: path,
            method: method,
            headers: headers,
            body: body.map { ByteBuffer(string: $0) }
        )
        return SUTResponse(
            status: Int(response.status.code),
            headers: response.headers,
            text: String(buffer: response.body)
        )
    }

    /// The alert list's `rule` fields, in the order listed.
    package func alertRules(_ query: String, token: String? = nil) async throws -> [String?] {
        try await get("/api/v1/alerts" + query, token: token).objects.map { $0["rule"] as? String }
    }
}

/// The harness's HTTP transport answered by the in-process routes: each request goes to the router
/// through Hummingbird's test client, with its path and query taken from the URL (the URL's host
/// is never dialled) and its header lines as sent.
package struct RouterExchange: HTTPExchange {
    /// The base URL the harness is given (`LiveOptions.target`): loopback, never dialled.
    package static let base = "http://127.0.0.1:9"

    let client: any TestClientProtocol

    package init(_ client: SUTTestClient) { self.client = client.client }

    package func send(
        _ method: String,
        _ url: String,
        body: [UInt8]?,
        headers: [String],
        timeout: Double
    ) async throws(HTTPTransportError) -> HTTPReply {
        guard url.hasPrefix(Self.base), let verb = HTTPRequest.Method(method) else {
            throw HTTPTransportError(reason: "not a request for the in-process SUT: \(method) \(url)", url: url)
        }
        var fields = HTTPFields()
        for line in headers {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else {
                continue
            }
            fields.append(
                HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            )
        }
        let path = String(url.dropFirst(Self.base.count))
        do {
            let response = try await client.execute(
                uri: path.isEmpty ? "/" : path,
                method: verb,
                headers: fields,
                body: body.map { ByteBuffer(bytes: $0) }
            )
            return HTTPReply(
                status: Int(response.status.code),
                body: Array(response.body.readableBytesView),
                httpVersion: "1.1"
            )
        } catch {
            throw HTTPTransportError(reason: "the in-process router failed: \(error)", url: url)
        }
    }
}
