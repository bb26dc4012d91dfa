import Foundation
import LiveHarness
import TestFixtures
import XCTest

/// Reproduction 1: over MQTT, a patient's data can be written only with one of that
/// patient's device credentials. Two independent layers: the broker a run starts (users and topic
/// ACLs; anonymous clients refused) and the reference SUT (a device credential in every message,
/// checked against the topic's patient).
final class MQTTIsolationTests: XCTestCase {
    /// The embedded broker's password file and ACL: no anonymous client; a device publishes only on
    /// its own patient's topics and reads only its own patient's answers.
    func testTheEmbeddedBrokerConfinesEachDevice() throws {
        let dir = TestSupport.temporaryDirectory("broker-acl")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let access = BrokerAccess(users: [
            .init(name: "sut", password: "sut-pw", rules: ["topic read vitals/+/+", "topic write acks/#"]),
            .init(
                name: "501/hr-501",
                password: "t501-0123456789abcdef",
                rules: ["topic write vitals/501/+", "topic read acks/501"]
            ),
            .init(
                name: "502/hr-502",
                password: "t502-0123456789abcdef",
                rules: ["topic write vitals/502/+", "topic read acks/502"]
            ),
        ])
        let broker = try LiveHarness.MosquittoBroker(directory: dir + "/broker", access: access)
        defer { broker.stop() }
        let port = String(broker.port)
        let seen = try ReferenceDeliveryTests.Listener(
            "mosquitto_sub",
            [
                "-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-u", "sut", "-P", "sut-pw", "-t", "vitals/+/+", "-F",
                "%t %p",
            ],
            output: dir + "/seen.txt"
        )
        usleep(300_000)
        func publish(_ topic: String, _ message: String, as user: [String]) throws -> Int32 {
            try TestSupport.run(
                "mosquitto_pub",
                ["-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-q", "1", "-t", topic, "-m", message] + user
            )
            .status
        }
        let anonymous = try publish("vitals/501/heart-rate", "anonymous", as: [])
        XCTAssertNotEqual(anonymous, 0, "an anonymous client is refused at CONNECT")
        XCTAssertNotEqual(
            try publish(
                "vitals/501/heart-rate",
                "wrong-password",
                as: ["-u", "501/hr-501", "-P", "t502-0123456789abcdef"]
            ),
            0
        )
        _ = try publish("vitals/501/heart-rate", "from-502", as: ["-u", "502/hr-502", "-P", "t502-0123456789abcdef"])
        XCTAssertEqual(
            try publish("vitals/501/heart-rate", "from-501", as: ["-u", "501/hr-501", "-P", "t501-0123456789abcdef"]),
            0
        )
        XCTAssertEqual(
            try publish("vitals/502/heart-rate", "502-own", as: ["-u", "502/hr-502", "-P", "t502-0123456789abcdef"]),
            0
        )
        let text = seen.wait { $0.contains("502-own") }
        XCTAssertTrue(text.contains("vitals/501/heart-rate from-501"), text)
        XCTAssertFalse(text.contains("from-502"), "patient 502's device wrote on 501's topic: \(text)")
        XCTAssertFalse(text.contains("anonymous") || text.contains("wrong-password"), text)

        // Another patient's confirmations are not delivered to a device (the broker checks each message it would
        // deliver).
        let heard = try ReferenceDeliveryTests.Listener(
            "mosquitto_sub",
            [
                "-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-u", "502/hr-502", "-P", "t502-0123456789abcdef", "-t",
                "acks/+", "-F",
                "%t %p",
            ],
            output: dir + "/heard.txt"
        )
        usleep(300_000)
        XCTAssertEqual(try publish("acks/501", "for-501", as: ["-u", "sut", "-P", "sut-pw"]), 0)
        XCTAssertEqual(try publish("acks/502", "for-502", as: ["-u", "sut", "-P", "sut-pw"]), 0)
        let acks = heard.wait { $0.contains("for-502") }
        XCTAssertTrue(acks.contains("acks/502 for-502"), acks)
        XCTAssertFalse(acks.contains("for-501"), "patient 502's device read 501's confirmation: \(acks)")
    }

    /// The SUT takes an MQTT message only with a device credential of the topic's patient (user
    /// property `authorization` or `x-api-key`): 401 without one, 403 with another patient's; so a
    /// message cannot write a patient's data, whatever the broker lets through.
    func testTheSUTAuthenticatesEveryMQTTMessage() throws {
        let broker = try MosquittoBroker()
        let dir = TestSupport.temporaryDirectory("mqtt-device-auth")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let credentials = TestSupport.write(
            """
            devices:
              - {token: t501-0123456789abcdef, patient: "501", device: hr-501}
              - {token: t502-0123456789abcdef, patient: "502", device: hr-502}
            readers:
              - {token: r1-0123456789abcdef}
            """,
            to: dir,
            name: "credentials.yaml"
        )
        let sut = try SUTProcess(
            ["--database", dir + "/sut.sqlite", "--mqtt", broker.address, "--credentials", credentials],
            directory: dir
        )
        defer { XCTAssertEqual(sut.stop(), 0) }
        let port = String(broker.port)
        let replies = try ReferenceDeliveryTests.Listener.replies(port: port, output: dir + "/replies.txt")
        usleep(300_000)
        for (id, credential) in [
            ("none", [:]), ("by-502", ["authorization": "Bearer t502-0123456789abcdef"]),
            ("bad-token", ["x-api-key": "nope"]),
        ] {
            let file = TestSupport.write(reading(id, "501"), to: dir, name: id + ".json")
            try publish(
                port,
                "vitals/501/heart-rate",
                file: file,
                properties: ["reading-id": id].merging(credential) { $1 }
            )
        }
        let own = TestSupport.write(reading("own", "501"), to: dir, name: "own.json")
        try publish(
            port,
            "vitals/501/heart-rate",
            file: own,
            properties: ["authorization": "Bearer t501-0123456789abcdef"]
        )
        let raw = dir + "/raw.bin"
        try Data([0x00, 0x48]).write(to: URL(fileURLWithPath: raw))
        try publish(
            port,
            "vitals/501/heart-rate",
            file: raw,
            properties: ["characteristic": "2A37", "reading-id": "raw", "x-api-key": "t501-0123456789abcdef"]
        )

        // The SUT may confirm both in one message (one per patient per ingestion batch).
        func confirmed(_ text: String) -> Set<String> {
            Set(
                text.split(separator: "\n").filter { $0.hasPrefix("acks/501 ") }.flatMap { line in
                    ((SUTProcess.json(String(line.dropFirst("acks/501 ".count))) as? [String: Any])?["readingIds"]
                        as? [String]) ?? []
                }
            )
        }
        let text = replies.wait { confirmed($0).count == 2 && $0.components(separatedBy: "errors/501").count == 4 }
        let errors = text.split(separator: "\n").filter { $0.hasPrefix("errors/501 ") }
        XCTAssertEqual(errors.filter { $0.contains("\"status\":401") }.count, 2, text)
        XCTAssertTrue(
            errors.contains {
                $0.contains("\"readingId\":\"by-502\"") && $0.contains("\"status\":403") && $0.contains("hr-502")
            },
            text
        )
        XCTAssertEqual(confirmed(text), ["own", "raw"], text)
        let patient =
            SUTProcess.json(try sut.curl("GET", "/api/v1/patients/501", token: "r1-0123456789abcdef").body)
            as? [String: Any]
        XCTAssertEqual(patient?["readings"] as? Int, 2, "only the two messages with 501's device credential are stored")
    }
    /// The harness carries each device's credential in its messages (`mqtt.device-credentials:
    /// user-properties`); with wrong tokens the SUT refuses every message with 401 and the run ends as
    /// a misconfiguration (exit 3) naming the refusal, never as missed alerts.
    func testDeviceCredentialsInMessagesAndTheirRefusal() throws {
        let broker = try MosquittoBroker()
        let dir = TestSupport.temporaryDirectory("mqtt-run-auth")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func credentials(_ prefix: String, name: String) -> String {
            TestSupport.write(
                """
                devices:
                  - {token: \(prefix)-oxi-0123456789abcdef, patient: "506", device: oxi-506}
                  - {token: \(prefix)-therm-0123456789abcdef, patient: "506", device: therm-506}
                readers:
                  - {token: reader-0123456789abcdef}
                """,
                to: dir,
                name: name
            )
        }
        let copd = TestSupport.repositoryRoot + "/scenarios/core/copd-desaturation.yaml"
        let sut = try SUTProcess(
            [
                "--database", dir + "/sut.sqlite", "--mqtt", broker.address, "--credentials",
                credentials("good", name: "sut.yaml"),
                "--scenario", copd, "--rate-limit", "0",
            ],
            directory: dir
        )
        defer { XCTAssertEqual(sut.stop(), 0) }
        func run(_ tokens: String) throws -> (status: Int32, out: String, err: String) {
            let profile = TestSupport.write(
                "name: device-tokens\nauth:\n  devices:\n    file: \(tokens)\nmqtt:\n  device-credentials: user-properties\n",
                to: dir,
                name: "profile.yaml"
            )
            return try TestSupport.vitalsim(
                [
                    "run", copd, "--target", sut.base, "--mqtt", broker.address, "--sut", profile, "--golden-dir",
                    TestSupport.repositoryRoot + "/golden",
                ],
                in: dir,
                environment: ["CI": "true"]
            )
        }
        let wrong = try run(credentials("bad", name: "wrong.yaml"))
        XCTAssertEqual(wrong.status, 3, wrong.out + wrong.err)
        XCTAssertTrue(wrong.err.contains("errors/506") && wrong.err.contains("401"), wrong.err)
        XCTAssertFalse(wrong.out.contains("missed"), wrong.out)
        let right = try run(credentials("good", name: "right.yaml"))
        XCTAssertEqual(right.status, 0, right.out + right.err)
        XCTAssertTrue(right.out.contains("PASS copd-desaturation"), right.out)
    }
}

extension MQTTIsolationTests {
    /// A heart-rate observation of `patient` as the reference contract's JSON.
    func reading(_ id: String, _ patient: String) -> String {
        observationJSON(
            id: id,
            patient: patient,
            device: "hr-\(patient)",
            kind: "heart-rate",
            value: 72,
            unit: "/min",
            at: "2024-11-07T08:00:00Z"
        )
    }

}
