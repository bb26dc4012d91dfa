import Foundation
import LiveHarness
import Traffic
import VitalSimCore
import XCTest

/// A SUT that restarts mid-run: the harness keeps the request that got no answer (and everything
/// behind it) until the SUT is back, so every reading is delivered; the wait shows as latency.
final class LiveOutageTests: XCTestCase {
    /// The first scenario's checks in a `--json` verdict file, and its delivery check.
    static func checks(_ json: String) throws -> (all: [[String: Any]], delivery: [String: Any]?) {
        let verdicts =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let checks = ((verdicts?["scenarios"] as? [[String: Any]])?.first?["checks"] as? [[String: Any]]) ?? []
        return (
            checks,
            checks.first {
                ($0["kind"] as? String) == "delivery"
                    && ($0["name"] as? String) == "every reading acknowledged or rejected"
            }
        )
    }

    func testEveryReadingReachesASUTThatRestartsMidRun() throws {
        let dir = TestSupport.temporaryDirectory("outage")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = TestSupport.repositoryRoot + "/scenarios/core/fever-spike.yaml"
        let port = Int(TestSupport.freePorts(1)[0])
        let serve = ["--database", dir + "/sut.sqlite", "--scenario", scenario, "--rate-limit", "0"]
        // The first server dies like `kill -9` when its 31st reading arrives.
        let first = try SUTProcess(serve + ["--fault", "crash-after=30"], directory: dir, port: port)
        let json = dir + "/verdict.json"
        let run = Process()
        run.executableURL = URL(fileURLWithPath: TestSupport.vitalsimPath)
        run.arguments = [
            "run", scenario, "--target", first.base, "--golden-dir", TestSupport.repositoryRoot + "/golden", "--json",
            json,
            "--connections", "1", "--outage-limit", "60",
        ]
        let out = dir + "/run.out"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        run.standardOutput = FileHandle(forWritingAtPath: out)
        run.standardError = FileHandle(forWritingAtPath: out)
        try run.run()
        first.process.waitUntilExit()
        XCTAssertEqual(first.process.terminationReason, .uncaughtSignal, "the fault killed the first server")
        XCTAssertTrue(run.isRunning, "the harness waits for the SUT rather than giving up")
        // Down for a moment, then back on the same port with the same database.
        Thread.sleep(forTimeInterval: 1.5)
        let second = try SUTProcess(serve, directory: dir, port: port)
        defer { _ = second.stop() }
        run.waitUntilExit()
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        // The outage shows where it belongs: the readings held back were acknowledged late, from their
        // intended emit time (no coordinated omission), so the ack budget fails and nothing else does.
        XCTAssertEqual(run.terminationStatus, 1, text)
        let (checks, delivery) = try Self.checks(json)
        let detail = delivery?["detail"] as? String ?? ""
        XCTAssertNil(delivery?["finding"] as? String, detail)
        XCTAssertTrue(detail.contains("answered only after retrying"), detail)
        XCTAssertTrue(detail.hasPrefix("74 acknowledged"), "every reading of the scenario: \(detail)")
        let failed = checks.filter { ($0["passed"] as? Bool) == false }.map {
            "\($0["finding"] ?? "")/\($0["name"] ?? "")"
        }
        XCTAssertEqual(failed.count, 1, "\(failed)")
        XCTAssertTrue(
            failed.first?.hasPrefix("budget-exceeded/") == true && failed.first?.contains("reading-to-ack") == true,
            "\(failed)"
        )
        XCTAssertTrue(
            checks.contains { ($0["rule"] as? String) == "temp.fever" && ($0["passed"] as? Bool) == true },
            "the fever alert survived the restart"
        )
    }

    func testASUTThatNeverAnsweredIsUnreachableWithoutWaitingForTheOutageLimit() throws {
        let dir = TestSupport.temporaryDirectory("outage-unreachable")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = TestSupport.freePorts(1)[0]
        let started = Date()
        let r = try TestSupport.vitalsim(
            [
                "run", TestSupport.repositoryRoot + "/scenarios/core/fever-spike.yaml", "--target",
                "http://127.0.0.1:\(port)",
                "--golden-dir", TestSupport.repositoryRoot + "/golden", "--outage-limit", "600",
            ],
            in: dir
        )
        XCTAssertEqual(r.status, 3, r.out + r.err)
        XCTAssertLessThan(Date().timeIntervalSince(started), 120, "six attempts, not the outage limit")
        let usage = try TestSupport.vitalsim(
            ["run", TestSupport.repositoryRoot + "/scenarios/core/fever-spike.yaml", "--outage-limit", "-1"],
            in: dir
        )
        XCTAssertEqual(usage.status, 2)
    }

    /// The MQTT broker crashes mid-run and comes back on the same port 15 s later: the harness
    /// keeps publishing (libmosquitto reconnects; unacknowledged messages are published again)
    /// until every reading is acknowledged, rather than failing the run after six attempts.
    func testEveryMQTTReadingIsAcknowledgedByABrokerThatRestartsMidRun() throws {
        let dir = TestSupport.temporaryDirectory("mqtt-outage")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = TestSupport.repositoryRoot + "/scenarios/core/copd-desaturation.yaml"
        let readings = TrafficPlan.requests(for: try ScenarioLoader.load(path: scenario)).reduce(0) {
            $0 + $1.readings.count
        }
        let port = TestSupport.freePorts(1)[0]
        var broker: MosquittoBroker? = try MosquittoBroker(port: port)
        let json = dir + "/verdict.json"
        let run = Process()
        run.executableURL = URL(fileURLWithPath: TestSupport.vitalsimPath)
        run.arguments = [
            "run", scenario, "--mqtt", "127.0.0.1:\(port)", "--speed", "600", "--golden-dir",
            TestSupport.repositoryRoot + "/golden",
            "--json", json, "--outage-limit", "60",
        ]
        let out = dir + "/run.out"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        run.standardOutput = FileHandle(forWritingAtPath: out)
        run.standardError = FileHandle(forWritingAtPath: out)
        try run.run()
        Thread.sleep(forTimeInterval: 4)
        XCTAssertTrue(run.isRunning, "the run (2 h at 600x) is still sending when the broker dies")
        broker?.kill()
        Thread.sleep(forTimeInterval: 15)
        XCTAssertTrue(run.isRunning, "the harness waits for the broker rather than giving up")
        broker = try MosquittoBroker(port: port)
        run.waitUntilExit()
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        XCTAssertNotEqual(
            run.terminationStatus,
            3,
            "an outage shorter than --outage-limit is not an infrastructure failure: \(text)"
        )
        let delivery = try Self.checks(json).delivery
        let detail = delivery?["detail"] as? String ?? ""
        XCTAssertNil(delivery?["finding"] as? String, detail)
        XCTAssertTrue(
            detail.hasPrefix("\(readings) acknowledged"),
            "every one of the scenario's \(readings) readings: \(detail)"
        )
        XCTAssertTrue(detail.contains("answered only after retrying"), detail)
        withExtendedLifetime(broker) {}
    }
}
