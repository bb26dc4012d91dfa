import Foundation
import XCTest

/// `vitalsim doctor` where only processes show it: TLS, MQTT brokers, the printed checklist and the
/// exit status (0 when every check holds, 3 otherwise). The HTTP checks run in-process
/// (`LiveHarnessTests.InProcessDoctorTests`).
final class DoctorTests: XCTestCase {
    var directory = ""
    let scenario = TestSupport.repositoryRoot + "/scenarios/core/adult-tachycardia-episode.yaml"

    override func setUp() { directory = TestSupport.temporaryDirectory("doctor") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func doctor(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try TestSupport.vitalsim(["doctor", scenario] + args, in: directory)
    }

    func sut(_ extra: [String]) throws -> SUTProcess {
        try SUTProcess(
            ["--self-signed", "--database", directory + "/sut-\(extra.count).sqlite", "--scenario", scenario] + extra,
            directory: directory
        )
    }

    /// Over TLS: a SUT whose certificate is trusted (`--cacert`) is reachable, one whose certificate
    /// is not is named with what to change; the printed checklist and the exit status. (The checks
    /// themselves run in-process: `LiveHarnessTests.InProcessDoctorTests`.)
    func testTLSIsVerifiedAndAnUntrustedCertificateIsNamed() throws {
        let server = try sut([])
        defer { _ = server.stop() }
        let ran = try doctor(["--target", server.base, "--cacert", server.caFile ?? ""])
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        for line in ["✓ reachable:", "over TLS (certificate verified)", "the SUT can be tested (8 checks)"] {
            XCTAssertTrue(ran.out.contains(line), "\(line): \(ran.out)")
        }
        let untrusted = try doctor(["--target", server.base])
        XCTAssertEqual(untrusted.status, 3, untrusted.out)
        XCTAssertTrue(untrusted.out.contains("✗ reachable:") && untrusted.out.contains("--cacert"), untrusted.out)
    }

    func testAnMQTTScenarioNeedsTheBrokerAndAnUnreachableSUTIsNamed() throws {
        let server = try sut([])
        defer { _ = server.stop() }
        let mqtt = TestSupport.repositoryRoot + "/scenarios/core/copd-desaturation.yaml"
        let noBroker = try TestSupport.vitalsim(
            ["doctor", mqtt, "--target", server.base, "--cacert", server.caFile ?? ""],
            in: directory
        )
        XCTAssertEqual(noBroker.status, 3, noBroker.out)
        XCTAssertTrue(
            noBroker.out.contains("✗ MQTT broker: the scenario sends over MQTT: give the SUT's broker with --mqtt"),
            noBroker.out
        )
        let gone = try doctor(["--target", "http://127.0.0.1:9"])
        XCTAssertEqual(gone.status, 3, gone.out)
        XCTAssertTrue(gone.out.contains("✗ reachable: GET http://127.0.0.1:9/api/v1/alerts got no answer"), gone.out)
        let bad = try doctor(["--target", "ftp://x"])
        XCTAssertEqual(bad.status, 2, bad.err)
    }

    /// MQTT traffic is probed too: one valid message per topic shape, confirmed by the SUT, and the
    /// payload cut in half refused on errors/; a SUT that accepts anything is caught, and a route that
    /// moves the strap to MQTT as raw GATT is probed on its own topic.
    func testMQTTTopicsAreProbedLikeHTTPRoutes() throws {
        let (broker, port) = try TestSupport.mosquitto("allow_anonymous true\npersistence false\n", in: directory)
        defer { broker.terminate() }
        let copd = TestSupport.repositoryRoot + "/scenarios/core/copd-desaturation.yaml"
        for (faults, passes) in [([String](), true), (["--fault", "accept-invalid"], false)] {
            let server = try SUTProcess(
                [
                    "--self-signed", "--database", directory + "/mqtt-\(passes).sqlite", "--scenario", copd, "--mqtt",
                    "127.0.0.1:\(port)",
                ]
                    + faults,
                directory: directory
            )
            defer { _ = server.stop() }
            let ran = try TestSupport.vitalsim(
                [
                    "doctor", copd, "--target", server.base, "--cacert", server.caFile ?? "", "--mqtt",
                    "127.0.0.1:\(port)",
                ],
                in: directory
            )
            XCTAssertEqual(ran.status, passes ? 0 : 3, ran.out + ran.err)
            XCTAssertTrue(ran.out.contains("✓ accepts a valid reading on MQTT vitals/506/spo2: 506/oxi-506/"), ran.out)
            XCTAssertTrue(ran.out.contains("PUBACK, confirmed by the SUT"), ran.out)
            let refusal =
                passes
                ? "✓ refuses an invalid body on MQTT vitals/506/spo2: the raw value cut to 1 byte(s): refused 400"
                : "✗ refuses an invalid body on MQTT vitals/506/spo2"
            XCTAssertTrue(ran.out.contains(refusal), ran.out)
        }
        let gateway = TestSupport.write(
            """
            name: gw
            ingestion:
              routes:
                - {device-types: [heart-rate-strap], transport: mqtt, format: gatt, topic: "ble/{patient}/{kind}"}
                - {kinds: [heart-rate], path: /api/iot-heart-rate, format: vitaledge}
                - {path: /api/healthkit, format: vitaledge}
            """,
            to: directory,
            name: "gw.yaml"
        )
        let server = try SUTProcess(
            [
                "--self-signed", "--database", directory + "/gw.sqlite", "--scenario", scenario, "--mqtt",
                "127.0.0.1:\(port)",
                "--mqtt-topic", "ble/{patient}/{kind}",
            ],
            directory: directory
        )
        defer { _ = server.stop() }
        let ran = try doctor([
            "--target", server.base, "--cacert", server.caFile ?? "", "--mqtt", "127.0.0.1:\(port)", "--sut", gateway,
        ])
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        XCTAssertTrue(ran.out.contains("✓ accepts a valid reading on MQTT ble/501/heart-rate"), ran.out)
        XCTAssertTrue(
            ran.out.contains(
                "✓ refuses an invalid body on MQTT ble/501/heart-rate: the raw value cut to 1 byte(s): refused 400 naming 'payload'"
            ),
            ran.out
        )
        XCTAssertFalse(ran.out.contains("POST /api/v1/observations"), "everything goes over MQTT: " + ran.out)
    }
}
