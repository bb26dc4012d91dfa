import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ReferenceEngine
import ReferenceSUT
import TestFixtures
import VitalSimCore

/// The reference SUT's HTTP routes in-process: the router `vitalsim serve` runs, over SQLite storage
/// in a temporary folder, driven through Hummingbird's router test framework (no socket, no process).
/// The wall clock the routes read (to refuse time stamps in the future) is fixed at ``now``.
struct InProcessSUT {
    /// 2025-01-01T00:00:00Z, in Unix milliseconds: every test time stamp (2024-11-07) is in its past.
    static let now: Int64 = 1_735_689_600_000

    var rules: [AlertRule]
    /// Patients' profiles, as `--patient ID=PROFILE` sets them.
    var profiles: [String: Profile] = [:]
    var credentials = Credentials()
    var faults = FaultPlan()
    /// Readings per second per device (0: no limit, as `--rate-limit 0`).
    var rateLimit: Double = 0
    /// The folder of the SQLite database, kept after the test (nil: a temporary one, removed): two
    /// runs on one folder are a restart.
    var databaseDirectory: String?

    init(profiles: [String: Profile] = [:]) throws {
        rules = try RuleSetLoader.defaultRules()
        self.profiles = profiles
    }

    /// Builds the service's context and router and runs `body` against them; the storage is closed after.
    func test<Value: Sendable>(_ body: @Sendable (SUTTestClient) async throws -> Value) async throws -> Value {
        let directory = databaseDirectory ?? NSTemporaryDirectory() + "vitalsim-router-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { if databaseDirectory == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let storage = try SQLiteStorage(path: directory + "/sut.sqlite")
        let metrics = ServerMetrics()
        let store = ReferenceStore(
            rules: rules,
            profiles: profiles,
            storage: storage,
            hub: AlertHub(metrics: metrics),
            faults: faults
        )
        // As `vitalsim serve` starts: what storage holds is replayed through the engine.
        try await store.recover()
        let context = ServerContext(
            store: store,
            credentials: credentials,
            limiter: RateLimiter(rate: rateLimit),
            faults: faults,
            clock: { Self.now }
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
struct SUTResponse: Sendable {
    var status: Int
    var headers: HTTPFields
    var text: String

    /// The body as a JSON object (empty when it is not one).
    var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }
    /// The body as a JSON array of objects (empty when it is not one).
    var objects: [[String: Any]] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] ?? [] }
}

/// Requests to the in-process routes, with an optional bearer token.
struct SUTTestClient: Sendable {
    let client: any TestClientProtocol

    func post(_ path: String, _ body: String, token: String? = nil) async throws -> SUTResponse {
        try await send(path, method: .post, body: body, token: token)
    }

    func get(_ path: String, token: String? = nil) async throws -> SUTResponse {
        try await send(path, method: .get, token: token)
    }

    func send(_ path: String, method: HTTPRequest.Method, body: String? = nil, token: String? = nil) async throws -> SUTResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        return SUTResponse(status: Int(response.status.code), headers: response.headers, text: String(buffer: response.body))
    }

    /// The alert list's `rule` fields, in the order listed.
    func alertRules(_ query: String, token: String? = nil) async throws -> [String?] {
        try await get("/api/v1/alerts" + query, token: token).objects.map { $0["rule"] as? String }
    }
}
