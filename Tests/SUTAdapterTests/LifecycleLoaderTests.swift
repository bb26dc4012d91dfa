import Foundation
import SUTAdapter
import Traffic
import VitalSimCore
import XCTest

/// The `lifecycle:` section: ids at the SUT, enrolment and reset steps, and every mistake named.
final class LifecycleLoaderTests: XCTestCase {
    func problem(_ text: String) -> String {
        do throws(ScenarioLoadError) {
            _ = try SUTProfileLoader.parse(text, file: "/tmp/p.yaml", environment: [:])
            return "loaded"
        } catch { return error.description }
    }

    func testShippedSharedProfileEnrolsAndDeletes() throws {
        let path = SUTProfileLoaderTests.repository.appendingPathComponent("profiles/vitalsim-shared.yaml").path
        let p = try SUTProfileLoader.load(path: path, environment: [:])
        XCTAssertEqual(p.lifecycle.patientID, "{run}-{scenario}-{patient}")
        XCTAssertTrue(p.lifecycle.usesRunID)
        XCTAssertEqual(p.lifecycle.enrol.map(\.summary), ["PUT /api/v1/patients/{patient}"])
        XCTAssertEqual(p.lifecycle.reset.map(\.summary), ["DELETE /api/v1/patients/{patient}"])
        let body = p.lifecycle.enrol[0].body([
            "profile": "infant", "devicesJSON": #"[{"deviceId":"d"}]"#, "thresholdsJSON": "{}",
            "careTeamJSON": #"[{"person":"ann","role":"caregiver"}]"#,
            "escalationJSON": #"{"high":[{"afterSeconds":0,"notify":["ann"]}]}"#,
        ])
        XCTAssertEqual(
            body.map { String(decoding: $0, as: UTF8.self) },
            #"{"profile": "infant", "devices": [{"deviceId":"d"}], "thresholds": {}, "careTeam": [{"person":"ann","role":"caregiver"}], "escalation": {"high":[{"afterSeconds":0,"notify":["ann"]}]}}"#
        )
        XCTAssertTrue(p.lifecycle.reset[0].succeeded(status: 204))
        XCTAssertFalse(p.lifecycle.reset[0].succeeded(status: 200), "expect: 204 is exact")
        XCTAssertTrue(p.lifecycle.enrol[0].succeeded(status: 201))
    }

    /// Only a reset step that deletes the patient makes the deletion judged: a `DELETE` of the
    /// patient's own path, a command, or a step that says so; not one deleting something else.
    func testWhichResetStepsDeleteThePatient() throws {
        func reset(_ steps: String) throws -> [Bool] {
            let text = "name: p\nlifecycle:\n  patient-id: \"{run}-{patient}\"\n  reset:\n" + steps
            return try SUTProfileLoader.parse(text, file: "/tmp/p.yaml", environment: [:]).lifecycle.reset.map(
                \.deletes
            )
        }
        XCTAssertEqual(try reset("    - {method: DELETE, path: \"/fhir/Patient/{patient}\"}\n"), [true])
        XCTAssertEqual(try reset("    - {method: DELETE, path: \"/fhir/Subscription?patient={patient}\"}\n"), [false])
        XCTAssertEqual(try reset("    - {method: DELETE, path: /fhir/Subscription/all}\n"), [false])
        XCTAssertEqual(try reset("    - {method: POST, path: \"/patients/{patient}/discharge\"}\n"), [false])
        XCTAssertEqual(
            try reset("    - {method: POST, path: \"/patients/{patient}/erase\", deletes-patient: true}\n"),
            [true]
        )
        XCTAssertEqual(try reset("    - {command: [./forget.sh, \"{patient}\"]}\n"), [true])
        XCTAssertEqual(try reset("    - {command: [./archive.sh], deletes-patient: false}\n"), [false])
        XCTAssertTrue(
            problem(
                "name: p\nlifecycle:\n  reset:\n    - {method: DELETE, path: \"/p/{patient}\", deletes-patient: maybe}\n"
            )
            .contains("lifecycle.reset[0].deletes-patient"),
        )
    }

    func testTheForeignBackendsProfile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitalsim-acme-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let backends = SUTProfileLoaderTests.repository.appendingPathComponent("Tests/backends").path
        for file in ["acme-rpm.yaml", "acme-telemetry.mustache"] {
            try FileManager.default.copyItem(atPath: backends + "/" + file, toPath: folder + "/" + file)
        }
        try Data("devices:\n  - {token: k-0123456789abcdef, patient: \"507\", device: cuff-507}\n".utf8)
            .write(to: URL(fileURLWithPath: folder + "/acme-keys.yaml"))
        let profile = try SUTProfileLoader.load(
            path: folder + "/acme-rpm.yaml",
            environment: ["ACME_CLIENT_SECRET": "s"]
        )
        XCTAssertEqual(profile.ingestion.rejectionStatuses, [422])
        XCTAssertEqual(profile.lifecycle.profileNames["chd-infant"], "CHD_INFANT")
        XCTAssertFalse(profile.lifecycle.usesRunID)
        XCTAssertEqual(profile.mapping.rules?.count, 31, "every VitalSim rule has its ACME name")
    }

    func testShippedVitalEdgeProfileRoutesThePhoneBridgeOnly() throws {
        let path = SUTProfileLoaderTests.repository.appendingPathComponent("profiles/vitaledge.yaml").path
        let profile = try SUTProfileLoader.load(path: path, environment: [:])
        XCTAssertEqual(profile.ingestion.routes.routes.map(\.path), ["/api/healthkit", "/api/iot-heart-rate"])
        XCTAssertTrue(
            profile.ingestion.routes.routes.allSatisfy {
                $0.deviceTypes == [.phoneBridge] && $0.format.name == "vitaledge"
            }
        )
        let absolute = try SUTProfileLoader.parse(
            "name: x\ningestion:\n  routes:\n    - {path: \"https://127.0.0.1:9443/iot/{patient}\", format: vitaledge}\n",
            file: "/tmp/p.yaml",
            environment: [:]
        )
        XCTAssertEqual(absolute.ingestion.routes.routes.first?.path, "https://127.0.0.1:9443/iot/{patient}")
    }

    func testMQTTCredentials() throws {
        let profile = try SUTProfileLoader.parse(
            "name: x\nmqtt:\n  username: vitalsim\n  password-env: PW\n",
            file: "/tmp/p.yaml",
            environment: ["PW": "s3cret"]
        )
        XCTAssertEqual(profile.mqtt.username, "vitalsim")
        XCTAssertEqual(profile.mqtt.password, "s3cret")
        XCTAssertTrue(
            problem("name: x\nmqtt:\n  username: u\n  password-env: NOPE_UNSET\n").contains(
                "NOPE_UNSET (the MQTT password) is not set"
            )
        )
        XCTAssertTrue(problem("name: x\nmqtt:\n  password-env: PW\n").contains("a password goes with a username"))
        XCTAssertTrue(
            problem("name: x\nmqtt:\n  client-key: /nonexistent.pem\n").contains("no readable file at /nonexistent.pem")
        )
    }

    func testCommandStepsAndDefaults() throws {
        let text = """
            name: x
            lifecycle:
              device-id: "{patient}.{device}"
              headers: ["Authorization: Bearer admin-0123"]
              enrol:
                - {command: [./enrol.sh, "{patient}"], timeout: 5s}
              reset:
                - {method: POST, path: "/admin/{run}/reset", body: '{"id": "{{patientId}}"}'}
            """
        let profile = try SUTProfileLoader.parse(text, file: "/srv/profiles/p.yaml", environment: [:])
        XCTAssertNil(profile.lifecycle.patientID)
        XCTAssertEqual(profile.lifecycle.deviceID, "{patient}.{device}")
        XCTAssertEqual(profile.lifecycle.headers, ["Authorization: Bearer admin-0123"])
        XCTAssertTrue(profile.lifecycle.usesRunID, "the reset path uses {run}")
        guard case let .command(arguments, directory) = profile.lifecycle.enrol[0].action else {
            return XCTFail("not a command")
        }
        XCTAssertEqual(arguments, ["./enrol.sh", "{patient}"])
        XCTAssertEqual(directory, "/srv/profiles", "commands run in the profile's folder")
        XCTAssertEqual(profile.lifecycle.enrol[0].timeout, 5)
        XCTAssertTrue(profile.lifecycle.reset[0].succeeded(status: 202), "any 2xx without expect")
        XCTAssertFalse(profile.lifecycle.reset[0].succeeded(status: 404))
    }

    func testMistakesAreNamed() {
        XCTAssertTrue(
            problem("name: x\nlifecycle:\n  patient-id: \"{run}-p\"\n").contains(
                "/tmp/p.yaml:3:15: error: lifecycle.patient-id: put {patient} in it exactly once"
            ),
            problem("name: x\nlifecycle:\n  patient-id: \"{run}-p\"\n")
        )
        XCTAssertTrue(
            problem("name: x\nlifecycle:\n  patient-id: \"{run}/{patient}\"\n").contains("must not contain '/'")
        )
        XCTAssertTrue(
            problem("name: x\nlifecycle:\n  patient-id: \"{tenant}-{patient}\"\n").contains(
                "unknown placeholder {tenant}"
            )
        )
        XCTAssertTrue(
            problem("name: x\nlifecycle:\n  device-id: \"{patient}-d\"\n").contains("put {device} in it exactly once")
        )
        XCTAssertTrue(
            problem("name: x\nlifecycle:\n  enrol:\n    - {method: PUT, path: /p, command: [x]}\n").contains(
                "lifecycle.enrol[0].method: a step is either an HTTP request (method, path) or a command, not both"
            )
        )
        XCTAssertTrue(
            problem("name: x\nlifecycle:\n  reset:\n    - {method: DELETE, path: /p, body: '{}'}\n").contains(
                "DELETE sends no body"
            )
        )
        XCTAssertTrue(
            problem("name: x\nlifecycle:\n  enrol:\n    - {method: HEAD, path: /p}\n").contains(
                "expected one of GET, POST"
            )
        )
        XCTAssertTrue(problem("name: x\nlifecycle:\n  enrol:\n    - {path: /p}\n").contains("needs method and path"))
        XCTAssertTrue(
            problem("name: x\nlifecycle:\n  enrol:\n    - {method: PUT, path: /p, expect: [200, 9000]}\n").contains(
                "expected an HTTP status"
            )
        )
        XCTAssertTrue(
            problem("name: x\nlifecycle:\n  enrol:\n    - {method: PUT, path: /p, body: '{{#devices}}'}\n").contains(
                "lifecycle.enrol[0].body: Mustache error"
            )
        )
        XCTAssertTrue(
            problem("name: x\nlifecycle:\n  enrl: []\n").contains("unknown key 'enrl' (did you mean 'enrol'?)")
        )
        XCTAssertTrue(
            problem("name: x\nlifecycle:\n  profile-names: {copdd: COPD}\n").contains(
                "'copdd' is not a VitalSim profile; valid: adult"
            )
        )
        XCTAssertTrue(
            problem("name: x\ningestion:\n  rejection-status: [400, 404]\n  routes: [{path: /x, format: vitaledge}]\n")
                .contains(
                    "ingestion.rejection-status: 404 cannot mean an invalid reading"
                )
        )
    }

    /// A scenario that sets patients' own limits needs an enrolment that passes them on.
    func testAnEnrolmentMustPassOnThePatientsOwnLimits() throws {
        let scenario = try ScenarioLoader.load(
            path: SUTProfileLoaderTests.repository.appendingPathComponent("scenarios/limits/personal-alert-limits.yaml")
                .path
        )
        let profile = { (enrol: String) throws -> Lifecycle in
            try SUTProfileLoader.parse("name: p\nlifecycle:\n  enrol:\n" + enrol, file: "/tmp/p.yaml", environment: [:])
                .lifecycle
        }
        let dropped = try profile(
            "    - {method: PUT, path: \"/p/{patient}\", body: '{\"profile\": \"{{profile}}\"}'}\n"
        )
        XCTAssertTrue(
            dropped.limitsProblem(scenario)?.hasPrefix(
                "patient 601 has its own alert limits (thresholds:), but no lifecycle.enrol step"
            )
                ?? false
        )
        XCTAssertNil(
            try profile("    - {method: PUT, path: \"/p/{patient}\", body: '{{{thresholdsJSON}}}'}\n").limitsProblem(
                scenario
            )
        )
        let section =
            "    - {method: PUT, path: \"/p/{patient}\", body: '[{{#thresholds}}\"{{rule}}\"{{^last}},{{/last}}{{/thresholds}}]'}\n"
        XCTAssertNil(try profile(section).limitsProblem(scenario))
        XCTAssertNil(
            try profile("    - {command: [./enrol.sh]}\n").limitsProblem(scenario),
            "a command reads them on standard input"
        )
        XCTAssertNil(Lifecycle().limitsProblem(scenario), "no enrolment: the SUT was set up another way")
        var plain = scenario
        for i in plain.patients.indices { plain.patients[i].thresholds = [] }
        XCTAssertNil(dropped.limitsProblem(plain), "nothing to pass on")
    }
}
