import Foundation
import LiveHarness
import Traffic
import VitalSimCore
import XCTest

/// Outages only real processes show: a SUT that never answered a connection is unreachable after six
/// attempts, not after the outage limit; an MQTT broker that dies and comes back gets every reading.
/// (A SUT that goes away mid-run and comes back, in-process: `LiveHarnessTests.InProcessOutageTests`;
/// a server killed like `kill -9` keeps what it acknowledged: `ReferenceFaultTests`.)
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

    func testASUTThatNeverAnsweredIsUnreachableWithoutWaitingForTheOutageLimit() throws {
        let dir = TestSupport.temporaryDirectory("outage-unreachable")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = TestSupport.freePorts(1)[0]
        let started = Date()
        let ran = try TestSupport.vitalsim(
            [
                "run", TestSupport.repositoryRoot + "/scenarios/core/fever-spike.yaml", "--target",
                "http://127.0.0.1:\(port)",
                "--golden-dir", TestSupport.repositoryRoot + "/golden", "--outage-limit", "600",
            ],
            in: dir
        )
        XCTAssertEqual(ran.status, 3, ran.out + ran.err)
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
