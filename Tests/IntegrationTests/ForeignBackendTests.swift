import Foundation
import Judge
import LiveHarness
import RunRecord
import VitalSimCore
import XCTest

/// A backend VitalSim's code did not write and whose shape is not the reference contract's
/// (`Tests/backends/acme_rpm.py`: FHIR R4 in with per-device keys, its own telemetry JSON, 422
/// refusals naming `/errors/0/path`, short-lived OAuth2 tokens, care-program enrolment, alerts in
/// its own names and levels, paged by cursor, people's keys in a header of their own): the suite
/// passes through a profile alone, the access-control matrix included, and each faulty mode of it
/// is caught with the finding that names the fault.
final class ForeignBackendTests: XCTestCase {
    var directory = ""
    let golden = TestSupport.repositoryRoot + "/golden"
    /// The core scenarios that reach every part of the profile: the care team's access matrix,
    /// audit and deletion, acknowledgement and escalation, MQTT devices, refusals of corrupt
    /// readings, every kind of reading valid and invalid, and the telemetry route of what has no
    /// FHIR form. Every core scenario passes against the reference SUT in-process
    /// (`InProcessRunTests`); here what is tested is the profile in front of a foreign backend.
    let scenarios = [
        "acknowledged-crisis-does-not-escalate", "caregiver-sees-own-patient-only", "copd-desaturation",
        "corrupt-and-duplicate-payloads", "every-kind-valid-and-invalid", "unacknowledged-crisis-escalates",
        "vitaledge-daily-summary",
    ]
    /// The core scenario `doctor` checks the profile with (its enrolment and reset) before the run.
    let doctorScenario = TestSupport.repositoryRoot + "/scenarios/core/chd-infant-interstage.yaml"

    override func setUp() { directory = TestSupport.temporaryDirectory("acme") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// The suite folder (``scenarios``), the profile with its template, and one key per device and
    /// per person of the care teams of every core scenario and of `also` (in the profile's
    /// credentials file and in the backend's own key file), with an expired and a revoked key of
    /// each scenario's first care-team member.
    func prepare(also: [String] = []) throws -> (suite: String, profile: String, keys: String) {
        let suite = directory + "/suite"
        try FileManager.default.createDirectory(atPath: suite, withIntermediateDirectories: true)
        var profileKeys = "devices:\n"
        var backendKeys = ""
        var keyed: Set<String> = []
        var (people, users) = ("people:\n", "")
        let folder = TestSupport.repositoryRoot + "/scenarios/core"
        let everyCore = LiveSuite.scenarioFiles(folder)
        let linked = scenarios.map { folder + "/\($0).yaml" }
        for path in everyCore + also {
            if linked.contains(path) {
                try FileManager.default.createSymbolicLink(
                    atPath: suite + "/" + (path as NSString).lastPathComponent,
                    withDestinationPath: path
                )
            }
            let scenario = try ScenarioLoader.load(path: path)
            for p in scenario.patients {
                for d in p.devices where keyed.insert("\(p.id)/\(d.id)").inserted {
                    let key = "key-\(p.id)-\(d.id)-0123456789"
                    profileKeys += "  - {token: \(key), patient: \"\(p.id)\", device: \(d.id)}\n"
                    backendKeys += "\(key) \(p.id) \(d.id)\n"
                }
            }
            (people, users) = try Self.people(scenario, people, users)
        }
        for file in ["acme-rpm.yaml", "acme-telemetry.mustache"] {
            try FileManager.default.copyItem(
                atPath: TestSupport.repositoryRoot + "/Tests/backends/" + file,
                toPath: directory + "/" + file
            )
        }
        _ = TestSupport.write(profileKeys + people, to: directory, name: "acme-keys.yaml")
        backendKeys += users
        return (
            suite, directory + "/acme-rpm.yaml", TestSupport.write(backendKeys, to: directory, name: "backend-keys.txt")
        )
    }

    /// `scenario`'s people added to the credentials file's `people:` (`people`) and to the backend's
    /// `user KEY PERSON ROLE [STATE]` lines (`users`), each person once.
    static func people(_ scenario: Scenario, _ people: String, _ users: String) throws -> (String, String) {
        var (people, users) = (people, users)
        let everyone = AccessProbe.people(of: scenario)
        for (i, (person, personRole)) in everyone.enumerated()
        where !users.contains(" \(person) \(personRole.rawValue)") {
            let role = personRole.rawValue
            let key = "user-\(person)-0123456789"
            people += "  - {token: \(key), person: \"\(person)\", role: \(role)}\n"
            users += "user \(key) \(person) \(role)\n"
            guard i == 0 else { continue }
            people += "  - {token: \(key)-old, person: \"\(person)\", role: \(role), expires: 2000-01-01T00:00:00Z}\n"
            people += "  - {token: \(key)-gone, person: \"\(person)\", role: \(role), revoked: true}\n"
            users += "user \(key)-old \(person) \(role) expired\nuser \(key)-gone \(person) \(role) revoked\n"
        }
        return (people, users)
    }

    /// The ACME backend in front of a fresh reference SUT (which knows no scenario: profiles come
    /// from the enrolment), tokens living 3 s. ACME reaches it over plain HTTP on loopback: the leg
    /// under test is the harness's to ACME, and TLS in Python costs ACME a tenth of its time.
    func startBackend(
        keys: String,
        faults: [String] = [],
        mqtt: String? = nil,
        options: [String] = []
    ) throws -> (SUTProcess, Process, String) {
        // A day of oximetry over MQTT at --speed max is far over any device's rate: no rate limit, as
        // for the embedded SUT.
        let broker = mqtt.map { ["--mqtt", $0, "--rate-limit", "0"] } ?? []
        let upstream = try SUTProcess(
            ["--database", directory + "/sut-\(faults.count).sqlite"] + broker,
            directory: directory
        )
        let gateway = Process()
        gateway.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gateway.arguments =
            [
                "python3", TestSupport.repositoryRoot + "/Tests/backends/acme_rpm.py", upstream.base,
                upstream.caFile ?? "", "vitalsim-ci",
                "s3cret", keys,
            ]
            + ["--lifetime", "3"] + faults.flatMap { ["--fault", $0] } + options
        let out = Pipe()
        gateway.standardOutput = out
        try gateway.run()
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let base =
            line.components(separatedBy: "listening on ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        XCTAssertTrue(base.hasPrefix("http://127.0.0.1:"), line)
        return (upstream, gateway, base)
    }

    func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try TestSupport.vitalsim(args, in: directory, environment: ["CI": "true", "ACME_CLIENT_SECRET": "s3cret"])
    }

    func testCoreScenariosPassThroughAProfileAlone() throws {
        let (suite, profile, keys) = try prepare()
        // The backend's broker: the MQTT devices of the core suite publish to it.
        let (broker, port) = try TestSupport.mosquitto("allow_anonymous true\npersistence false\n", in: directory)
        let mqtt = "127.0.0.1:\(port)"
        let (upstream, gateway, base) = try startBackend(keys: keys, mqtt: mqtt)
        defer {
            gateway.terminate()
            gateway.waitUntilExit()
            upstream.stop()
            broker.terminate()
            broker.waitUntilExit()
        }
        // What is tested is the profile, not latency: budgets are SHOULD here (judged, warnings), as
        // three test processes on two cores push an MQTT alert past 1 s now and then.
        let goldens = try TestSupport.goldensWithBudgetsAsShould(in: directory)
        let target = ["--target", base, "--sut", profile, "--golden-dir", goldens, "--mqtt", mqtt]
        let doctor = try run(["doctor", doctorScenario, "--target", base, "--sut", profile])
        XCTAssertEqual(doctor.status, 0, doctor.out + doctor.err)
        XCTAssertTrue(doctor.out.contains("✓ enrolment") && doctor.out.contains("✓ reset"), doctor.out)
        // What doctor cost the backend (a token, a refused reading), not counted in the run's contract.
        let before = try XCTUnwrap(
            SUTProcess.json(try TestSupport.run("curl", ["-s", base + "/_stats"]).out) as? [String: Int]
        )
        // The run lasts longer than the 3 s tokens: they expire mid-run and are renewed. Expected
        // alerts are waited for whatever the settling time; half a second keeps the suite's 25 settles short.
        let ran = try run(["run", suite] + target + ["--settle", "0.5", "--json", directory + "/report.json"])
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        XCTAssertTrue(ran.out.contains("PASS \(scenarios.count)/\(scenarios.count) scenario(s)"), ran.out)
        // The access matrix of the care-team scenario ran through ACME's user keys, and passed.
        let report = try XCTUnwrap(
            SUTProcess.json(String(contentsOfFile: directory + "/report.json", encoding: .utf8)) as? [String: Any]
        )
        let verdicts = try XCTUnwrap(report["scenarios"] as? [[String: Any]])
        let team = try XCTUnwrap(verdicts.first { $0["scenario"] as? String == "caregiver-sees-own-patient-only" })
        let checks = try XCTUnwrap(team["checks"] as? [[String: Any]])
        let access = checks.filter {
            $0["kind"] as? String == "access" && ($0["name"] as? String)?.hasPrefix("access ") == true
        }
        XCTAssertEqual(access.count, 49)
        // ACME's DELETE /v2/patients/{id} (the profile's reset) leaves nothing of either patient readable.
        let deleted = checks.filter { ($0["name"] as? String)?.hasSuffix(" readable after deletion") == true }
        XCTAssertEqual(deleted.count, 2, "\(deleted)")
        XCTAssertTrue(
            deleted.allSatisfy { $0["passed"] as? Bool == true && $0["skipped"] as? Bool != true },
            "\(deleted)"
        )
        XCTAssertTrue(
            access.allSatisfy { $0["passed"] as? Bool == true },
            "\(access.filter { $0["passed"] as? Bool != true })"
        )
        // ACME's own audit log (users/PERSON, READ/LIST/ACK) read through the profile's audit:
        // each person's granted reads are on it, and nothing invented.
        let audit = checks.filter { $0["kind"] as? String == "audit" }
        XCTAssertEqual(audit.count, 5, "\(audit)")
        XCTAssertTrue(
            audit.allSatisfy { $0["passed"] as? Bool == true && $0["skipped"] as? Bool != true },
            "\(audit)"
        )
        XCTAssertTrue(
            ran.out.contains("skipped"),
            "no evidence in ACME's alerts: the evidence check is skipped\n" + ran.out
        )
        let stats = try TestSupport.run("curl", ["-s", base + "/_stats"]).out
        let counters = try XCTUnwrap(SUTProcess.json(stats) as? [String: Int], stats)
        XCTAssertGreaterThan(counters["tokens_issued"] ?? 0, 1, "tokens were renewed: \(stats)")
        XCTAssertGreaterThan(counters["refused"] ?? 0, 0, "corrupt readings were refused with 422: \(stats)")
        try checkContract(
            directory + "/report.json",
            tokens: (counters["tokens_issued"] ?? 0) - (before["tokens_issued"] ?? 0),
            refused: (counters["refused"] ?? 0) - (before["refused"] ?? 0)
        )
    }

    /// The report's SUT-contract section names every endpoint the run used, ids templated, with the
    /// statuses the backend itself counted.
    func checkContract(_ report: String, tokens: Int, refused: Int) throws {
        let json = try XCTUnwrap(SUTProcess.json(String(contentsOfFile: report, encoding: .utf8)) as? [String: Any])
        let contract = try XCTUnwrap(json["contract"] as? [String: Any], "the merged contract")
        let endpoints = try XCTUnwrap(contract["endpoints"] as? [[String: Any]])
        func statuses(_ role: String, _ name: String) -> [String: Int]? {
            endpoints.first { $0["role"] as? String == role && $0["name"] as? String == name }?["statuses"]
                as? [String: Int]
        }
        let names = endpoints.map { "\($0["role"] ?? "") \($0["name"] ?? "")" }
        XCTAssertEqual(statuses("token", "POST /oauth/token"), ["200": tokens], "\(names)")
        XCTAssertEqual(statuses("enrol", "POST /v2/patients")?.keys.sorted(), ["201"], "\(names)")
        XCTAssertEqual(statuses("reset", "DELETE /v2/patients/{patient}")?.keys.sorted(), ["204"], "\(names)")
        XCTAssertEqual(
            statuses("enrol", "POST /v2/patients")?["201"],
            statuses("reset", "DELETE /v2/patients/{patient}")?["204"]
        )
        let fhir = try XCTUnwrap(statuses("ingestion", "POST /fhir/r4/Observation"), "\(names)")
        let telemetry = statuses("ingestion", "POST /v2/telemetry") ?? [:]
        XCTAssertEqual(
            (fhir["422"] ?? 0) + (telemetry["422"] ?? 0),
            refused,
            "every refusal the backend counted: \(fhir) \(telemetry)"
        )
        XCTAssertNotNil(statuses("ingestion", "MQTT vitals/{patient}/spo2")?["200"], "\(names)")
        XCTAssertTrue(names.contains { $0.hasPrefix("alerts GET /v2/alerts") }, "\(names)")
        let alerts = try XCTUnwrap(contract["alerts"] as? [String: Any])
        // Each alert the golden files expect was read through the profile, in ACME's own names.
        let expected = try scenarios.map { name in
            try GoldenFile.parse(
                String(contentsOfFile: golden + "/\(name).golden.yaml", encoding: .utf8),
                file: name
            ).alerts.count
        }
        XCTAssertEqual(alerts["read"] as? Int, expected.reduce(0, +))
        XCTAssertEqual(alerts["unmapped"] as? [String: Int], [:])
        XCTAssertEqual(alerts["unreadable"] as? Int, 0)
    }

    func testFaultyModesAreCaughtWithTheRightFinding() throws {
        let (_, profile, keys) = try prepare()
        let crisis = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"
        let vitaledge = TestSupport.repositoryRoot + "/scenarios/core/vitaledge-daily-summary.yaml"
        let cases: [(fault: String, scenario: String, finding: String)] = [
            ("drop-type:HIGH_BP", crisis, "missed alert bp.hypertensive-crisis patient 507"),
            (
                "level-shift", crisis,
                "wrong-severity alert bp.hypertensive-crisis patient 507: severity medium, expected high"
            ),
            ("accept-invalid", vitaledge, "validation-mismatch rejects"),
            (
                "forget-readings", crisis,
                "lost-after-ack stored readings of patient 507 kept: 4 of 28 acknowledged reading(s)"
            ),
            (
                "coarse-units", TestSupport.repositoryRoot + "/scenarios/core/fever-spike.yaml",
                "altered stored readings of patient 508 unaltered"
            ),
            (
                "leak-patients", TestSupport.repositoryRoot + "/scenarios/core/caregiver-sees-own-patient-only.yaml",
                "access-granted-wrongly access caregiver ann read-readings patient 722 (not in care)"
            ),
            (
                "first-page-only", TestSupport.repositoryRoot + "/scenarios/core/unacknowledged-crisis-escalates.yaml",
                "missed-escalation escalates bp.hypertensive-crisis patient 741 to dr-osei after 900s"
            ),
        ]
        for c in cases {
            let (upstream, gateway, base) = try startBackend(keys: keys, faults: [c.fault])
            // A short --alert-wait: the dropped alert is not waited for long.
            let ran = try run([
                "run", c.scenario, "--target", base, "--sut", profile, "--golden-dir", golden, "--alert-wait", "3",
            ])
            gateway.terminate()
            gateway.waitUntilExit()
            upstream.stop()
            XCTAssertEqual(ran.status, 1, c.fault + ": " + ran.out + ran.err)
            XCTAssertTrue(ran.out.contains(c.finding), c.fault + ": " + ran.out)
        }
    }

    /// A backend that drops the patients' own limits fails on exactly the alerts they change: the
    /// crisis below the standard limit is missed, the athlete's resting rate alerts. (That `vitalsim
    /// shrink` keeps a patient whole, limits and all, is `JudgeTests.ShrinkerTests`.)
    func testABackendIgnoringThePatientsOwnLimitsFailsOnTheAlertsTheyChange() throws {
        let limits = TestSupport.repositoryRoot + "/scenarios/limits/personal-alert-limits.yaml"
        let (_, profile, keys) = try prepare(also: [limits])
        let (upstream, gateway, base) = try startBackend(keys: keys, faults: ["ignore-limits"])
        defer {
            gateway.terminate()
            gateway.waitUntilExit()
            upstream.stop()
        }
        let ran = try run([
            "run", limits, "--target", base, "--sut", profile, "--golden-dir", golden, "--alert-wait", "2",
        ])
        XCTAssertEqual(ran.status, 1, ran.out + ran.err)
        XCTAssertTrue(ran.out.contains("missed alert bp.hypertensive-crisis patient 602"), ran.out)
        XCTAssertTrue(ran.out.contains("unexpected alert hr.bradycardia patient 601"), ran.out)
    }

    /// The IoT-AI SRS's custom thresholds reach the backend through its own enrolment (a Mustache section
    /// renders them as ACME's `alert_limits`). A backend that drops them fails on the right alerts:
    /// `testABackendIgnoringThePatientsOwnLimitsFailsOnTheAlertsTheyChange` runs that one.
    func testPatientsOwnLimitsReachTheBackendThroughItsEnrolment() throws {
        let limits = TestSupport.repositoryRoot + "/scenarios/limits/personal-alert-limits.yaml"
        let (_, profile, keys) = try prepare(also: [limits])
        let (upstream, gateway, base) = try startBackend(keys: keys)
        let ran = try run([
            "run", limits, "--target", base, "--sut", profile, "--golden-dir", golden, "--alert-wait", "3",
        ])
        gateway.terminate()
        gateway.waitUntilExit()
        upstream.stop()
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        XCTAssertTrue(ran.out.contains("PASS 1/1 scenario(s)"), ran.out)
    }

    /// A read-back whose paging never ends is a misconfiguration named as such, not lost readings.
    func testAReadBackThatPagesForeverIsNamed() throws {
        let (_, profile, keys) = try prepare()
        let (upstream, gateway, base) = try startBackend(keys: keys, faults: ["stuck-paging"])
        let crisis = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"
        let ran = try run(["run", crisis, "--target", base, "--sut", profile, "--golden-dir", golden])
        gateway.terminate()
        gateway.waitUntilExit()
        upstream.stop()
        XCTAssertEqual(ran.status, 3, ran.out + ran.err)
        XCTAssertTrue(
            ran.err.contains(
                "names itself as the next page: the read-back would never end; check stored-readings.paging"
            ),
            ran.err
        )
        XCTAssertFalse(ran.out.contains("lost-after-ack"), ran.out)
    }

    /// A backend that stamps its alerts with its own clock: judged through `alerts.clock: server`
    /// (each alert placed on the device time of its patient's last request sent before it); without
    /// it, the run says the profile is wrong (exit 3) rather than that every alert was missed.
    func testAlertsStampedByTheServersClock() throws {
        let (_, profile, keys) = try prepare()
        let scenarios = ["hypertensive-crisis", "t1d-nocturnal-hypoglycemia"].map {
            TestSupport.repositoryRoot + "/scenarios/core/\($0).yaml"
        }
        let (upstream, gateway, base) = try startBackend(keys: keys, options: ["--server-clock"])
        defer {
            gateway.terminate()
            gateway.waitUntilExit()
            upstream.stop()
        }
        let wrong = try run([
            "run", scenarios[0], "--target", base, "--sut", profile, "--golden-dir", golden, "--run-id", "device-clock",
        ])
        XCTAssertEqual(wrong.status, 3, wrong.out + wrong.err)
        XCTAssertTrue(wrong.err.contains("stamped more than a day outside the scenario's time"), wrong.err)
        XCTAssertTrue(wrong.err.contains("needs alerts.clock: server"), wrong.err)
        XCTAssertFalse(wrong.out.contains("missed"), "no clinical finding: \(wrong.out)")
        let text = try String(contentsOfFile: profile, encoding: .utf8)
        let server = directory + "/acme-server-clock.yaml"
        try text.replacingOccurrences(
            of: "\n  time-format: unix-ms\n",
            with: "\n  time-format: unix-ms\n  clock: server\n"
        )
        .write(
            toFile: server,
            atomically: true,
            encoding: .utf8
        )
        for scenario in scenarios {
            let ran = try run(["run", scenario, "--target", base, "--sut", server, "--golden-dir", golden])
            XCTAssertEqual(ran.status, 0, scenario + ": " + ran.out + ran.err)
        }
    }

    /// A rule name the profile does not map is its own finding, and the report's SUT contract lists
    /// the raw name, never a spurious or missed alert alone.
    func testAnUnmappedRuleNameIsReportedWithItsRawName() throws {
        let (_, profile, keys) = try prepare()
        let text = try String(contentsOfFile: profile, encoding: .utf8)
        try text.replacingOccurrences(of: "  HIGH_BP: bp.hypertensive-crisis\n", with: "").write(
            toFile: profile,
            atomically: true,
            encoding: .utf8
        )
        let crisis = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"
        let (upstream, gateway, base) = try startBackend(keys: keys)
        defer {
            gateway.terminate()
            gateway.waitUntilExit()
            upstream.stop()
        }
        let report = directory + "/unmapped.json"
        let ran = try run([
            "run", crisis, "--target", base, "--sut", profile, "--golden-dir", golden, "--alert-wait", "3", "--json",
            report,
        ])
        XCTAssertEqual(ran.status, 1, ran.out + ran.err)
        XCTAssertTrue(ran.out.contains("unmapped"), ran.out)
        XCTAssertTrue(ran.out.contains("unmapped: rule 'HIGH_BP' ×"), "the console's SUT contract names it: \(ran.out)")
        let json = try XCTUnwrap(SUTProcess.json(String(contentsOfFile: report, encoding: .utf8)) as? [String: Any])
        let alerts = try XCTUnwrap((json["contract"] as? [String: Any])?["alerts"] as? [String: Any])
        XCTAssertGreaterThan((alerts["unmapped"] as? [String: Int])?["rule 'HIGH_BP'"] ?? 0, 0, "\(alerts)")
    }
}
