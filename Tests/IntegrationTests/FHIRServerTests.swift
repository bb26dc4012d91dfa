import Foundation
import XCTest

/// A real FHIR R4 server nobody here wrote — sekmet-fhir 0.1.1 (strict inbound validation, SMART
/// backend-services client credentials, over TLS), from its own virtual environment
/// (`.venv-sekmet`, ci/setup-debian.sh) on a free loopback port — judged through the shipped
/// `profiles/fhir-server.yaml` changed only in base URL, TLS, credentials: `doctor` is green with
/// read-back on; three core scenarios are judged to their end; nothing is held twice; the only
/// failures are the server's real defect, numbers sent as JSON strings that it accepts.
final class FHIRServerTests: XCTestCase {
    /// Why the server could not be started: the test fails, naming it.
    struct Unready: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    var directory = ""
    var server: Process?

    override func setUp() { directory = TestSupport.temporaryDirectory("fhir-server") }

    override func tearDown() {
        server?.terminate()
        server?.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// sekmet serving on a free port with a fresh store and certificate; its base URL.
    func startServer() throws -> String {
        let sekmet = TestSupport.repositoryRoot + "/.venv-sekmet/bin/sekmet"
        guard FileManager.default.isExecutableFile(atPath: sekmet) else {
            throw Unready("sekmet-fhir is not installed: run ci/setup-debian.sh --python")
        }
        let keys = try TestSupport.run(
            "bash",
            ["-c", "cd '\(directory)' && '\(sekmet)' keys tls-cert 127.0.0.1 --out keys/tls"]
        )
        XCTAssertEqual(keys.status, 0, keys.err)
        let port = TestSupport.freePorts(1)[0]
        let settings = """
            base_url: https://127.0.0.1:\(port)/fhir
            host: 127.0.0.1
            port: \(port)
            tls_certfile: keys/tls.crt
            tls_keyfile: keys/tls.key
            data_dir: data
            server_auth:
              types: [smart]
              smart_clients:
                - {client_id: vitalsim, client_secret: s3cret, scopes: "system/*.*"}
            validation:
              inbound: strict
            simulator:
              enabled: false
            log_inbound: false

            """
        _ = TestSupport.write(settings, to: directory, name: "settings.yaml")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sekmet)
        process.arguments = ["serve", "-c", "settings.yaml"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle(forWritingAtPath: TestSupport.write("", to: directory, name: "sekmet.log"))
        process.standardError = process.standardOutput
        try process.run()
        server = process
        let base = "https://127.0.0.1:\(port)"
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline {
            let probe = try TestSupport.run(
                "curl",
                [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", directory + "/keys/tls.crt",
                    base + "/fhir/metadata",
                ]
            )
            if probe.out == "200" { return base }
            Thread.sleep(forTimeInterval: 0.25)
        }
        throw Unready("sekmet did not answer within 60 s: \(directory)/sekmet.log")
    }

    /// The shipped profile `name` with this server's base URL, certificate and client credentials,
    /// and the `changes` given (each a text and its replacement).
    func profile(base: String, name: String = "fhir-server", changes: [(String, String)] = []) throws -> String {
        var shipped = try String(
            contentsOfFile: TestSupport.repositoryRoot + "/profiles/\(name).yaml",
            encoding: .utf8
        )
        for (text, replacement) in changes {
            XCTAssertTrue(shipped.contains(text), "profiles/\(name).yaml holds \(text)")
            shipped = shipped.replacingOccurrences(of: text, with: replacement)
        }
        let local = """
            base-url: \(base)
            tls:
              ca: \(directory)/keys/tls.crt
            auth:
              oauth2:
                token-url: /auth/token
                client-id: vitalsim
                client-secret-env: SEKMET_SECRET
                scope: "system/*.*"

            """
        let text = shipped.replacingOccurrences(of: "# base-url: https://127.0.0.1:8490\n", with: local)
        XCTAssertNotEqual(text, shipped, "the shipped profile keeps its base-url line")
        return TestSupport.write(text, to: directory, name: "\(name)-\(changes.count).yaml")
    }

    func testTheShippedProfileJudgesARealFHIRServerRight() throws {
        let base = try startServer()
        let profile = try profile(base: base)
        let environment: [String: String?] = ["CI": "true", "SEKMET_SECRET": "s3cret"]
        let core = TestSupport.repositoryRoot + "/scenarios/core/"
        let doctor = try TestSupport.vitalsim(
            ["doctor", "--sut", profile, core + "fever-spike.yaml"],
            in: directory,
            environment: environment
        )
        XCTAssertEqual(doctor.status, 0, doctor.out + doctor.err)
        XCTAssertTrue(doctor.out.contains("✓ stored readings read back"), doctor.out)
        let suite = directory + "/suite"
        try FileManager.default.createDirectory(atPath: suite, withIntermediateDirectories: true)
        for name in ["fever-spike", "corrupt-and-duplicate-payloads", "every-kind-valid-and-invalid"] {
            try FileManager.default.copyItem(atPath: core + name + ".yaml", toPath: suite + "/" + name + ".yaml")
        }
        let report = directory + "/verdict.json"
        let run = try TestSupport.vitalsim(
            ["run", suite, "--sut", profile, "--run-id", "ci", "--json", report],
            in: directory,
            environment: environment
        )
        XCTAssertEqual(run.status, 1, "judged, with the server's defects: " + run.out + run.err)
        let verdict = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
        )
        let scenarios = try XCTUnwrap(verdict["scenarios"] as? [[String: Any]])
        XCTAssertEqual(scenarios.count, 3, "every scenario judged: " + run.out)
        var failing: [String: [String]] = [:]
        for scenario in scenarios {
            let name = scenario["scenario"] as? String ?? "?"
            for check in scenario["checks"] as? [[String: Any]] ?? [] {
                XCTAssertNotEqual(check["finding"] as? String, "stored-twice", "\(name): \(check)")
                guard check["passed"] as? Bool == false else { continue }
                failing[name, default: []].append("\(check["finding"] ?? "?"): \(check["detail"] ?? "")")
            }
        }
        XCTAssertEqual(Array(failing.keys), ["every-kind-valid-and-invalid"], "\(failing)")
        let defects = failing["every-kind-valid-and-invalid"] ?? []
        XCTAssertEqual(defects.count, 4, "\(defects)")
        XCTAssertTrue(
            defects.allSatisfy { $0.hasPrefix("validation-mismatch") && $0.contains("corruption wrong-type") },
            "the only defects are numbers sent as strings: \(defects)"
        )
    }

    /// Alerts from the server's own Subscription notifications (`profiles/fhir-subscriptions.yaml`):
    /// through Backport topics and R4 rest-hook criteria, fever and a hypertensive crisis are raised
    /// in their windows, one alert per episode; a proxy that answers the server but loses its event
    /// notifications makes the alert missed (exit 1, not a misconfiguration), with the events the
    /// server counted and never delivered told; a criteria the server cannot evaluate is exit 3
    /// with the server's reason.
    func testSubscriptionNotificationsAreTheAlertsOfARealFHIRServer() throws {
        let base = try startServer()
        try FileManager.default.copyItem(
            atPath: TestSupport.repositoryRoot + "/profiles/fhir-topics",
            toPath: directory + "/fhir-topics"
        )
        let environment: [String: String?] = ["CI": "true", "SEKMET_SECRET": "s3cret"]
        let core = TestSupport.repositoryRoot + "/scenarios/core/"
        func run(
            _ profile: String,
            _ scenario: String,
            _ id: String,
            _ more: [String] = []
        ) throws -> (status: Int32, out: String, err: String) {
            try TestSupport.vitalsim(
                ["run", core + scenario + ".yaml", "--sut", profile, "--run-id", id, "--alert-wait", "10"] + more,
                in: directory,
                environment: environment
            )
        }
        let backport = try profile(base: base, name: "fhir-subscriptions")
        for scenario in ["fever-spike", "hypertensive-crisis"] {
            let passed = try run(backport, scenario, "bp")
            XCTAssertEqual(passed.status, 0, passed.out + passed.err)
            XCTAssertTrue(passed.out.contains("PASS \(scenario)"), passed.out)
        }
        let filter = "        filters: [\"Observation?patient=Patient/{patient}\"]\n"
        let feverTopic = "        criteria: urn:vitalsim:subscription-topic:temp.fever\n" + filter
        let crisisTopic = "        criteria: urn:vitalsim:subscription-topic:bp.hypertensive-crisis\n" + filter
        let feverSearch =
            "        criteria: \"Observation?patient=Patient/{patient}&code=http://loinc.org|8310-5&value-quantity=ge38\"\n"
        let crisisSearch =
            "        criteria: \"Observation?patient=Patient/{patient}&code=http://loinc.org|85354-9&component-code-value-quantity=http://loinc.org|8480-6$ge180\"\n"
        let restHook: [(String, String)] = [
            ("style: backport", "style: rest-hook"), ("    heartbeat: 30\n", ""), (feverTopic, feverSearch),
        ]
        let crisisRule = "      - rule: bp.hypertensive-crisis\n        severity: high\n" + crisisTopic
        let feverOnly = try profile(base: base, name: "fhir-subscriptions", changes: restHook + [(crisisRule, "")])
        let fever = try run(feverOnly, "fever-spike", "rh")
        XCTAssertEqual(fever.status, 0, "one alert of an episode of hourly notifications: " + fever.out + fever.err)
        // No search of this server finds a blood pressure component's value: the server says so.
        let withCrisis = try profile(
            base: base,
            name: "fhir-subscriptions",
            changes: restHook + [(crisisTopic, crisisSearch)]
        )
        let crisis = try run(withCrisis, "hypertensive-crisis", "rhc")
        XCTAssertEqual(crisis.status, 3, crisis.out + crisis.err)
        XCTAssertTrue(
            crisis.err.contains("the server stopped the Subscription for bp.hypertensive-crisis")
                && crisis.err.contains("Unsupported criteria"),
            crisis.err
        )
        let receiverPort = TestSupport.freePorts(1)[0]
        let (proxy, proxyURL) = try startDroppingProxy(upstream: "http://127.0.0.1:\(receiverPort)/fhir/")
        defer { proxy.terminate() }
        let dropped = try profile(
            base: base,
            name: "fhir-subscriptions",
            changes: [("    style: backport\n", "    style: backport\n    endpoint-base: \(proxyURL)\n")]
        )
        let lost = try run(dropped, "fever-spike", "lost", ["--webhook-port", String(receiverPort)])
        XCTAssertEqual(lost.status, 1, "judged, the alert missed: " + lost.out + lost.err)
        XCTAssertTrue(lost.out.contains("missed alert temp.fever patient 508"), lost.out)
        XCTAssertTrue(lost.err.contains("(events-since-subscription-start), 0 arrived"), lost.err)
    }

    /// `Tests/backends/notification_proxy.py` in front of the receiver at `upstream`, losing every
    /// event notification; the proxy and the base URL the server is to call.
    func startDroppingProxy(upstream: String) throws -> (Process, String) {
        try TestSupport.startListening("notification_proxy.py", [upstream, "--drop", "events"])
    }
}
