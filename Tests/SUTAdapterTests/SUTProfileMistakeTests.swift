import SUTAdapter
import Testing
import VitalSimCore

/// Mistakes in a SUT profile, one test case each: the loader refuses the profile with an error that
/// names the file, the line and column where it can, and the key, and says what to write instead.
@Suite struct SUTProfileMistakeTests {
    /// The first error of a profile that must not load ("loaded" when it loads).
    static func problem(_ text: String, environment: [String: String] = [:]) -> String {
        do throws(ScenarioLoadError) {
            _ = try SUTProfileLoader.parse(text, file: "/tmp/p.yaml", environment: environment)
            return "loaded"
        } catch { return error.description }
    }

    /// Top-level keys, authentication, alert mapping and TLS: (profile, environment, error wanted).
    static let mistakes: [(String, [String: String], String)] = [
        (
            "name: a\nbase-ur1: http://127.0.0.1", [:],
            "/tmp/p.yaml:2:1: error: base-ur1: unknown key 'base-ur1' (did you mean 'base-url'?)"
        ),
        ("base-url: http://127.0.0.1", [:], "required key 'name' is missing"),
        (
            "name: a\nbase-url: ftp://x", [:],
            "/tmp/p.yaml:2:11: error: base-url: expected an http:// or https:// URL"
        ),
        (
            "name: a\nauth:\n  headers: ['X-Key: ${NOPE}']", [:],
            "/tmp/p.yaml:3:13: error: auth.headers[0]: the environment variable NOPE is not set"
        ),
        (
            "name: a\nauth:\n  headers: ['no colon']", [:],
            "auth.headers[0]: expected a header 'Name: value', got 'no colon'"
        ),
        (
            "name: a\nauth:\n  oauth2:\n    token-url: /t\n    client-id: c\n    client-secret-env: S", [:],
            "/tmp/p.yaml:6:24: error: auth.oauth2.client-secret-env: the environment variable S (the client secret) is not set"
        ),
        (
            "name: a\nrules:\n  HIGH_BP: bp.hypertensive-crisi", [:],
            "/tmp/p.yaml:3:12: error: rules.HIGH_BP: 'bp.hypertensive-crisi' is not a VitalSim rule id (did you mean 'bp.hypertensive-crisis'?)"
        ),
        (
            "name: a\nseverities:\n  HIGH: critical", [:],
            "severities.HIGH: 'critical' is not a VitalSim severity; valid: low, medium, high"
        ),
        (
            "name: a\nalerts:\n  url: /a\n  fields: {id: /id, patient: /p, rule: r, severity: /s, raised-at: /t}",
            [:],
            "alerts.fields.rule: a JSON Pointer is empty or starts with '/' (RFC 6901), got 'r'"
        ),
        (
            "name: a\nalerts:\n  url: /a\n  fields: {id: /id~2, patient: /p, rule: /r, severity: /s, raised-at: /t}",
            [:],
            "alerts.fields.id: '~' must be followed by 0 or 1"
        ),
        (
            "name: a\nalerts:\n  url: /a\n  fields: {id: /id, patient: /p, rule: /r, severity: /s}", [:],
            "alerts.fields.raised-at: required key 'raised-at' is missing"
        ),
        (
            "name: a\nalerts:\n  url: /a\n  paging: sometimes\n  fields: {id: /i, patient: /p, rule: /r, severity: /s, raised-at: /t}",
            [:], "alerts.paging: expected none, fhir-bundle, {next: POINTER} or {cursor: POINTER, parameter: NAME}"
        ),
        (
            "name: a\nalerts:\n  url: /a\n  clock: wall\n  fields: {id: /i, patient: /p, rule: /r, severity: /s, raised-at: /t}",
            [:], "/tmp/p.yaml:4:10: error: alerts.clock:"
        ),
        (
            "name: a\naudit:\n  url: /audit/{person}\n  fields: {who: /w, patient: /p, action: /a, recorded: /t}", [:],
            "/tmp/p.yaml:3:8: error: audit.url: unknown placeholder {person}; valid: {patient}"
        ),
        (
            "name: a\naudit:\n  url: /audit\n  fields: {who: /w, patient: /p, action: /a}", [:],
            "audit.fields.recorded: required key 'recorded' is missing"
        ),
        (
            "name: a\naudit:\n  url: /audit\n  read-actions: []\n  fields: {who: /w, patient: /p, action: /a, recorded: /t}",
            [:], "audit.read-actions: name at least one read action"
        ),
        (
            "name: a\ntls:\n  ca: missing-ca.pem", [:],
            "tls.ca: no readable file at /tmp/missing-ca.pem (relative to the profile's folder)"
        ),
        (
            "name: a\nauth:\n  devices: {file: /nonexistent/keys.yaml}", [:],
            "auth.devices.file: no readable file at /nonexistent/keys.yaml"
        ),
    ]

    /// A foreign trail's shape: a JSON list of `{user, subject, op, ts}`, `READ` and `LIST` reads.
    @Test func anAuditSectionReadsAForeignTrail() throws {
        let profile = try SUTProfileLoader.parse(
            """
            name: a
            audit:
              url: /admin/audit?subject={patient}
              list: /events
              read-actions: [READ, LIST]
              fields: {who: /user, patient: /subject, action: /op, recorded: /ts}
            """,
            file: "/tmp/p.yaml",
            environment: [:]
        )
        let source = try #require(profile.audit)
        let answer: [String: Any] = [
            "events": [
                ["user": "users/ann", "subject": "721", "op": "READ", "ts": "2026-11-28T10:00:00Z"],
                ["subject": "721", "op": "DELETE", "ts": "2026-11-28T10:00:01.500Z"],
            ]
        ]
        let entries = try source.read(answer).get()
        #expect(entries.map(\.who) == ["ann", nil])
        #expect(entries.map(\.change) == [false, true])
        #expect(entries.map(\.at) == [1_795_860_000_000, 1_795_860_001_500])
        #expect(try AuditSource.vitalsim.read(["resourceType": "Bundle", "total": 0]).get().isEmpty)
        #expect(throws: (any Error).self) { try source.read(["events": [["user": "ann", "op": "READ"]]]).get() }
    }

    @Test(arguments: mistakes)
    func aMistakeIsNamedWithFileLineAndKey(_ text: String, _ environment: [String: String], _ expected: String) {
        let said = Self.problem(text, environment: environment)
        #expect(said.contains(expected), "\(text)\n→ \(said)\nwanted: \(expected)")
    }

    /// Ingestion routes: (profile, error wanted).
    static let routeMistakes: [(String, String)] = [
        (
            "name: x\ningestion:\n  routes:\n    - {path: /x, format: fhir-observaton}\n",
            "/tmp/p.yaml:4:26: error: ingestion.routes[0].format: unknown format 'fhir-observaton'"
        ),
        (
            "name: x\ningestion:\n  routes:\n    - {path: /x, format: fhir-observation, batch: 5}\n",
            "format fhir-observation sends one reading per request"
        ),
        (
            "name: x\ningestion:\n  routes:\n    - {path: /x, format: fhir-bundle, writes: update}\n",
            "ingestion.routes[0].writes: expected conditional-create or create"
        ),
        (
            "name: x\ningestion:\n  routes:\n    - {path: /x, format: vitaledge, writes: create}\n",
            "ingestion.routes[0].writes: writes is only read for a FHIR format over HTTP"
        ),
        (
            "name: x\ningestion:\n  routes:\n    - {path: /x, format: vitaledge, kinds: [heart-rat]}\n",
            "ingestion.routes[0].kinds[0]: expected a reading kind, got 'heart-rat' (did you mean 'heart-rate'?)"
        ),
        (
            "name: x\ningestion:\n  routes:\n    - {path: \"/p/{patientId}\", format: vitaledge}\n",
            "unknown placeholder {patientId}"
        ),
        ("name: x\ningestion:\n  routes:\n    - {path: /x, format: template}\n", "needs template: FILE"),
        (
            "name: x\ningestion:\n  routes:\n    - {path: /x, format: vitalsim-observation, rejection-fields: {valu: v}}\n",
            "expected one of value, systolic"
        ),
    ]

    @Test(arguments: routeMistakes)
    func aRouteMistakeIsNamed(_ text: String, _ expected: String) {
        let said = Self.problem(text)
        #expect(said.contains(expected), "\(text)\n→ \(said)\nwanted: \(expected)")
    }

    /// Routes that send over MQTT, or mix what belongs to HTTP and MQTT: (route, error wanted).
    static let transportMistakes: [(String, String)] = [
        (
            "- {transport: mqtt, format: gatt, path: /x}",
            "ingestion.routes[0].path: path is only read with transport: http"
        ),
        (
            "- {transport: mqtt, format: vitalsim-observation, batch: 5}",
            "an MQTT route sends one reading per message"
        ),
        ("- {transport: mqtt, format: gatt, method: PUT}", "method is only read with transport: http"),
        ("- {path: /x, format: gatt}", "format gatt is only sent over MQTT (transport: mqtt)"),
        ("- {path: /x, format: fhir-observation, topic: a/b}", "a topic is only read with transport: mqtt"),
        ("- {transport: http, format: fhir-observation}", "an HTTP route needs a path"),
        (
            "- {transport: amqp, path: /x, format: fhir-observation}",
            "ingestion.routes[0].transport: expected http or mqtt"
        ),
        ("- {transport: mqtt, format: gatt, topic: \"a/+/b\"}", "no wildcards (+, #) in a topic"),
        ("- {transport: mqtt, format: gatt, topic: \"a/{patientId}\"}", "unknown placeholder {patientId}"),
    ]

    @Test(arguments: transportMistakes)
    func aTransportMistakeIsNamedAtItsLine(_ route: String, _ expected: String) {
        let said = Self.problem("name: x\ningestion:\n  routes:\n    " + route + "\n")
        #expect(said.contains(expected) && said.contains("/tmp/p.yaml:4:"), "\(route)\n→ \(said)\nwanted: \(expected)")
    }
}
