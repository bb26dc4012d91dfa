import Foundation
import TestFixtures
import XCTest

/// No acknowledged reading is lost to `kill -9`, on SQLite and on a real PostgreSQL: four clients
/// post readings concurrently, the server is killed mid-stream, and after a restart on the same
/// database every reading that got a 200 is known (re-posting it is a duplicate) and the alerts
/// raised before the kill are still there.
final class ReferenceDurabilityTests: XCTestCase {
    func testAcknowledgedReadingsSurviveKill9OnSQLite() throws {
        let dir = TestSupport.temporaryDirectory("durable")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try checkDurability(database: dir + "/sut.sqlite", directory: dir)
    }

    func testAcknowledgedReadingsSurviveKill9OnPostgreSQL() throws {
        let pg = try PostgresServer()
        let dir = TestSupport.temporaryDirectory("durable-pg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try checkDurability(database: pg.url, directory: dir)
        let stored = try pg.query("SELECT count(*) FROM readings")
        XCTAssertGreaterThan(Int(stored.first ?? "") ?? 0, 0, "the readings are in PostgreSQL's own tables")
    }

    func checkDurability(database: String, directory dir: String) throws {
        try loadAndKill(database: database, directory: dir)
        let (acknowledged, perClient) = acknowledgements(dir)
        XCTAssertGreaterThanOrEqual(acknowledged.count, 40, "the clients got readings acknowledged before the kill")

        let second = try SUTProcess(["--database", database, "--rate-limit", "0"], directory: dir)
        defer { second.stop() }
        try checkNoneLost(acknowledged, second)
        try checkAlertsSurvived(perClient, second)
    }

    /// Four curl clients post one reading per virtual minute each (heart rate 130, so hr.tachycardia
    /// fires at minute 10) until the SUT is killed with SIGKILL after 200 acknowledgements.
    func loadAndKill(database: String, directory dir: String) throws {
        let first = try SUTProcess(["--database", database, "--rate-limit", "0"], directory: dir)
        let script = """
            for c in 0 1 2 3; do
              ( i=0
                while [ $i -lt 5000 ]; do
                  ts=$(date -u -d "@$((1730937600 + i * 60))" +%Y-%m-%dT%H:%M:%SZ)
                  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' --data-binary \
                    "{\\"readingId\\":\\"k$c-$i\\",\\"patientId\\":\\"k$c\\",\\"deviceId\\":\\"hr\\",\\"kind\\":\\"heart-rate\\",\\"value\\":130,\\"unit\\":\\"/min\\",\\"timestamp\\":\\"$ts\\"}" \
                    "$1/api/v1/observations")
                  echo "k$c-$i $code" >> "$2/acks-$c"
                  [ "$code" = "200" ] || break
                  i=$((i + 1))
                done ) &
            done
            wait
            """
        let scriptPath = TestSupport.write(script, to: dir, name: "load.sh")
        let load = Process()
        load.executableURL = URL(fileURLWithPath: "/bin/bash")
        load.arguments = [scriptPath, first.base, dir]
        try load.run()
        // Let the clients run for a while, then kill the server as abruptly as possible.
        let deadline = Date(timeIntervalSinceNow: 20)
        var acked = 0
        while Date() < deadline {
            usleep(200_000)
            acked = (0..<4).map { c in
                ((try? String(contentsOfFile: dir + "/acks-\(c)", encoding: .utf8)) ?? "").split(separator: "\n").count
            }.reduce(0, +)
            if acked >= 200 { break }
        }
        first.kill9()
        load.waitUntilExit()
        XCTAssertEqual(first.process.terminationReason, .uncaughtSignal)

    }

    /// The reading ids each client saw acknowledged (200), all and counted per client.
    func acknowledgements(_ dir: String) -> ([String], [Int]) {
        var acknowledged: [String] = []
        var perClient: [Int] = []
        for c in 0..<4 {
            let lines = ((try? String(contentsOfFile: dir + "/acks-\(c)", encoding: .utf8)) ?? "").split(
                separator: "\n"
            )
            let ok = lines.filter { $0.hasSuffix(" 200") }.map { String($0.split(separator: " ")[0]) }
            acknowledged += ok
            perClient.append(ok.count)
        }

        return (acknowledged, perClient)
    }

    /// Re-posts every acknowledged reading: each must be a duplicate (already stored).
    func checkNoneLost(_ acknowledged: [String], _ second: SUTProcess) throws {
        for chunk in stride(from: 0, to: acknowledged.count, by: 500) {
            let ids = acknowledged[chunk..<min(acknowledged.count, chunk + 500)]
            let body =
                "["
                + ids.map { id in
                    let parts = id.split(separator: "-")
                    let index = Int(parts[1])!
                    let ts = CivilTimeText.iso(1_730_937_600 + index * 60)
                    return observationJSON(
                        id: id,
                        patient: String(parts[0]),
                        device: "hr",
                        kind: "heart-rate",
                        value: 130,
                        unit: "/min",
                        at: ts
                    )
                }.joined(separator: ",") + "]"
            let answer = try second.curl("POST", "/api/v1/observations", body: body)
            XCTAssertEqual(answer.status, 200, answer.body)
            let json = SUTProcess.json(answer.body) as? [String: Any]
            XCTAssertEqual(json?["accepted"] as? Int, 0, "an acknowledged reading was lost: \(answer.body)")
            XCTAssertEqual(json?["duplicates"] as? Int, ids.count)
        }
    }

    /// Alerts raised before the kill survive, and the engine's windows were rebuilt (no second alert).
    func checkAlertsSurvived(_ perClient: [Int], _ second: SUTProcess) throws {
        let alerts = try second.alerts()
        for (c, first) in perClient.enumerated() where first >= 11 {
            XCTAssertEqual(
                alerts.filter { $0["patientId"] as? String == "k\(c)" }.map { $0["rule"] as? String },
                ["hr.tachycardia"],
                "patient k\(c) after \(first) readings"
            )
        }
        // A fresh reading continues the same episode: still no duplicate alert.
        if let first = perClient.first, first >= 11 {
            let more = observationJSON(
                id: "k0-\(first + 10000)",
                patient: "k0",
                device: "hr",
                kind: "heart-rate",
                value: 130,
                unit: "/min",
                at: CivilTimeText.iso(1_730_937_600 + first * 60)
            )
            XCTAssertEqual(try second.curl("POST", "/api/v1/observations", body: more).status, 200)
            XCTAssertEqual(try second.alerts("?patient=k0").count, 1, "the recovered engine keeps the alert latched")
        }
    }
}
