import Foundation
import TestFixtures
import XCTest

/// A SUT profile's `lifecycle`: one long-lived reference SUT serves scenario after scenario and run
/// after run (patients enrolled with their profile, deleted after, ids namespaced by run), and every
/// lifecycle step that fails ends the run as a misconfiguration (exit 3) naming the step.
final class SharedSUTLifecycleTests: XCTestCase {
    var directory = ""
    let golden = TestSupport.repositoryRoot + "/golden"
    let shared = TestSupport.repositoryRoot + "/profiles/vitalsim-shared.yaml"
    let crisis = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"

    override func setUp() { directory = TestSupport.temporaryDirectory("lifecycle") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func vitalsim(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try TestSupport.vitalsim(args, in: directory, environment: ["CI": "true"])
    }

    /// A suite folder: the infant scenario (its rules apply only once the SUT knows the profile),
    /// a VitalEdge one (ids the SUT derives from the patient) and the hypertensive crisis.
    func suite() throws -> String {
        let folder = directory + "/suite"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["chd-infant-interstage", "vitaledge-daily-summary", "hypertensive-crisis"] {
            try FileManager.default.createSymbolicLink(
                atPath: folder + "/\(name).yaml",
                withDestinationPath: TestSupport.repositoryRoot + "/scenarios/core/\(name).yaml"
            )
        }
        return folder
    }

    func testOneLongLivedSUTServesTheSuiteRunAfterRun() throws {
        // No --scenario: the SUT learns each patient's profile only from the enrolment.
        let sut = try SUTProcess(["--self-signed", "--database", directory + "/sut.sqlite"], directory: directory)
        defer { sut.stop() }
        let folder = try suite()
        let target = ["--target", sut.base, "--cacert", sut.caFile ?? "", "--golden-dir", golden]
        for run in 1...2 {
            let r = try vitalsim(["run", folder, "--sut", shared, "--run-id", "r1"] + target)
            XCTAssertEqual(r.status, 0, "run \(run): " + r.out + r.err)
            XCTAssertTrue(r.out.contains("PASS 3/3 scenario(s)"), r.out)
        }
        // Reset deleted every patient with its readings and alerts.
        XCTAssertEqual(try sut.alerts().count, 0)
        XCTAssertEqual(try sut.curl("GET", "/api/v1/patients/r1-hypertensive-crisis-507").status, 404)

        // Ids namespaced by run but nothing deleted: the next run's judge ignores what earlier runs left.
        let keep = TestSupport.write(
            (try String(contentsOfFile: shared, encoding: .utf8)).components(separatedBy: "  reset:")[0]
                + "alerts:\n  url: /api/v1/alerts\n  fields: {id: /alertId, patient: /patientId, rule: /rule, severity: /severity, raised-at: /raisedAt, evidence: /evidence}\n",
            to: directory,
            name: "keep.yaml"
        )
        for run in ["k1", "k2"] {
            let r = try vitalsim(["run", folder, "--sut", keep, "--run-id", run] + target)
            XCTAssertEqual(r.status, 0, run + ": " + r.out + r.err)
        }
        let left = try sut.alerts()
        XCTAssertTrue(left.contains { ($0["patientId"] as? String) == "k1-hypertensive-crisis-507" }, "\(left)")
        let kept = try sut.curl("GET", "/api/v1/patients/k2-chd-infant-interstage-509")
        XCTAssertEqual(kept.status, 200, kept.body)
        XCTAssertTrue(kept.body.contains(#""profile":"chd-infant""#), kept.body)

        // Without the lifecycle the same SUT fails the suite: profiles unknown, earlier alerts spurious.
        let plain = try vitalsim(["run", folder] + target)
        XCTAssertEqual(plain.status, 1, plain.out + plain.err)
        XCTAssertTrue(plain.out.contains("FAIL chd-infant-interstage"), plain.out)
    }

    func testAFailingLifecycleStepIsAMisconfiguration() throws {
        let wrongPath = TestSupport.write(
            """
            name: wrong-path
            lifecycle:
              patient-id: "{run}-{patient}"
              enrol:
                - {method: PUT, path: "/api/v1/patient/{patient}", body: '{"profile": "{{profile}}"}'}
            """,
            to: directory,
            name: "wrong.yaml"
        )
        let w = try vitalsim(["run", crisis, "--golden-dir", golden, "--sut", wrongPath, "--run-id", "w"])
        XCTAssertEqual(w.status, 3, w.out + w.err)
        XCTAssertTrue(
            w.err.contains("lifecycle: lifecycle.enrol[0] (PUT /api/v1/patient/{patient}) for patient 507 (w-507 at the SUT): PUT ")
                && w.err.contains("/api/v1/patient/w-507 answered 404 (expected 2xx)"),
            w.err
        )
        XCTAssertFalse(w.out.contains("missed"), w.out)

        // Commands: the patient's JSON on standard input, placeholders filled; a failing reset is exit 3
        // with the end of its output.
        let commands = TestSupport.write(
            """
            name: commands
            lifecycle:
              patient-id: "{run}-{patient}"
              enrol:
                - {command: [sh, -c, "cat > enrolled-$VITALSIM_SCENARIO_PATIENT.json; echo {patient} >> enrolled.txt"]}
              reset:
                - {command: [sh, -c, "echo cannot reset {patient} >&2; exit 4"]}
            """,
            to: directory,
            name: "commands.yaml"
        )
        let c = try vitalsim(["run", crisis, "--golden-dir", golden, "--sut", commands, "--run-id", "c"])
        XCTAssertEqual(c.status, 3, c.out + c.err)
        XCTAssertTrue(
            c.err.contains("lifecycle.reset[0] (command sh -c echo cannot reset {patient} >&2; exit 4) for patient 507 (c-507 at the SUT)")
                && c.err.contains("exited 4: cannot reset c-507"),
            c.err
        )
        let input = try String(contentsOfFile: directory + "/enrolled-507.json", encoding: .utf8)
        let json = try XCTUnwrap(SUTProcess.json(input) as? [String: Any], input)
        XCTAssertEqual(json["patientId"] as? String, "c-507")
        XCTAssertEqual(json["scenarioPatientId"] as? String, "507")
        XCTAssertEqual(json["run"] as? String, "c")
        XCTAssertEqual((json["devices"] as? [[String: Any]])?.first?["deviceId"] as? String, "cuff-507")
        XCTAssertEqual(try String(contentsOfFile: directory + "/enrolled.txt", encoding: .utf8), "c-507\n")
    }

    func testPatientsAPINeedsAnAdminAndSurvivesARestartOnSQLite() throws {
        try checkPatientsAPI(database: directory + "/sut.sqlite")
    }

    func testPatientsAPINeedsAnAdminAndSurvivesARestartOnPostgreSQL() throws {
        let pg = try PostgresServer()
        try checkPatientsAPI(database: pg.url)
        XCTAssertEqual(try pg.query("SELECT count(*) FROM patients").first, "0", "the deletion reached PostgreSQL's own tables")
    }

    /// Enrolment needs an admin token and is durable; deletion removes the readings, so that the same
    /// reading id is new again.
    func checkPatientsAPI(database: String) throws {
        let keys = TestSupport.write(
            """
            devices:
              - {token: device-token-0123456789, patient: p-1, device: oxi-1}
            readers:
              - {token: reader-token-0123456789}
            admins:
              - {token: admin-token-01234567890}
            """,
            to: directory,
            name: "keys.yaml"
        )
        let admin = "admin-token-01234567890"
        let arguments = ["--self-signed", "--credentials", keys, "--database", database]
        var sut = try SUTProcess(arguments, directory: directory)
        let body = #"{"profile": "copd", "devices": [{"deviceId": "oxi-1"}]}"#
        XCTAssertEqual(try sut.curl("PUT", "/api/v1/patients/p-1", body: body).status, 401)
        XCTAssertEqual(try sut.curl("PUT", "/api/v1/patients/p-1", body: body, token: "reader-token-0123456789").status, 403)
        XCTAssertEqual(try sut.curl("PUT", "/api/v1/patients/p-1", body: body, token: "device-token-0123456789").status, 403)
        XCTAssertEqual(try sut.curl("PUT", "/api/v1/patients/p-1", body: body, token: admin).status, 201)
        XCTAssertEqual(try sut.curl("PUT", "/api/v1/patients/p-1", body: body, token: admin).status, 200)
        let bad = try sut.curl("PUT", "/api/v1/patients/p-1", body: #"{"profile": "copdd"}"#, token: admin)
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(bad.body.contains(#""field":"profile""#) && bad.body.contains("unknown profile copdd"), bad.body)
        XCTAssertEqual(try sut.curl("PUT", "/api/v1/patients/a%2Fb", body: body, token: admin).status, 400, "no '/' in an id")
        let reading = observationJSON(
            id: "r-1",
            patient: "p-1",
            device: "oxi-1",
            kind: "spo2",
            value: 95,
            unit: "%",
            at: "2026-11-01T08:00:00Z"
        )
        XCTAssertEqual(try sut.curl("POST", "/api/v1/observations", body: reading, token: "device-token-0123456789").status, 200)
        XCTAssertEqual(try sut.curl("DELETE", "/api/v1/patients/p-1", token: "reader-token-0123456789").status, 403)
        sut.stop()
        sut = try SUTProcess(arguments, directory: directory)
        defer { sut.stop() }
        let read = try sut.curl("GET", "/api/v1/patients/p-1", token: "reader-token-0123456789")
        XCTAssertEqual(read.status, 200, read.body)
        XCTAssertTrue(read.body.contains(#""profile":"copd","thresholds":{},"enrolled":true,"readings":1"#), read.body)
        XCTAssertEqual(try sut.curl("DELETE", "/api/v1/patients/p-1", token: admin).status, 204)
        XCTAssertEqual(try sut.curl("GET", "/api/v1/patients/p-1", token: "reader-token-0123456789").status, 404)
        let again = try sut.curl("POST", "/api/v1/observations", body: reading, token: "device-token-0123456789")
        XCTAssertTrue(again.body.contains(#""accepted":1,"duplicates":0"#), "a deleted reading id is new again: \(again.body)")
    }
}
