import Foundation
import TestFixtures
import XCTest

/// A SUT profile's `lifecycle` where only processes show it: commands as lifecycle steps, and the
/// patients API on PostgreSQL over a restart. One long-lived SUT serving run after run, and HTTP
/// steps that fail, are tested in-process (`LiveHarnessTests.InProcessLifecycleTests`).
final class SharedSUTLifecycleTests: XCTestCase {
    var directory = ""
    let golden = TestSupport.repositoryRoot + "/golden"
    let crisis = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"

    override func setUp() { directory = TestSupport.temporaryDirectory("lifecycle") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func vitalsim(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try TestSupport.vitalsim(args, in: directory, environment: ["CI": "true"])
    }

    /// Lifecycle commands get the patient's JSON on standard input with their placeholders filled,
    /// and a failing reset command ends the run as a misconfiguration (exit 3) with the end of its
    /// output. (HTTP lifecycle steps against one long-lived SUT are tested in-process:
    /// `LiveHarnessTests.InProcessLifecycleTests`.)
    func testLifecycleCommandsAndAFailingResetCommand() throws {
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
            c.err.contains(
                "lifecycle.reset[0] (command sh -c echo cannot reset {patient} >&2; exit 4) for patient 507 (c-507 at the SUT)"
            )
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

    func testPatientsAPINeedsAnAdminAndSurvivesARestartOnPostgreSQL() throws {
        let pg = try PostgresServer()
        try checkPatientsAPI(database: pg.url)
        XCTAssertEqual(
            try pg.query("SELECT count(*) FROM patients").first,
            "0",
            "the deletion reached PostgreSQL's own tables"
        )
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
        XCTAssertEqual(
            try sut.curl("PUT", "/api/v1/patients/p-1", body: body, token: "reader-token-0123456789").status,
            403
        )
        XCTAssertEqual(
            try sut.curl("PUT", "/api/v1/patients/p-1", body: body, token: "device-token-0123456789").status,
            403
        )
        XCTAssertEqual(try sut.curl("PUT", "/api/v1/patients/p-1", body: body, token: admin).status, 201)
        XCTAssertEqual(try sut.curl("PUT", "/api/v1/patients/p-1", body: body, token: admin).status, 200)
        let bad = try sut.curl("PUT", "/api/v1/patients/p-1", body: #"{"profile": "copdd"}"#, token: admin)
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(bad.body.contains(#""field":"profile""#) && bad.body.contains("unknown profile copdd"), bad.body)
        XCTAssertEqual(
            try sut.curl("PUT", "/api/v1/patients/a%2Fb", body: body, token: admin).status,
            400,
            "no '/' in an id"
        )
        let reading = observationJSON(
            id: "r-1",
            patient: "p-1",
            device: "oxi-1",
            kind: "spo2",
            value: 95,
            unit: "%",
            at: "2026-11-01T08:00:00Z"
        )
        XCTAssertEqual(
            try sut.curl("POST", "/api/v1/observations", body: reading, token: "device-token-0123456789").status,
            200
        )
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
        XCTAssertTrue(
            again.body.contains(#""accepted":1,"duplicates":0"#),
            "a deleted reading id is new again: \(again.body)"
        )
    }
}
