import Foundation
import XCTest

/// A SUT whose alerts are only pushed (`alerts.source: webhook|sse|mqtt`): the run reads them as
/// they arrive and polls nothing (the reference SUT's alert list is broken throughout), and a push
/// channel that delivers nothing, or messages that are not readable alerts, is a misconfiguration
/// (exit 3) rather than a missed alert.
final class PushOnlyAlertSourceTests: XCTestCase {
    var directory = ""
    let scenario = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"
    let golden = TestSupport.repositoryRoot + "/golden"
    let fields =
        "{id: /alertId, patient: /patientId, rule: /rule, severity: /severity, raised-at: /raisedAt, evidence: /evidence}"

    override func setUp() { directory = TestSupport.temporaryDirectory("push-only") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func profile(_ name: String, _ alerts: String) -> String {
        TestSupport.write("name: \(name)\nalerts:\n\(alerts)", to: directory, name: name + ".yaml")
    }

    func run(_ profile: String, _ extra: [String] = []) throws -> (status: Int32, out: String, err: String) {
        try TestSupport.vitalsim(
            [
                "run", scenario, "--golden-dir", golden, "--sut", profile, "--sut-fault", "alert-api=error",
                "--alert-wait", "3",
            ] + extra,
            in: directory,
            environment: ["CI": "true"]
        )
    }

    func testAlertsPushedOnlyAreJudgedWithoutPolling() throws {
        for channel in ["webhook", "sse"] {
            let ran = try run(profile(channel, "  source: \(channel)\n  fields: \(fields)\n"))
            XCTAssertEqual(
                ran.status,
                0,
                "\(channel): the alert list answers 500 and is never read\n" + ran.out + ran.err
            )
            XCTAssertTrue(ran.out.contains("1 alert(s) read"), "\(channel): " + ran.out)
            XCTAssertFalse(ran.out.contains("GET /api/v1/alerts"), "\(channel): nothing polled\n" + ran.out)
        }
    }

    func testAPushChannelThatDeliversNothingIsAMisconfiguration() throws {
        let ran = try run(
            profile("silent", "  source: mqtt\n  push: {mqtt-topic: \"nothing/+\"}\n  fields: \(fields)\n")
        )
        XCTAssertEqual(ran.status, 3, ran.out + ran.err)
        XCTAssertTrue(
            ran.err.contains("no alert arrived on mqtt during the run although the golden file expects 1"),
            ran.err
        )
        XCTAssertTrue(ran.err.contains("alerts.push.mqtt-topic (nothing/+)"), ran.err)
        XCTAssertFalse(ran.out.contains("missed"), "no clinical finding: \(ran.out)")
    }

    func testPushedMessagesThatAreNotReadableAlertsAreAMisconfiguration() throws {
        let wrong = fields.replacingOccurrences(of: "raised-at: /raisedAt", with: "raised-at: /created")
        let ran = try run(profile("unreadable", "  source: webhook\n  fields: \(wrong)\n"))
        XCTAssertEqual(ran.status, 3, ran.out + ran.err)
        XCTAssertTrue(ran.err.contains("on webhook that are not alerts the harness can read"), ran.err)
        XCTAssertTrue(ran.err.contains("it has no raisedAt (at /created)"), ran.err)
        XCTAssertTrue(ran.out.contains("unreadable (first: it has no raisedAt"), "the SUT contract says so: \(ran.out)")
    }

    /// Doctor cannot read a pushed source before a run: it checks reachability without the alert
    /// list and says what the run will check instead.
    func testDoctorAcceptsAPushOnlySource() throws {
        let sut = try SUTProcess(
            [
                "--self-signed", "--database", directory + "/sut.sqlite", "--scenario", scenario, "--fault",
                "alert-api=error",
            ],
            directory: directory
        )
        defer { _ = sut.stop() }
        let doctor = profile("doctor", "  source: webhook\n  fields: \(fields)\n")
        let ran = try TestSupport.vitalsim(
            ["doctor", scenario, "--target", sut.base, "--cacert", sut.caFile ?? "", "--sut", doctor],
            in: directory
        )
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        XCTAssertTrue(ran.out.contains("alerts are pushed on webhook (alerts.source), not listed"), ran.out)
    }
}
