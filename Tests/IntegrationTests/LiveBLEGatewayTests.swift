import Foundation
import LiveHarness
import Traffic
import VitalSimCore
import XCTest

/// Device → BLE → gateway → alert: VitalSim's live peripherals on bumble's virtual controllers,
/// `vitalsim serve --ble-gateway` as the central on the same virtual link. The gateway finds the
/// scenario's devices by address, subscribes, decodes and ingests; after a disconnect fault it
/// reconnects and backfills the glucose records it missed with RACP "≥ sequence N" (the CGM's
/// with "≥ time offset N", each stamped with the CGM's session start + its time offset); a fever
/// reading raises `temp.fever` at the thermometer's own time stamp.
final class LiveBLEGatewayTests: XCTestCase {
    static let scenario = """
        name: live-gateway
        seed: 21
        duration: 30m
        start: 2024-11-07T08:00:00Z
        patients:
          - id: "g1"
            profile: adult
            devices:
              - {id: meter, type: glucometer, cadence: 5m}
              - {id: therm, type: thermometer, cadence: 5m}
              - {id: cgm, type: cgm, cadence: 5m}
        timeline:
          - {at: 12m, device: meter, fault: disconnect, duration: 10m}
          - {at: 7m, device: cgm, fault: disconnect, duration: 11m}
          - {at: 2m, patient: "g1", event: fever, duration: 25m, target: 39.5, onset: 5m, offset: 2m}
        """

    var processes: [Process] = []
    override func tearDown() {
        for p in processes where p.isRunning {
            p.terminate()
            p.waitUntilExit()
        }
        processes = []
    }

    func testGatewayIngestsReconnectsBackfillsAndAlerts() throws {
        let python = try LiveBLETests.bumblePython()
        let ports = TestSupport.freePorts(6)
        try startControllers(python, ports)
        let dir = TestSupport.temporaryDirectory("gateway")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = TestSupport.write(Self.scenario, to: dir, name: "gateway.yaml")
        _ = try CaptureGenerator(scenario: try ScenarioLoader.load(path: path)).generate(into: dir + "/offline")
        let expected = try String(contentsOfFile: dir + "/offline/readings.jsonl", encoding: .utf8).split(
            separator: "\n"
        )
        .map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let glucose = expected.filter { $0["kind"] as? String == "glucose" }
        let temperatures = expected.filter { $0["kind"] as? String == "temperature" }
        let batteries = expected.filter { $0["kind"] as? String == "battery" }
        let cgm = expected.filter { $0["kind"] as? String == "cgm" }
        let total = glucose.count + temperatures.count + batteries.count + cgm.count
        let firstFever = try XCTUnwrap(
            temperatures.first { ($0["value"] as? Double ?? 0) >= 38.0 },
            "the scenario has a fever reading"
        )

        let sut = try SUTProcess(
            [
                "--database", dir + "/sut.sqlite", "--ble-gateway", "--scenario", path, "--log-level", "info",
                "--hci", "tcp:127.0.0.1:\(ports[3])", "--hci", "tcp:127.0.0.1:\(ports[4])", "--hci",
                "tcp:127.0.0.1:\(ports[5])",
            ],
            directory: dir
        )
        defer { sut.stop() }
        let summary = try runPeripherals(path, ports)
        try checkEveryValueOnce(
            sut,
            total: total,
            summary: summary,
            detail: "\(glucose.count) glucose + \(temperatures.count) temperature + \(batteries.count) battery readings"
        )
        try checkCGMTimes(cgm, database: dir + "/sut.sqlite")
        let alerts = try sut.alerts("?patient=g1")
        let fever = alerts.filter { $0["rule"] as? String == "temp.fever" }
        XCTAssertEqual(fever.count, 1, "\(alerts)")
        XCTAssertEqual(
            fever.first?["raisedAt"] as? String,
            firstFever["deviceTime"] as? String,
            "judged by the thermometer's time stamp"
        )
        XCTAssertEqual((fever.first?["evidence"] as? [String])?.count, 1)
    }

    /// Six bumble controllers on `ports` (three peripherals, three gateway centrals).
    func startControllers(_ python: String, _ ports: [UInt16]) throws {
        let controllers = Process()
        controllers.executableURL = URL(fileURLWithPath: python)
        controllers.arguments = ["-c", BumbleControllers.script] + ports.map(String.init)
        let ready = Pipe()
        controllers.standardOutput = ready
        controllers.standardError = FileHandle.nullDevice
        try controllers.run()
        processes.append(controllers)
        var text = ""
        let deadline = Date(timeIntervalSinceNow: 30)
        while !text.contains("ready"), Date() < deadline {
            text += String(decoding: ready.fileHandleForReading.availableData, as: UTF8.self)
        }
        XCTAssertTrue(text.contains("ready"))

    }

    /// Runs the scenario's devices as peripherals at 120× and returns their summary line.
    func runPeripherals(_ path: String, _ ports: [UInt16]) throws -> String {
        let peripheral = Process()
        peripheral.executableURL = URL(fileURLWithPath: TestSupport.vitalsimPath)
        peripheral.arguments = [
            "peripheral", path, "--hci", "tcp:127.0.0.1:\(ports[0])", "--hci", "tcp:127.0.0.1:\(ports[1])", "--hci",
            "tcp:127.0.0.1:\(ports[2])",
            "--speed", "120", "--linger", "3",
        ]
        let out = Pipe()
        peripheral.standardOutput = out
        peripheral.standardError = FileHandle.nullDevice
        try peripheral.run()
        processes.append(peripheral)
        let finished = Date(timeIntervalSinceNow: 120)
        while peripheral.isRunning, Date() < finished { usleep(200_000) }
        let summary = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(peripheral.terminationStatus, 0, summary)
        XCTAssertTrue(summary.contains("2 disconnect(s), 2 reconnection(s)"), summary)

        return summary
    }

    /// Every glucose record once (live, then the ones measured while disconnected via RACP), every
    /// temperature and battery level once.
    func checkEveryValueOnce(_ sut: SUTProcess, total: Int, summary: String, detail: String) throws {
        var metrics = ""
        let settle = Date(timeIntervalSinceNow: 10)
        repeat {
            metrics = try sut.curl("GET", "/metrics").body
            if metrics.contains("vitalsim_ble_values_total{outcome=\"accepted\"} \(total)\n") { break }
            usleep(200_000)
        } while Date() < settle
        XCTAssertTrue(
            metrics.contains("vitalsim_ble_values_total{outcome=\"accepted\"} \(total)\n"),
            "\(detail); peripheral: \(summary); gateway log: \((try? String(contentsOfFile: sut.stderrPath, encoding: .utf8)) ?? ""); \(metrics)"
        )
        XCTAssertFalse(
            metrics.contains("outcome=\"duplicate\""),
            "RACP asked only for the records after the last one seen: \(metrics)"
        )
        XCTAssertTrue(
            metrics.contains("vitalsim_ble_connections_total 5"),
            "three devices, two reconnections: \(metrics)"
        )
        XCTAssertTrue(metrics.contains("vitalsim_ble_disconnects_total 2"), metrics)

    }

    /// Each CGM record once, at the CGM's session start (the scenario's) plus its time offset in minutes.
    func checkCGMTimes(_ cgm: [[String: Any]], database: String) throws {
        let query =
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(' '.join(str(t) for (t,) in c.execute(\"select device_time from readings where device_id = 'cgm' and vals like '%cgm%' order by device_time\")))"
        let stored = try TestSupport.run("python3", ["-c", query, database])
        XCTAssertEqual(stored.status, 0, stored.err)
        let start = try XCTUnwrap(CivilTime(iso8601: "2024-11-07T08:00:00Z")).unixMilliseconds
        let minutes = cgm.compactMap { ($0["measuredAt"] as? String).flatMap { CivilTime(iso8601: $0) } }.map {
            ($0.unixMilliseconds - start) / 60_000 * 60_000 + start
        }.sorted()
        XCTAssertEqual(minutes.count, cgm.count)
        XCTAssertEqual(
            stored.out.split(separator: " ").compactMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) },
            minutes
        )

    }
}
