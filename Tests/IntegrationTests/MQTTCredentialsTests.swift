import Foundation
import XCTest

/// A broker that refuses anonymous clients (a mosquitto password file): the SUT connects with
/// `serve --mqtt-username/--mqtt-password-env`, the harness with the profile's `mqtt` section; without
/// it the run ends with exit 3 naming the broker's refusal and the profile keys that fix it.
final class MQTTCredentialsTests: XCTestCase {
    func testAPasswordProtectedBroker() throws {
        let directory = TestSupport.temporaryDirectory("mqtt-auth")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let passwords = directory + "/passwords"
        XCTAssertEqual(
            try TestSupport.run("mosquitto_passwd", ["-c", "-b", passwords, "vitalsim", "harness-pw"]).status,
            0
        )
        XCTAssertEqual(try TestSupport.run("mosquitto_passwd", ["-b", passwords, "sut", "sut-pw"]).status, 0)
        let (broker, port) = try TestSupport.mosquitto(
            "allow_anonymous false\npassword_file \(passwords)\npersistence false\n",
            in: directory
        )
        defer {
            broker.terminate()
            broker.waitUntilExit()
        }
        let copd = TestSupport.repositoryRoot + "/scenarios/core/copd-desaturation.yaml"
        setenv("VITALSIM_TEST_SUT_MQTT_PASSWORD", "sut-pw", 1)
        let sut = try SUTProcess(
            [
                "--self-signed", "--database", directory + "/sut.sqlite", "--scenario", copd, "--mqtt",
                "127.0.0.1:\(port)",
                "--mqtt-username", "sut", "--mqtt-password-env", "VITALSIM_TEST_SUT_MQTT_PASSWORD",
                // A day of oximetry at --speed max is far over any device's rate (the embedded SUT's too).
                "--rate-limit", "0",
            ],
            directory: directory
        )
        defer { sut.stop() }
        // What is tested is the broker's credentials, not latency: the golden file's budgets are
        // SHOULD here (judged, but warnings), as a loaded CI machine passes 1 s now and then.
        let golden = try TestSupport.goldensWithBudgetsAsShould(in: directory)
        XCTAssertTrue(
            try String(contentsOfFile: golden + "/copd-desaturation.golden.yaml", encoding: .utf8)
                .contains("budgets: SHOULD")
        )
        let args =
            ["run", copd, "--target", sut.base, "--cacert", sut.caFile ?? "", "--mqtt", "127.0.0.1:\(port)"]
            + ["--golden-dir", golden]
        let env = ["CI": "true", "HARNESS_MQTT_PASSWORD": "harness-pw"]

        let anonymous = try TestSupport.vitalsim(args, in: directory, environment: env)
        XCTAssertEqual(anonymous.status, 3, anonymous.out + anonymous.err)
        XCTAssertTrue(
            anonymous.err.contains("Not authorized") && anonymous.err.contains("mqtt: username and password-env"),
            anonymous.err
        )

        let profile = TestSupport.write(
            "name: broker-auth\nmqtt:\n  username: vitalsim\n  password-env: HARNESS_MQTT_PASSWORD\n",
            to: directory,
            name: "p.yaml"
        )
        let ran = try TestSupport.vitalsim(
            args + ["--sut", profile, "--observe", "mqtt"],
            in: directory,
            environment: env
        )
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        XCTAssertTrue(ran.out.contains("PASS copd-desaturation"), ran.out)
    }

    /// `mqtt.topic`: MQTT devices publish on the profile's template, and the embedded reference SUT
    /// is started subscribed to it (`serve --mqtt-topic`); readings it never received would fail the run.
    func testReadingsOnTheProfilesTopic() throws {
        let directory = TestSupport.temporaryDirectory("mqtt-topic")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let profile = TestSupport.write(
            "name: topic\nmqtt:\n  topic: \"rpm/{patient}/devices/{device}/{kind}\"\n",
            to: directory,
            name: "p.yaml"
        )
        let copd = TestSupport.repositoryRoot + "/scenarios/core/copd-desaturation.yaml"
        // What is tested is the topic, not latency: budgets are SHOULD (three test processes on two
        // cores put a single MQTT alert past 1 s now and then).
        let golden = try TestSupport.goldensWithBudgetsAsShould(in: directory)
        let ran = try TestSupport.vitalsim(
            ["run", copd, "--sut", profile, "--golden-dir", golden, "--evidence", directory + "/evidence"],
            in: directory,
            environment: ["CI": "true"]
        )
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        let log = try String(contentsOfFile: directory + "/evidence/copd-desaturation/traffic.jsonl", encoding: .utf8)
        XCTAssertTrue(log.contains("rpm/506/devices/"), String(log.prefix(600)))
        XCTAssertFalse(log.contains("\"vitals/506/"), String(log.prefix(600)))
    }
}
