import Foundation
import XCTest

/// `vitalsim run --sut PROFILE` and `vitalsim doctor --sut`: alerts read in another shape (FHIR
/// DetectedIssue Bundles, paged), names mapped (an unmapped one its own finding), per-device
/// credentials, and OAuth2 tokens that expire mid-run behind a gateway VitalSim did not write.
final class SUTProfileRunTests: XCTestCase {
    var directory = ""
    let golden = TestSupport.repositoryRoot + "/golden"
    let crisis = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"

    override func setUp() { directory = TestSupport.temporaryDirectory("sut-profile") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func vitalsim(
        _ args: [String],
        environment: [String: String?] = [:]
    ) throws -> (status: Int32, out: String, err: String) {
        var env = environment
        env["CI"] = "true"
        return try TestSupport.vitalsim(args, in: directory, environment: env)
    }

    func testABadProfileIsAnInputErrorNamingFileAndLine() throws {
        let profile = TestSupport.write("name: p\nalerts:\n  url: /a\n  feilds: {}\n", to: directory, name: "bad.yaml")
        let ran = try vitalsim(["run", crisis, "--golden-dir", golden, "--sut", profile])
        XCTAssertEqual(ran.status, 2, ran.out + ran.err)
        XCTAssertTrue(
            ran.err.contains("\(profile):4:3: error: alerts.feilds: unknown key 'feilds' (did you mean 'fields'?)"),
            ran.err
        )
    }

    /// `vitalsim doctor` through a profile whose devices have their own keys (sent as X-API-Key)
    /// and whose alerts are read with a reader token. (Runs through such a profile are tested
    /// in-process: `LiveHarnessTests.InProcessProfileTests`.)
    func testDoctorWithPerDeviceCredentialsAndAReaderToken() throws {
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
        let doctor = try vitalsim([
            "doctor", crisis, "--sut", profile, "--target", sut.base, "--cacert", sut.caFile ?? "",
        ])
        XCTAssertEqual(doctor.status, 0, doctor.out + doctor.err)
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
        let ran = try vitalsim(
            ["run", crisis, "--golden-dir", golden, "--sut", profile, "--speed", "20000"],
            environment: ["GATEWAY_SECRET": "s3cret"]
        )
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        let stats = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try TestSupport.run("curl", ["-s", base + "/_stats"]).out.utf8))
                as? [String: Int]
        )
        XCTAssertGreaterThanOrEqual(stats["tokens_issued"] ?? 0, 3, "tokens were renewed mid-run: \(stats)")
        XCTAssertGreaterThanOrEqual(
            stats["expired_rejections"] ?? 0,
            1,
            "the gateway refused an expired token: \(stats)"
        )

        let refused = try vitalsim(
            ["run", crisis, "--golden-dir", golden, "--sut", profile],
            environment: ["GATEWAY_SECRET": "wrong"]
        )
        XCTAssertEqual(refused.status, 3, refused.out + refused.err)
        XCTAssertTrue(
            refused.err.contains("the OAuth2 token endpoint POST \(base)/oauth/token refused client vitalsim with 401"),
            refused.err
        )
        XCTAssertFalse(refused.out.contains("missed"), refused.out)
        let unset = try vitalsim(
            ["run", crisis, "--golden-dir", golden, "--sut", profile],
            environment: ["GATEWAY_SECRET": nil]
        )
        XCTAssertEqual(unset.status, 2, unset.out + unset.err)
        XCTAssertTrue(
            unset.err.contains("the environment variable GATEWAY_SECRET (the client secret) is not set"),
            unset.err
        )
    }

    /// `Tests/backends/oauth_gateway.py` in front of `upstream`: tokens live 1 s but claim an hour.
    func startGateway(upstream: SUTProcess) throws -> (Process, String) {
        try TestSupport.startListening(
            "oauth_gateway.py",
            [upstream.base, upstream.caFile ?? "", "vitalsim", "s3cret", "--lifetime", "1", "--advertise", "3600"]
        )
    }

    /// A run through the shipped fhir-r4 profile writes an evidence bundle that logs the FHIR
    /// traffic as sent, and `vitalsim replay` proves its readings from the scenario and seed (the
    /// profile's wire shape is not in the bundle). Its judging is tested in-process
    /// (`LiveHarnessTests.InProcessProfileTests`).
    func testFHIRProfileRunLeavesAnEvidenceBundleThatReplays() throws {
        let fhir = TestSupport.repositoryRoot + "/profiles/fhir-r4.yaml"
        let corrupt = TestSupport.repositoryRoot + "/scenarios/core/corrupt-and-duplicate-payloads.yaml"
        let evidence = directory + "/evidence"
        let ran = try vitalsim(["run", corrupt, "--golden-dir", golden, "--sut", fhir, "--evidence", evidence])
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        // 22 expected refusals, each a status check and a check of the field it names; two read-backs
        // by period (fhir-r4's by-period).
        XCTAssertTrue(ran.out.contains("PASS corrupt-and-duplicate-payloads: 54/54 checks"), ran.out)
        let bundle = evidence + "/corrupt-and-duplicate-payloads"
        let traffic = try String(contentsOfFile: bundle + "/traffic.jsonl", encoding: .utf8)
        XCTAssertTrue(traffic.contains("\"path\":\"/fhir\""), String(traffic.prefix(400)))
        let replay = try vitalsim(["replay", bundle])
        XCTAssertEqual(replay.status, 0, replay.out + replay.err)
        XCTAssertTrue(
            replay.out.contains("a run through SUT profile 'fhir-r4'")
                && replay.out.contains("have the recorded digest"),
            replay.out
        )
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
        let ran = try vitalsim(["run", crisis, "--sut", good] + observe)
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        let wrong = profile("wrong-item", push: "{item: /alert}")
        let w = try vitalsim(["run", crisis, "--sut", wrong] + observe)
        XCTAssertEqual(w.status, 1, w.out + w.err)
        XCTAssertTrue(
            w.out.contains("alert(s) never arrived via sse") && w.out.contains("alert(s) never arrived via mqtt"),
            w.out
        )
    }
}
