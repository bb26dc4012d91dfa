import Foundation
import XCTest

/// The IoT-AI SRS's custom thresholds: patients' own alert limits enrolled in the
/// reference SUT are kept in PostgreSQL over a restart and still judged by. The rest — limits from
/// `--scenario` and from the enrolment, a SUT that ignores them, a profile whose enrolment drops
/// them, SQLite — is tested in-process (`LiveHarnessTests`, `ReferenceSUTTests.PatientRouteTests`).
final class PersonalLimitsRunTests: XCTestCase {
    var directory = ""

    override func setUp() { directory = TestSupport.temporaryDirectory("limits") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testEnrolledLimitsSurviveARestartOnPostgreSQL() throws {
        let pg = try PostgresServer()
        try checkEnrolledLimitsSurviveARestart(database: pg.url)
    }

    func checkEnrolledLimitsSurviveARestart(database: String) throws {
        var sut = try SUTProcess(["--self-signed", "--database", database], directory: directory)
        let body =
            #"{"profile": "adult", "thresholds": {"bp.hypertensive-crisis": {"systolic": 170}, "hr.tachycardia": 120}}"#
        XCTAssertEqual(try sut.curl("PUT", "/api/v1/patients/x1", body: body).status, 201)
        let refused = try sut.curl(
            "PUT",
            "/api/v1/patients/x2",
            body: #"{"profile": "adult", "thresholds": {"infant.spo2-low": 70}}"#
        )
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(refused.body.contains(#""field":"thresholds.infant.spo2-low""#), refused.body)
        XCTAssertEqual(sut.stop(), 0)
        sut = try SUTProcess(["--self-signed", "--database", database], directory: directory)
        defer { XCTAssertEqual(sut.stop(), 0) }
        let kept = try sut.curl("GET", "/api/v1/patients/x1")
        XCTAssertTrue(
            kept.body.contains(
                #""thresholds":{"bp.hypertensive-crisis":{"systolic":170},"hr.tachycardia":{"heart-rate":120}}"#
            ),
            kept.body
        )
        // After the restart the engine still judges x1 by its own crisis limit.
        let bp =
            #"{"readingId":"b1","patientId":"x1","deviceId":"cuff","kind":"blood-pressure","systolic":172,"diastolic":95,"unit":"mm[Hg]","timestamp":"2024-11-07T08:00:00Z"}"#
        XCTAssertEqual(try sut.curl("POST", "/api/v1/observations", body: bp).status, 200)
        let alerts = try sut.alerts("?patientId=x1").compactMap { $0["rule"] as? String }
        XCTAssertEqual(alerts, ["bp.hypertensive-crisis"])
    }

}
