import Foundation
import LiveHarness
import TestFixtures
import XCTest

/// Hostile input that needs a real `vitalsim serve`: slow clients cut off, reading
/// ids that belong to one patient on PostgreSQL (in a database an earlier version wrote) and over
/// MQTT, and MQTT values longer than their limit refused on `errors/{patient}`. (Hostile bodies
/// and reading ids over HTTP on SQLite, in-process: `ReferenceSUTTests.HostileBodyRouteTests`.)
final class HostileInputTests: XCTestCase {
    func reading(_ id: String, patient: String, at time: String = "2024-11-07T08:00:00Z") -> String {
        observationJSON(id: id, patient: patient, device: "hr", kind: "heart-rate", value: 72, unit: "/min", at: time)
    }

    /// A client trickling its headers or its body one byte at a time is cut off after
    /// `--read-timeout` (the body with 408), and `CONNECT` gets an answer (405) instead of silence.
    func testSlowClientsAreClosedAndConnectIsAnswered() throws {
        let dir = TestSupport.temporaryDirectory("slow")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sut = try SUTProcess(["--database", dir + "/sut.sqlite", "--read-timeout", "1"], directory: dir)
        defer { XCTAssertEqual(sut.stop(), 0) }
        let port = sut.base.split(separator: ":").last.map(String.init) ?? ""
        // Each client sends its first bytes, then one more byte every 0.2 s until the server answers
        // (for up to 15 s), and prints what the server answered and whether it closed the connection
        // (a reset after the answer counts as closed: under load, a byte sent as the server closed
        // earns one).
        let script = """
            import socket, sys, time
            def client(first, trickle):
                s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                s.sendall(first)
                s.settimeout(0.2)
                got, end = b"", time.time() + 15
                while time.time() < end:
                    try:
                        chunk = s.recv(4096)
                        if not chunk:
                            return got.split(b"\\r\\n")[0].decode() + " closed"
                        got += chunk
                    except socket.timeout:
                        pass
                    except OSError:
                        return got.split(b"\\r\\n")[0].decode() + " closed"
                    if got:
                        continue
                    try:
                        s.sendall(trickle)
                    except OSError:
                        return got.split(b"\\r\\n")[0].decode() + " closed"
                return got.split(b"\\r\\n")[0].decode() + " open"
            print(client(b"CONNECT 127.0.0.1:80 HTTP/1.1\\r\\nHost: 127.0.0.1:80\\r\\n\\r\\n", b""))
            print(client(b"GET /healthz HTTP/1.1\\r\\nHost: x\\r\\nX-Slow: ", b"a"))
            print(client(b"POST /api/v1/observations HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 100000\\r\\n\\r\\n[", b" "))
            """
        let ran = try TestSupport.run("python3", ["-c", script, port])
        XCTAssertEqual(ran.status, 0, ran.err)
        XCTAssertEqual(
            ran.out.split(separator: "\n").map(String.init),
            ["HTTP/1.1 405 Method Not Allowed closed", " closed", "HTTP/1.1 408 Request Timeout closed"],
            ran.out
        )
        XCTAssertEqual(try sut.curl("GET", "/healthz").status, 200)
    }

    /// An enrolment stored before patients had their own limits keeps its profile, with none.
    func checkEarlierEnrolment(_ sut: SUTProcess) throws {
        let enrolled = SUTProcess.json(try sut.curl("GET", "/api/v1/patients/505").body) as? [String: Any]
        XCTAssertEqual(enrolled?["profile"] as? String, "copd")
        XCTAssertEqual((enrolled?["thresholds"] as? [String: Any])?.count, 0)
    }

    func testReadingIdsBelongToOnePatientOnPostgreSQL() throws {
        let pg = try PostgresServer()
        let dir = TestSupport.temporaryDirectory("ids-pg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // An earlier version's table, with its global constraint.
        _ = try pg.query(
            """
            CREATE TABLE readings (seq BIGSERIAL PRIMARY KEY, reading_id TEXT NOT NULL UNIQUE, patient_id TEXT NOT NULL,
                device_id TEXT NOT NULL, device_time BIGINT NOT NULL, vals TEXT NOT NULL, rr TEXT NOT NULL)
            """
        )
        _ = try pg.query("CREATE TABLE patients (patient_id TEXT PRIMARY KEY, profile TEXT NOT NULL)")
        _ = try pg.query("INSERT INTO patients VALUES ('505', 'copd')")
        _ = try pg.query(
            """
            INSERT INTO readings (reading_id, patient_id, device_id, device_time, vals, rr)
            VALUES ('old', '503', 'hr', 1730966400000, '{"heart-rate":70}', '[]')
            """
        )
        try checkReadingIdsPerPatient(database: pg.url, directory: dir)
        XCTAssertEqual(try pg.query("SELECT count(*) FROM readings WHERE reading_id = 'r1'"), ["2"])
        // The counts table is built from what the earlier version stored, and kept by each commit.
        XCTAssertEqual(try pg.query("SELECT n FROM reading_counts WHERE patient_id = '503'"), ["1"])
        XCTAssertEqual(try pg.query("SELECT sum(n) FROM reading_counts WHERE patient_id = '501'"), ["2"])
    }

    func checkReadingIdsPerPatient(database: String, directory dir: String) throws {
        let sut = try SUTProcess(["--database", database], directory: dir)
        defer { XCTAssertEqual(sut.stop(), 0) }
        try checkReadingIdsPerPatient(sut)
        if database.hasPrefix("postgres") { try checkEarlierEnrolment(sut) }
    }

    func checkReadingIdsPerPatient(_ sut: SUTProcess) throws {
        XCTAssertEqual(
            accepted(try sut.curl("POST", "/api/v1/observations", body: reading("r1", patient: "502")).body),
            1
        )
        XCTAssertEqual(
            accepted(try sut.curl("POST", "/api/v1/observations", body: reading("r1", patient: "501")).body),
            1
        )
        XCTAssertEqual(
            accepted(try sut.curl("POST", "/api/v1/observations", body: reading("r1", patient: "501")).body),
            0
        )
        let batch = "[\(reading("r2", patient: "501")), \(reading("r2", patient: "502"))]"
        XCTAssertEqual(
            accepted(try sut.curl("POST", "/api/v1/observations", body: batch).body),
            2,
            "one id, two patients"
        )
        let patient = SUTProcess.json(try sut.curl("GET", "/api/v1/patients/501").body) as? [String: Any]
        XCTAssertEqual(patient?["readings"] as? Int, 2)
    }

    /// Over MQTT: a raw GATT value longer than an attribute and a JSON message over 256 KB are
    /// refused on `errors/{patient}` with 413; reading ids are per patient here too.
    func testMQTTSizeLimitsAndReadingIds() throws {
        let broker = try MosquittoBroker()
        let dir = TestSupport.temporaryDirectory("hostile-mqtt")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sut = try SUTProcess(["--database", dir + "/sut.sqlite", "--mqtt", broker.address], directory: dir)
        defer { XCTAssertEqual(sut.stop(), 0) }
        let port = String(broker.port)
        let replies = try ReferenceDeliveryTests.Listener.replies(port: port, output: dir + "/replies.txt")
        usleep(300_000)
        let long = dir + "/long.bin"
        try Data([0x10, 0x48] + [UInt8](repeating: 0x04, count: 600)).write(to: URL(fileURLWithPath: long))
        try publish(
            port,
            "vitals/601/heart-rate",
            file: long,
            properties: ["characteristic": "2A37", "reading-id": "big"]
        )
        let huge = dir + "/huge.json"
        try Data(reading("huge" + String(repeating: " ", count: 300_000), patient: "601").utf8).write(
            to: URL(fileURLWithPath: huge)
        )
        try publish(port, "vitals/601/heart-rate", file: huge)
        // Far over the limit (2 MB): the SUT's client announced its Maximum Packet Size, so the
        // broker never delivers it and the SUT never reads it into memory (no answer at all).
        let giant = dir + "/giant.json"
        try Data(reading("giant" + String(repeating: " ", count: 2_000_000), patient: "601").utf8).write(
            to: URL(fileURLWithPath: giant)
        )
        try publish(port, "vitals/601/heart-rate", file: giant, properties: ["reading-id": "giant"])
        let claimed = TestSupport.write(reading("m1", patient: "602"), to: dir, name: "m602.json")
        try publish(port, "vitals/602/heart-rate", file: claimed)
        let own = TestSupport.write(reading("m1", patient: "601"), to: dir, name: "m601.json")
        try publish(port, "vitals/601/heart-rate", file: own)

        let text = replies.wait { $0.contains("acks/601") && $0.components(separatedBy: "\"status\":413").count == 3 }
        let errors = text.split(separator: "\n").filter { $0.hasPrefix("errors/601 ") }
        XCTAssertEqual(errors.count, 2, text)
        XCTAssertTrue(
            errors.contains {
                $0.contains("a raw GATT value holds at most 512") && $0.contains("\"readingId\":\"big\"")
            },
            text
        )
        XCTAssertTrue(errors.contains { $0.contains("a JSON message holds at most 262144") }, text)
        XCTAssertTrue(text.contains(#"acks/601 {"readingIds":["m1"],"status":201}"#), text)
        XCTAssertFalse(text.contains("giant"), "a message over the Maximum Packet Size never reaches the SUT: \(text)")
        let patient = SUTProcess.json(try sut.curl("GET", "/api/v1/patients/601").body) as? [String: Any]
        XCTAssertEqual(patient?["readings"] as? Int, 1, "patient 601's m1 is stored although 602 sent an m1 first")
    }

    /// `--rate-limit` holds over MQTT as over HTTP (before, 20,000 messages from one device in 6 s
    /// were all accepted): past a device's budget a message is refused with 429 on `errors/{patient}`
    /// and not stored; every message gets one answer.
    func testMQTTIsRateLimitedPerDevice() throws {
        let broker = try MosquittoBroker()
        let dir = TestSupport.temporaryDirectory("hostile-mqtt-rate")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sut = try SUTProcess(
            ["--database", dir + "/sut.sqlite", "--mqtt", broker.address, "--rate-limit", "5"],
            directory: dir
        )
        defer { XCTAssertEqual(sut.stop(), 0) }
        let port = String(broker.port)
        let replies = try ReferenceDeliveryTests.Listener.replies(port: port, output: dir + "/replies.txt")
        usleep(300_000)
        let count = 40
        let lines = (0..<count).map { i in
            reading("r\(i)", patient: "603", at: "2024-11-07T08:\(String(format: "%02d", i)):00Z")
        }
        let file = TestSupport.write(lines.joined(separator: "\n") + "\n", to: dir, name: "burst.jsonl")
        // One message per line of standard input, on one connection, as fast as the broker takes them.
        let ran = try TestSupport.run(
            "/bin/sh",
            ["-c", "mosquitto_pub -h 127.0.0.1 -p \(port) -V mqttv5 -q 1 -t vitals/603/heart-rate -l < '\(file)'"]
        )
        XCTAssertEqual(ran.status, 0, ran.err)
        func answers(_ text: String) -> (limited: Int, stored: Int) {
            let limited = text.components(separatedBy: "\"status\":429").count - 1
            let stored = text.split(separator: "\n").filter { $0.hasPrefix("acks/603 ") }.map { line in
                let answer = SUTProcess.json(String(line.dropFirst("acks/603 ".count))) as? [String: Any]
                return (answer?["readingIds"] as? [String])?.count ?? 0
            }.reduce(0, +)
            return (limited, stored)
        }
        let text = replies.wait { answers($0).limited + answers($0).stored >= count }
        let (limited, stored) = answers(text)
        XCTAssertEqual(limited + stored, count, text)
        XCTAssertGreaterThan(limited, 0, "a burst of \(count) over a budget of 5/s (bursts of 10): \(text)")
        XCTAssertTrue(text.contains("rate limit of 5 readings/s per device exceeded"), text)
        let patient = SUTProcess.json(try sut.curl("GET", "/api/v1/patients/603").body) as? [String: Any]
        XCTAssertEqual(patient?["readings"] as? Int, stored, "only the confirmed readings are stored")
    }

    /// The broker a run starts itself refuses a packet over its limit: the publisher is disconnected
    /// and a subscriber never sees the message (the SUT's own limit is the second line).
    func testTheEmbeddedBrokerRefusesOversizedPackets() throws {
        let dir = TestSupport.temporaryDirectory("broker-limit")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try LiveHarness.MosquittoBroker(directory: dir + "/broker")
        defer { broker.stop() }
        let port = String(broker.port)
        let seen = try ReferenceDeliveryTests.Listener(
            "mosquitto_sub",
            ["-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-t", "vitals/#", "-F", "%t %l"],
            output: dir + "/seen.txt"
        )
        usleep(300_000)
        let big = dir + "/big.json"
        try Data(repeating: 0x20, count: LiveHarness.MosquittoBroker.maxPacketSize + 1000).write(
            to: URL(fileURLWithPath: big)
        )
        let small = dir + "/small.json"
        try Data(repeating: 0x20, count: 200_000).write(to: URL(fileURLWithPath: small))
        // An MQTT 3.1.1 client cannot know the limit: the broker disconnects it ("oversize packet").
        let refused = try TestSupport.run(
            "mosquitto_pub",
            ["-h", "127.0.0.1", "-p", port, "-V", "311", "-q", "1", "-t", "vitals/1/a", "-f", big]
        )
        XCTAssertNotEqual(refused.status, 0, "the broker disconnects a client sending an oversized packet")
        // An MQTT 5 client learns it from CONNACK (Maximum Packet Size) and does not send.
        _ = try TestSupport.run(
            "mosquitto_pub",
            ["-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-q", "1", "-t", "vitals/1/a", "-f", big]
        )
        try publish(port, "vitals/1/b", file: small)
        let text = seen.wait { $0.contains("vitals/1/b") }
        XCTAssertEqual(text.split(separator: "\n").map(String.init), ["vitals/1/b 200000"], text)
    }

    func field(_ body: String) -> String? { (SUTProcess.json(body) as? [String: Any])?["field"] as? String }

    func accepted(_ body: String) -> Int? { (SUTProcess.json(body) as? [String: Any])?["accepted"] as? Int }
}
