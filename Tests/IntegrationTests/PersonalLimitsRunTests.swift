import Foundation
import XCTest

/// Issue 19, item 4 (seed 000's custom thresholds): a scenario's per-patient alert limits reach the
/// reference SUT — from `--scenario` for the embedded one, from the enrolment for a long-lived one,
/// kept in storage over a restart — and a SUT that ignores them, or a profile whose enrolment
/// drops them, is caught: the first as a clinical failure, the second as a misconfiguration.
final class PersonalLimitsRunTests: XCTestCase {
    var directory = ""
    let golden = TestSupport.repositoryRoot + "/golden"
    let limits = TestSupport.repositoryRoot + "/scenarios/limits/personal-alert-limits.yaml"
    let shared = TestSupport.repositoryRoot + "/profiles/vitalsim-shared.yaml"

    override func setUp() { directory = TestSupport.temporaryDirectory("limits") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func vitalsim(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try TestSupport.vitalsim(args, in: directory, environment: ["CI": "true"])
    }

    func testTheEmbeddedSUTJudgesByThePatientsOwnLimits() throws {
        let pass = try vitalsim(["run", limits])
        XCTAssertEqual(pass.status, 0, pass.out + pass.err)
        let fault = try vitalsim(["run", limits, "--sut-fault", "ignore-limits", "--alert-wait", "3"])
        XCTAssertEqual(fault.status, 1, fault.out + fault.err)
        XCTAssertTrue(fault.out.contains("missed alert bp.hypertensive-crisis patient 602"), fault.out)
        XCTAssertTrue(fault.out.contains("spurious unexpected alert hr.bradycardia patient 601"), fault.out)
        XCTAssertTrue(fault.out.contains("spurious unexpected alert hr.tachycardia patient 601 at 2024-11-07T09:11"), fault.out)
    }

    func testALongLivedSUTLearnsThemAtEnrolment() throws {
        let sut = try SUTProcess(["--self-signed", "--database", directory + "/sut.sqlite"], directory: directory)
        defer { XCTAssertEqual(sut.stop(), 0) }
        let target = ["--target", sut.base, "--cacert", sut.caFile ?? "", "--golden-dir", golden]
        let r = try vitalsim(["run", limits, "--sut", shared, "--run-id", "l1"] + target)
        XCTAssertEqual(r.status, 0, r.out + r.err)
    }

    func testEnrolledLimitsSurviveARestartOnSQLite() throws {
        try checkEnrolledLimitsSurviveARestart(database: directory + "/sut.sqlite")
    }

    func testEnrolledLimitsSurviveARestartOnPostgreSQL() throws {
        let pg = try PostgresServer()
        try checkEnrolledLimitsSurviveARestart(database: pg.url)
    }

    func checkEnrolledLimitsSurviveARestart(database: String) throws {
        var sut = try SUTProcess(["--self-signed", "--database", database], directory: directory)
        let body = #"{"profile": "adult", "thresholds": {"bp.hypertensive-crisis": {"systolic": 170}, "hr.tachycardia": 120}}"#
        XCTAssertEqual(try sut.curl("PUT", "/api/v1/patients/x1", body: body).status, 201)
        let refused = try sut.curl("PUT", "/api/v1/patients/x2", body: #"{"profile": "adult", "thresholds": {"infant.spo2-low": 70}}"#)
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(refused.body.contains(#""field":"thresholds.infant.spo2-low""#), refused.body)
        XCTAssertEqual(sut.stop(), 0)
        sut = try SUTProcess(["--self-signed", "--database", database], directory: directory)
        defer { XCTAssertEqual(sut.stop(), 0) }
        let kept = try sut.curl("GET", "/api/v1/patients/x1")
        XCTAssertTrue(
            kept.body.contains(#""thresholds":{"bp.hypertensive-crisis":{"systolic":170},"hr.tachycardia":{"heart-rate":120}}"#),
            kept.body
        )
        // After the restart the engine still judges x1 by its own crisis limit.
        let bp =
            #"{"readingId":"b1","patientId":"x1","deviceId":"cuff","kind":"blood-pressure","systolic":172,"diastolic":95,"unit":"mm[Hg]","timestamp":"2024-11-07T08:00:00Z"}"#
        XCTAssertEqual(try sut.curl("POST", "/api/v1/observations", body: bp).status, 200)
        let alerts = try sut.alerts("?patientId=x1").compactMap { $0["rule"] as? String }
        XCTAssertEqual(alerts, ["bp.hypertensive-crisis"])
    }

    func testAnEnrolmentThatDropsTheLimitsIsAMisconfiguration() throws {
        let text = try String(contentsOfFile: shared, encoding: .utf8).replacingOccurrences(
            of: #", "thresholds": {{thresholdsJSON}}"#,
            with: ""
        )
        let dropping = TestSupport.write(text, to: directory, name: "dropping.yaml")
        let r = try vitalsim(["run", limits, "--sut", dropping, "--target", "https://127.0.0.1:9", "--golden-dir", golden])
        XCTAssertEqual(r.status, 3, r.out + r.err)
        XCTAssertTrue(
            (r.out + r.err).contains(
                "patient 601 has its own alert limits (thresholds:), but no lifecycle.enrol step passes them to the SUT"
            ),
            r.out + r.err
        )
    }
}
