import Foundation
import TestFixtures
import XCTest

/// Alert delivery and MQTT ingestion against real parts: a real mosquitto broker (readings in as
/// JSON and as raw GATT bytes, alerts out on `alerts/{patient}`, rejections on `errors/{patient}`),
/// a webhook receiver that fails its first requests (retries with backoff), and the SSE stream
/// (live, then resumed with `Last-Event-ID`).
final class ReferenceDeliveryTests: XCTestCase {
    /// A background command whose output goes to a file (mosquitto_sub, curl -N).
    final class Listener {
        let process = Process()
        let output: String
        init(_ tool: String, _ args: [String], output: String) throws {
            self.output = output
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + args
            process.standardOutput = FileHandle(forWritingAtPath: output)
            process.standardError = FileHandle.nullDevice
            try process.run()
        }
        var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        /// Waits until `predicate` holds on the output (at most `seconds`).
        @discardableResult
        func wait(_ seconds: Double = 15, until predicate: (String) -> Bool) -> String {
            let deadline = Date(timeIntervalSinceNow: seconds)
            while !predicate(text), Date() < deadline { usleep(50_000) }
            return text
        }
        deinit {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    func testWebhookMQTTAndSSEDelivery() throws {
        let broker = try MosquittoBroker()
        let webhook = try WebhookReceiver(failFirst: 2)
        let dir = TestSupport.temporaryDirectory("delivery")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sut = try SUTProcess(
            ["--database", dir + "/sut.sqlite", "--mqtt", broker.address, "--webhook", webhook.url],
            directory: dir
        )
        defer { XCTAssertEqual(sut.stop(), 0) }
        let port = String(broker.port)
        let alertsSub = try Listener(
            "mosquitto_sub",
            ["-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-t", "alerts/#", "-t", "errors/#", "-F", "%t %p"],
            output: dir + "/mqtt.txt"
        )
        let sse = try Listener("curl", ["-s", "-N", sut.base + "/api/v1/alerts/stream"], output: dir + "/sse.txt")
        sse.wait { $0.contains("vitalsim alert stream") }
        usleep(300_000)  // let mosquitto_sub subscribe

        // 1. HTTP: a hypertensive crisis reading.
        let crisis =
            #"{"readingId": "h1", "patientId": "601", "deviceId": "bp", "kind": "blood-pressure", "systolic": 185, "diastolic": 95, "unit": "mm[Hg]", "timestamp": "2024-11-07T08:00:00Z"}"#
        XCTAssertEqual(try sut.curl("POST", "/api/v1/observations", body: crisis).status, 200)

        try publishMQTTReadings(port: port, directory: dir)

        let expected: [(String, String)] = [
            ("601", "bp.hypertensive-crisis"), ("602", "bp.hypertensive-crisis"), ("603", "spo2.low"),
        ]
        let ids = try checkPolledAlerts(sut, expected: expected)

        checkMQTTDelivery(alertsSub, expected: expected)

        // Webhook: the first two attempts got 503, every alert still arrives exactly once.
        let deadline2 = Date(timeIntervalSinceNow: 20)
        while webhook.received.count < 3, Date() < deadline2 { usleep(100_000) }
        XCTAssertEqual(Set(webhook.received.compactMap { $0["alertId"] as? String }), ids)
        XCTAssertEqual(webhook.received.count, 3)

        try checkSSE(sse, sut)

        let metrics = try sut.curl("GET", "/metrics")
        XCTAssertTrue(metrics.body.contains("vitalsim_mqtt_messages_total{outcome=\"accepted\"} 3"), metrics.body)
        XCTAssertTrue(metrics.body.contains("vitalsim_mqtt_messages_total{outcome=\"rejected\"} 2"), metrics.body)
    }

    /// Raw GATT, JSON observations and two invalid messages over MQTT (steps 2 to 4).
    func publishMQTTReadings(port: String, directory dir: String) throws {
        // 2. MQTT, raw GATT: Blood Pressure Measurement (0x2A35) 190/100 mmHg, SFLOAT, no time stamp.
        let gatt = dir + "/bp.bin"
        _ = FileManager.default.createFile(atPath: gatt, contents: Data([0x00, 0xBE, 0x00, 0x64, 0x00, 0x82, 0x00]))
        var pub = try TestSupport.run(
            "mosquitto_pub",
            [
                "-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-q", "1", "-t", "vitals/602/blood-pressure", "-f", gatt,
                "-D", "publish", "user-property", "characteristic", "2A35",
                "-D", "publish", "user-property", "reading-id", "g1",
                "-D", "publish", "user-property", "device-time", "2024-11-07T08:05:00Z",
            ]
        )
        XCTAssertEqual(pub.status, 0, pub.err)

        // 3. MQTT, JSON observation: SpO2 85 % for a minute (spo2.low, adult).
        for (i, ts) in ["2024-11-07T09:00:00Z", "2024-11-07T09:01:00Z"].enumerated() {
            pub = try TestSupport.run(
                "mosquitto_pub",
                [
                    "-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-q", "1", "-t", "vitals/603/spo2",
                    "-m",
                    observationJSON(
                        id: "s\(i)",
                        patient: "603",
                        device: "ox",
                        kind: "spo2",
                        value: 85,
                        unit: "%",
                        at: ts
                    ),
                ]
            )
            XCTAssertEqual(pub.status, 0, pub.err)
        }
        // 4. MQTT, invalid: an unknown characteristic and a patient that does not match the topic.
        pub = try TestSupport.run(
            "mosquitto_pub",
            [
                "-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-q", "1", "-t", "vitals/604/heart-rate", "-m", "x",
                "-D", "publish", "user-property", "characteristic", "2AFF", "-D", "publish", "user-property",
                "reading-id", "bad1",
            ]
        )
        XCTAssertEqual(pub.status, 0, pub.err)
        pub = try TestSupport.run(
            "mosquitto_pub",
            [
                "-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-q", "1", "-t", "vitals/604/spo2",
                "-m",
                observationJSON(
                    id: "bad2",
                    patient: "605",
                    device: "ox",
                    kind: "spo2",
                    value: 97,
                    unit: "%",
                    at: "2024-11-07T09:00:00Z"
                ),
            ]
        )
        XCTAssertEqual(pub.status, 0, pub.err)
    }

    /// The alert list: one alert per expected (patient, rule), evidence and time from the MQTT properties.
    func checkPolledAlerts(_ sut: SUTProcess, expected: [(String, String)]) throws -> Set<String> {
        // Polling.
        var polled: [[String: Any]] = []
        let deadline = Date(timeIntervalSinceNow: 15)
        while polled.count < 3, Date() < deadline {
            polled = try sut.alerts()
            usleep(100_000)
        }
        XCTAssertEqual(
            polled.map { "\($0["patientId"] as? String ?? "") \($0["rule"] as? String ?? "")" }.sorted(),
            expected.map { "\($0.0) \($0.1)" }
        )
        let glucose = polled.first { $0["patientId"] as? String == "602" }
        XCTAssertEqual(glucose?["evidence"] as? [String], ["g1"], "the MQTT user property reading-id is the evidence")
        XCTAssertEqual(
            glucose?["raisedAt"] as? String,
            "2024-11-07T08:05:00.000Z",
            "judged by the device-time property"
        )
        let ids = Set(polled.compactMap { $0["alertId"] as? String })
        XCTAssertEqual(ids.count, 3)
        return ids
    }

    /// Alerts on `alerts/{patient}` and rejections on `errors/{patient}`.
    func checkMQTTDelivery(_ alertsSub: Listener, expected: [(String, String)]) {
        // MQTT alerts and rejections.
        let mqtt = alertsSub.wait { t in
            expected.allSatisfy { t.contains("alerts/\($0.0) ") } && t.contains("errors/604 ")
                && t.components(separatedBy: "errors/604").count == 3
        }
        for (patient, rule) in expected {
            let line = mqtt.split(separator: "\n").first { $0.hasPrefix("alerts/\(patient) ") }
            let body = line.map { String($0.dropFirst("alerts/\(patient) ".count)) } ?? ""
            XCTAssertEqual((SUTProcess.json(body) as? [String: Any])?["rule"] as? String, rule, mqtt)
        }
        let errors = mqtt.split(separator: "\n").filter { $0.hasPrefix("errors/604 ") }.compactMap {
            SUTProcess.json(String($0.dropFirst(11))) as? [String: Any]
        }
        XCTAssertEqual(errors.compactMap { $0["field"] as? String }.sorted(), ["characteristic", "patientId"], mqtt)
        XCTAssertEqual(errors.compactMap { $0["status"] as? Int }.sorted(), [400, 403])
    }

    /// SSE: live events carry id and event type; a reconnect with Last-Event-ID gets only the rest.
    func checkSSE(_ sse: Listener, _ sut: SUTProcess) throws {
        // SSE: live events carry id and event type; a reconnect with Last-Event-ID gets only the rest.
        let stream = sse.wait { $0.components(separatedBy: "event: alert").count == 4 }
        let events = stream.components(separatedBy: "\n\n").filter { $0.contains("event: alert") }
        XCTAssertEqual(events.count, 3, stream)
        let firstID =
            events.first?.split(separator: "\n").first { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) } ?? ""
        let resumed = try TestSupport.run(
            "curl",
            ["-s", "-N", "--max-time", "2", "-H", "Last-Event-ID: \(firstID)", sut.base + "/api/v1/alerts/stream"]
        )
        XCTAssertEqual(resumed.out.components(separatedBy: "event: alert").count - 1, 2, resumed.out)
        XCTAssertFalse(resumed.out.contains("id: \(firstID)\n"))
    }
}
