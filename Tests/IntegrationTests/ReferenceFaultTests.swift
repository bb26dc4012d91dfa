import Foundation
import TestFixtures
import XCTest

/// Each faulty mode of `vitalsim serve --fault …` is announced on stderr and visibly misbehaves
/// against the same traffic that the healthy server handles correctly; bad `--fault` values are
/// usage errors (exit 2) that name the problem.
final class ReferenceFaultTests: XCTestCase {
    /// A hypertensive crisis (high), a fever (medium) and one invalid reading.
    static let crisis =
        #"{"readingId": "f1", "patientId": "701", "deviceId": "bp", "kind": "blood-pressure", "systolic": 185, "diastolic": 95, "unit": "mm[Hg]", "timestamp": "2024-11-07T08:00:00Z"}"#
    static let fever = observationJSON(
        id: "f2",
        patient: "702",
        device: "th",
        kind: "temperature",
        value: 38.5,
        unit: "Cel",
        at: "2024-11-07T08:00:00Z"
    )
    static let invalid = observationJSON(
        id: "f3",
        patient: "702",
        device: "ox",
        kind: "spo2",
        value: 120,
        unit: "%",
        at: "2024-11-07T08:00:00Z"
    )

    struct Outcome {
        var statuses: [Int]
        var alerts: [[String: Any]]
        var stderr: String
        var rules: [String] { alerts.compactMap { $0["rule"] as? String }.sorted() }
        var severities: [String: String] {
            Dictionary(
                alerts.compactMap { a in (a["rule"] as? String).map { ($0, a["severity"] as? String ?? "") } },
                uniquingKeysWith: { a, _ in a }
            )
        }
    }

    func exercise(_ faults: [String], settle: Double = 0) throws -> Outcome {
        let dir = TestSupport.temporaryDirectory("fault")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sut = try SUTProcess(
            ["--database", dir + "/sut.sqlite"] + faults.flatMap { ["--fault", $0] },
            directory: dir
        )
        defer { XCTAssertEqual(sut.stop(), 0) }
        let statuses = try [Self.crisis, Self.fever, Self.invalid].map {
            try sut.curl("POST", "/api/v1/observations", body: $0).status
        }
        if settle > 0 { usleep(UInt32(settle * 1_000_000)) }
        return Outcome(statuses: statuses, alerts: try sut.alerts(), stderr: sut.stderr)
    }

    /// A faulty server says so on stderr, naming each mode; a healthy one does not. (What each mode
    /// does to the answers is tested in-process: `ReferenceSUTTests.FaultRouteTests`.)
    func testFaultyModesAreAnnouncedOnStderr() throws {
        XCTAssertFalse(try exercise([]).stderr.contains("FAULTY MODE"))
        let outcome = try exercise(["drop-alerts=1", "accept-invalid", "miss-rule=temp.fever"])
        XCTAssertEqual(outcome.statuses, [200, 200, 200], "the invalid reading is acknowledged")
        XCTAssertEqual(outcome.rules, [], "drop-alerts=1 drops every alert")
        for mode in ["FAULTY MODE", "drop-alerts", "accept-invalid", "miss-rule=temp.fever"] {
            XCTAssertTrue(outcome.stderr.contains(mode), "\(mode): \(outcome.stderr)")
        }
    }

    func testDelayedAlertsArriveLate() throws {
        let dir = TestSupport.temporaryDirectory("fault-delay")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sut = try SUTProcess(["--database", dir + "/sut.sqlite", "--fault", "delay-alerts=1500ms"], directory: dir)
        defer { sut.stop() }
        let posted = Date()
        XCTAssertEqual(try sut.curl("POST", "/api/v1/observations", body: Self.crisis).status, 200)
        XCTAssertEqual(try sut.alerts().count, 0, "not published yet")
        var alerts: [[String: Any]] = []
        while alerts.isEmpty, Date().timeIntervalSince(posted) < 10 {
            usleep(50_000)
            alerts = try sut.alerts()
        }
        XCTAssertEqual(alerts.count, 1)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(posted), 1.5)
        let metrics = try sut.curl("GET", "/metrics").body
        let sum = metrics.split(separator: "\n").first { $0.hasPrefix("vitalsim_alert_latency_seconds_sum ") }
        XCTAssertGreaterThanOrEqual(
            Double(sum?.split(separator: " ").last ?? "") ?? 0,
            1.5,
            "the server's own alert latency shows the delay: \(metrics)"
        )
    }

    func testCrashAfterDiesLikeKill9AndKeepsWhatWasAcknowledged() throws {
        let dir = TestSupport.temporaryDirectory("fault-crash")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sut = try SUTProcess(["--database", dir + "/sut.sqlite", "--fault", "crash-after=2"], directory: dir)
        XCTAssertEqual(try sut.curl("POST", "/api/v1/observations", body: Self.crisis).status, 200)
        XCTAssertEqual(try sut.curl("POST", "/api/v1/observations", body: Self.fever).status, 200)
        let third = try sut.curl(
            "POST",
            "/api/v1/observations",
            body: observationJSON(
                id: "f4",
                patient: "702",
                device: "th",
                kind: "temperature",
                value: 37,
                unit: "Cel",
                at: "2024-11-07T08:01:00Z"
            )
        )
        XCTAssertEqual(third.status, 0, "no answer: the process died")
        sut.process.waitUntilExit()
        XCTAssertEqual(sut.process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(sut.process.terminationStatus, SIGKILL)
        let again = try SUTProcess(["--database", dir + "/sut.sqlite"], directory: dir)
        defer { again.stop() }
        XCTAssertEqual(
            try again.alerts().compactMap { $0["rule"] as? String }.sorted(),
            ["bp.hypertensive-crisis", "temp.fever"]
        )
    }

    func testBadFaultValuesAreUsageErrors() throws {
        for (fault, message) in [
            ("drop-alerts=2", "probability"), ("delay-alerts=soon", "DURATION"),
            ("miss-rule=hr.nope", "unknown rule hr.nope"),
            ("crash-after=-1", "whole number"), ("explode", "unknown fault"), ("accept-invalid=yes", "takes no value"),
        ] {
            let ran = try TestSupport.run(
                TestSupport.vitalsimPath,
                ["serve", "--port", "0", "--dev", "--fault", fault]
            )
            XCTAssertEqual(ran.status, 2, fault)
            XCTAssertTrue(ran.err.contains(message), "\(fault): \(ran.err)")
        }
    }
}
