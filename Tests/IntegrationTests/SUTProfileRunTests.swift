import Foundation
import XCTest

/// `vitalsim run --sut PROFILE` and `vitalsim doctor --sut`: alerts read in another shape (FHIR
/// DetectedIssue Bundles, paged), names mapped (an unmapped one its own finding), per-device
/// credentials, and OAuth2 tokens that expire mid-run behind a gateway VitalSim did not write.
final class SUTProfileRunTests: XCTestCase {
    var directory = ""
    let golden = TestSupport.repositoryRoot + "/golden"
    let crisis = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"
    let hypo = TestSupport.repositoryRoot + "/scenarios/core/t1d-nocturnal-hypoglycemia.yaml"

    override func setUp() { directory = TestSupport.temporaryDirectory("sut-profile") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func vitalsim(_ args: [String], environment: [String: String?] = [:]) throws -> (status: Int32, out: String, err: String) {
        var env = environment
        env["CI"] = "true"
        return try TestSupport.vitalsim(args, in: directory, environment: env)
    }

    /// The reference SUT's alerts as FHIR DetectedIssues, two per page.
    static let fhirAlerts = """
        alerts:
          url: /fhir/DetectedIssue?_count=2
          list: /entry/*/resource
          paging: fhir-bundle
          fields:
            id: /id
            patient: {pointer: /patient/reference, strip-prefix: Patient/}
            rule: /code/coding/0/code
            severity: /severity
            raised-at: /identifiedDateTime
            evidence: {pointer: /evidence/*/detail/*/reference, strip-prefix: Observation/}
        severities: {high: high, moderate: medium, low: low}
        """

    func testAlertsReadAsPagedFHIRBundlesJudgeLikeTheContract() throws {
        let profile = TestSupport.write("name: fhir-alerts\n" + Self.fhirAlerts, to: directory, name: "fhir.yaml")
        let r = try vitalsim(["run", hypo, "--golden-dir", golden, "--sut", profile])
        XCTAssertEqual(r.status, 0, r.out + r.err)
        XCTAssertTrue(r.out.contains("PASS t1d-nocturnal-hypoglycemia: 15/15 checks"), r.out)

        // A rules: table that leaves out the SUT's names: each such alert is `unmapped`, never spurious.
        let partial = TestSupport.write(
            "name: partial\n" + Self.fhirAlerts + "\nrules:\n  glucose.level2-low: glucose.level2-low\n",
            to: directory,
            name: "partial.yaml"
        )
        let u = try vitalsim(["run", hypo, "--golden-dir", golden, "--sut", partial])
        XCTAssertEqual(u.status, 1, u.out + u.err)
        XCTAssertTrue(u.out.contains("unmapped SUT alert 'glucose.urgent-low' patient 504"), u.out)
        XCTAssertTrue(u.out.contains("no mapping for its rule 'glucose.urgent-low'"), u.out)
        XCTAssertTrue(u.out.contains("under name(s) the profile does not map"), u.out)
        XCTAssertFalse(u.out.contains("spurious"), u.out)

        // A field pointer that finds nothing: exit 3 naming the pointer, not missed alerts.
        let wrong = TestSupport.write(
            "name: wrong\n" + Self.fhirAlerts.replacingOccurrences(of: "/identifiedDateTime", with: "/identified"),
            to: directory,
            name: "wrong.yaml"
        )
        let w = try vitalsim(["run", crisis, "--golden-dir", golden, "--sut", wrong])
        XCTAssertEqual(w.status, 3, w.out + w.err)
        XCTAssertTrue(w.err.contains("it has no raisedAt (at /identified)") && w.err.contains("/fhir/DetectedIssue"), w.err)
        XCTAssertFalse(w.out.contains("missed"), w.out)
    }

    func testABadProfileIsAnInputErrorNamingFileAndLine() throws {
        let profile = TestSupport.write("name: p\nalerts:\n  url: /a\n  feilds: {}\n", to: directory, name: "bad.yaml")
        let r = try vitalsim(["run", crisis, "--golden-dir", golden, "--sut", profile])
        XCTAssertEqual(r.status, 2, r.out + r.err)
        XCTAssertTrue(r.err.contains("\(profile):4:3: error: alerts.feilds: unknown key 'feilds' (did you mean 'fields'?)"), r.err)
    }

    /// The patient's cuff has its own key (sent as X-API-Key), alerts are read with the reader token.
    func testPerDeviceCredentialsAndAReaderToken() throws {
        let keys = TestSupport.write(
            """
            devices:
              - {token: cuff-507-key-0123456789, patient: "507", device: cuff-507}
            readers:
              - {token: reader-key-0123456789ab}
            """,
            to: directory,
            name: "keys.yaml"
        )
        let sut = try SUTProcess(
            ["--self-signed", "--credentials", keys, "--database", directory + "/sut.sqlite", "--scenario", crisis],
            directory: directory
        )
        defer { _ = sut.stop() }
        let profile = TestSupport.write(
            "name: keyed\nauth:\n  devices: {file: keys.yaml, header: 'X-API-Key: {token}'}\n",
            to: directory,
            name: "keyed.yaml"
        )
        let target = ["--target", sut.base, "--cacert", sut.caFile ?? ""]
        let doctor = try vitalsim(["doctor", crisis, "--sut", profile] + target)
        XCTAssertEqual(doctor.status, 0, doctor.out + doctor.err)
        let r = try vitalsim(["run", crisis, "--golden-dir", golden, "--sut", profile] + target)
        XCTAssertEqual(r.status, 0, r.out + r.err)

        // A device the file does not know: the run stops at once, exit 3, naming it.
        _ = TestSupport.write(
            "devices:\n  - {token: other-key-0123456789ab, patient: \"507\", device: other}\nreaders:\n  - {token: reader-key-0123456789ab}\n",
            to: directory,
            name: "keys.yaml"
        )
        let missing = try vitalsim(["run", crisis, "--golden-dir", golden, "--sut", profile] + target)
        XCTAssertEqual(missing.status, 3, missing.out + missing.err)
        XCTAssertTrue(
            missing.err.contains("credentials: ") && missing.err.contains("has no token for patient 507 device cuff-507"),
            missing.err
        )
    }

    /// Tokens that die after 1 s while claiming an hour: the run learns it from 401s, gets new ones
    /// and passes; a wrong secret is exit 3 naming the token endpoint.
    func testOAuth2TokensThatExpireMidRun() throws {
        let sut = try SUTProcess(
            ["--self-signed", "--database", directory + "/sut.sqlite", "--scenario", crisis],
            directory: directory
        )
        defer { _ = sut.stop() }
        let (gateway, base) = try startGateway(upstream: sut)
        defer {
            gateway.terminate()
            gateway.waitUntilExit()
        }
        let profile = TestSupport.write(
            """
            name: gateway
            base-url: \(base)
            auth:
              oauth2:
                token-url: /oauth/token
                client-id: vitalsim
                client-secret-env: GATEWAY_SECRET
            """,
            to: directory,
            name: "gateway.yaml"
        )
        let doctor = try vitalsim(["doctor", crisis, "--sut", profile], environment: ["GATEWAY_SECRET": "s3cret"])
        XCTAssertEqual(doctor.status, 0, doctor.out + doctor.err)
        XCTAssertTrue(doctor.out.contains("✓ OAuth2 token: obtained from \(base)/oauth/token"), doctor.out)
        // --speed 20000: the scenario's day takes about 4 s, several token lifetimes.
        let r = try vitalsim(
            ["run", crisis, "--golden-dir", golden, "--sut", profile, "--speed", "20000"],
            environment: ["GATEWAY_SECRET": "s3cret"]
        )
        XCTAssertEqual(r.status, 0, r.out + r.err)
        let stats = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try TestSupport.run("curl", ["-s", base + "/_stats"]).out.utf8)) as? [String: Int]
        )
        XCTAssertGreaterThanOrEqual(stats["tokens_issued"] ?? 0, 3, "tokens were renewed mid-run: \(stats)")
        XCTAssertGreaterThanOrEqual(stats["expired_rejections"] ?? 0, 1, "the gateway refused an expired token: \(stats)")

        let refused = try vitalsim(["run", crisis, "--golden-dir", golden, "--sut", profile], environment: ["GATEWAY_SECRET": "wrong"])
        XCTAssertEqual(refused.status, 3, refused.out + refused.err)
        XCTAssertTrue(
            refused.err.contains("the OAuth2 token endpoint POST \(base)/oauth/token refused client vitalsim with 401"),
            refused.err
        )
        XCTAssertFalse(refused.out.contains("missed"), refused.out)
        let unset = try vitalsim(["run", crisis, "--golden-dir", golden, "--sut", profile], environment: ["GATEWAY_SECRET": nil])
        XCTAssertEqual(unset.status, 2, unset.out + unset.err)
        XCTAssertTrue(unset.err.contains("the environment variable GATEWAY_SECRET (the client secret) is not set"), unset.err)
    }

    /// `Tests/backends/oauth_gateway.py` in front of `upstream`: tokens live 1 s but claim an hour.
    func startGateway(upstream: SUTProcess) throws -> (Process, String) {
        let gateway = Process()
        gateway.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gateway.arguments = [
            "python3", TestSupport.repositoryRoot + "/Tests/backends/oauth_gateway.py", upstream.base, upstream.caFile ?? "", "vitalsim",
            "s3cret", "--lifetime", "1", "--advertise", "3600",
        ]
        let out = Pipe()
        gateway.standardOutput = out
        gateway.standardError = FileHandle.nullDevice
        try gateway.run()
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        guard line.hasPrefix("listening on "), let base = line.split(separator: " ").last else {
            gateway.terminate()
            XCTFail("the OAuth2 gateway did not start: \(line)")
            throw CocoaError(.executableLoad)
        }
        return (gateway, base.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    /// The shipped fhir-r4 profile: readings in FHIR transaction Bundles, refusals read from
    /// OperationOutcomes and mapped back to the golden files' field names; the reference SUT passes,
    /// and the same SUT accepting invalid payloads fails on exactly those checks.
    func testFHIRProfileJudgesRejectionsLikeTheContract() throws {
        let fhir = TestSupport.repositoryRoot + "/profiles/fhir-r4.yaml"
        let corrupt = TestSupport.repositoryRoot + "/scenarios/core/corrupt-and-duplicate-payloads.yaml"
        let evidence = directory + "/evidence"
        let r = try vitalsim(["run", corrupt, "--golden-dir", golden, "--sut", fhir, "--evidence", evidence])
        XCTAssertEqual(r.status, 0, r.out + r.err)
        XCTAssertTrue(r.out.contains("PASS corrupt-and-duplicate-payloads: 112/112 checks"), r.out)
        // Its evidence bundle logs the FHIR traffic as sent; replay proves the readings from the
        // scenario and seed (the profile's wire shape is not in the bundle).
        let bundle = evidence + "/corrupt-and-duplicate-payloads"
        let traffic = try String(contentsOfFile: bundle + "/traffic.jsonl", encoding: .utf8)
        XCTAssertTrue(traffic.contains("\"path\":\"/fhir\""), String(traffic.prefix(400)))
        let replay = try vitalsim(["replay", bundle])
        XCTAssertEqual(replay.status, 0, replay.out + replay.err)
        XCTAssertTrue(
            replay.out.contains("a run through SUT profile 'fhir-r4'") && replay.out.contains("have the recorded digest"),
            replay.out
        )

        let faulty = try vitalsim(["run", corrupt, "--golden-dir", golden, "--sut", fhir, "--sut-fault", "accept-invalid"])
        XCTAssertEqual(faulty.status, 1, faulty.out + faulty.err)
        XCTAssertTrue(faulty.out.contains("validation-mismatch rejects "), faulty.out)
        XCTAssertFalse(faulty.out.contains("accepts "), "only the corrupted readings fail: " + faulty.out)
    }

    /// Seed 003's watch data through the fhir-r4 profile: symptoms as SNOMED CT Observations and ECGs
    /// with their waveform as SampledData, in transaction Bundles; the reference SUT judges them as
    /// it judges the contract's JSON, and a SUT that misses the ECG's AF fails on that alone.
    func testFHIRProfileCarriesSymptomsAndECGs() throws {
        let fhir = TestSupport.repositoryRoot + "/profiles/fhir-r4.yaml"
        let intouch = TestSupport.repositoryRoot + "/scenarios/core/intouch-palpitations-af.yaml"
        let r = try vitalsim(["run", intouch, "--golden-dir", golden, "--sut", fhir])
        XCTAssertEqual(r.status, 0, r.out + r.err)
        XCTAssertTrue(r.out.contains("PASS intouch-palpitations-af"), r.out)
        XCTAssertTrue(r.out.contains("ingestion POST /fhir: 200 ×203"), "every reading, ECGs and symptoms too, as FHIR: " + r.out)
        let missed = try vitalsim(["run", intouch, "--golden-dir", golden, "--sut", fhir, "--sut-fault", "miss-rule=ecg.af-classified"])
        XCTAssertEqual(missed.status, 1, missed.out + missed.err)
        XCTAssertTrue(missed.out.contains("missed alert ecg.af-classified patient 903"), missed.out)
        XCTAssertFalse(missed.out.contains("missed alert symptom"), missed.out)
    }

    /// A Mustache template route (PUT-free: the reference SUT takes POST) carrying the cuff's readings,
    /// and a profile whose routes leave a kind out: exit 3 naming the reading, nothing judged.
    func testTemplateRoutesAndAKindNoRouteCarries() throws {
        _ = TestSupport.write(
            #"{"readingId": "{{readingId}}", "patientId": "{{patientId}}", "deviceId": "{{deviceId}}", "kind": "{{kind}}", "#
                + #""systolic": {{systolic}}, "diastolic": {{diastolic}}, "unit": "{{unit}}", "timestamp": "{{timestamp}}"}"#,
            to: directory,
            name: "bp.mustache"
        )
        let routes = """
            ingestion:
              routes:
                - {kinds: [blood-pressure], path: /api/v1/observations, format: template, template: bp.mustache}
            """
        let withHR = TestSupport.write(
            "name: tpl\n" + routes + "\n    - {kinds: [heart-rate, battery], path: /api/v1/observations, format: vitalsim-observation}\n",
            to: directory,
            name: "tpl.yaml"
        )
        let t = try vitalsim(["run", crisis, "--golden-dir", golden, "--sut", withHR])
        XCTAssertEqual(t.status, 0, t.out + t.err)
        XCTAssertTrue(t.out.contains("PASS hypertensive-crisis"), t.out)

        let partial = TestSupport.write("name: partial\n" + routes + "\n", to: directory, name: "partial-routes.yaml")
        let p = try vitalsim(["run", crisis, "--golden-dir", golden, "--sut", partial])
        XCTAssertEqual(p.status, 3, p.out + p.err)
        XCTAssertTrue(p.err.contains("ingestion: no ingestion route of the SUT profile carries"), p.err)
        XCTAssertFalse(p.out.contains("missed"), p.out)
    }

    /// Alerts that cite no evidence: the evidence check is skipped (never failed) and reading → alert
    /// latency is still measured, from the patient's first request due at the alert's raisedAt.
    func testAlertsWithoutEvidenceSkipTheEvidenceCheck() throws {
        let noEvidence = Self.fhirAlerts.replacingOccurrences(
            of: "\n    evidence: {pointer: /evidence/*/detail/*/reference, strip-prefix: Observation/}",
            with: ""
        )
        XCTAssertFalse(noEvidence.contains("evidence"))
        let profile = TestSupport.write("name: no-evidence\n" + noEvidence, to: directory, name: "noev.yaml")
        let junit = directory + "/junit.xml"
        let r = try vitalsim(["run", hypo, "--golden-dir", golden, "--sut", profile, "--junit", junit])
        XCTAssertEqual(r.status, 0, r.out + r.err)
        XCTAssertTrue(r.out.contains("skipped alert evidence: not checked"), r.out)
        XCTAssertTrue(r.out.contains("reading-to-alert: p50"), r.out)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("<skipped message=\"not checked"), xml)
    }

    /// The shipped `vitaledge` profile, with the IoT endpoint given as an absolute URL (the seeds
    /// make it a service of its own): the VitalEdge scenario passes; a scenario with other devices
    /// stops naming what the profile cannot carry.
    func testVitalEdgeProfileWithItsIoTEndpointAsAURL() throws {
        let sut = try SUTProcess(["--self-signed", "--database", directory + "/sut.sqlite"], directory: directory)
        defer { sut.stop() }
        let shipped = try String(contentsOfFile: TestSupport.repositoryRoot + "/profiles/vitaledge.yaml", encoding: .utf8)
        let profile = TestSupport.write(
            shipped.replacingOccurrences(of: "      path: /api/iot-heart-rate", with: "      path: \(sut.base)/api/iot-heart-rate"),
            to: directory,
            name: "vitaledge.yaml"
        )
        XCTAssertTrue(try String(contentsOfFile: profile, encoding: .utf8).contains("path: https://127.0.0.1:"))
        let target = ["--target", sut.base, "--cacert", sut.caFile ?? "", "--golden-dir", golden, "--sut", profile]
        let vitaledge = TestSupport.repositoryRoot + "/scenarios/core/vitaledge-daily-summary.yaml"
        let r = try vitalsim(["run", vitaledge] + target)
        XCTAssertEqual(r.status, 0, r.out + r.err)
        let other = try vitalsim(["run", crisis] + target)
        XCTAssertEqual(other.status, 3, other.out + other.err)
        XCTAssertTrue(other.err.contains("no ingestion route of the SUT profile carries battery readings of bp-cuff devices"), other.err)
    }

    /// `alerts.push`: the SSE stream's URL and the MQTT topic filter come from the profile and pushed
    /// alerts are read with its fields; a wrong `item` pointer leaves every pushed alert unread, so
    /// the delivery checks fail rather than pass on the reference shape.
    func testPushedAlertsAreReadThroughTheProfile() throws {
        let fields =
            "  fields: {id: /alertId, patient: /patientId, rule: /rule, severity: /severity, raised-at: /raisedAt, evidence: /evidence}\n"
        func profile(_ name: String, push: String) -> String {
            TestSupport.write(
                "name: \(name)\nalerts:\n  url: /api/v1/alerts\n" + fields + "  push: \(push)\n",
                to: directory,
                name: name + ".yaml"
            )
        }
        let observe = ["--observe", "sse", "--observe", "mqtt", "--golden-dir", golden]
        let good = profile("push", push: "{sse: /api/v1/alerts/stream, mqtt-topic: \"alerts/#\"}")
        let r = try vitalsim(["run", crisis, "--sut", good] + observe)
        XCTAssertEqual(r.status, 0, r.out + r.err)
        let wrong = profile("wrong-item", push: "{item: /alert}")
        let w = try vitalsim(["run", crisis, "--sut", wrong] + observe)
        XCTAssertEqual(w.status, 1, w.out + w.err)
        XCTAssertTrue(w.out.contains("alert(s) never arrived via sse") && w.out.contains("alert(s) never arrived via mqtt"), w.out)
    }
}
