import Foundation
import XCTest

/// `vitalsim doctor`: a checklist of what a run needs from a SUT, each failure naming the endpoint,
/// the status and what to change; exit 0 when all hold, 3 otherwise.
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

    func testAHealthySUTPassesEveryCheck() throws {
        let s = try sut([])
        defer { _ = s.stop() }
        let r = try doctor(["--target", s.base, "--cacert", s.caFile ?? ""])
        XCTAssertEqual(r.status, 0, r.out + r.err)
        for line in [
            "✓ reachable:", "over TLS (certificate verified)", "✓ alert source:",
            "✓ accepts a valid reading on POST /api/v1/observations",
            "✓ refuses an invalid body on POST /api/v1/observations",
            "✓ accepts a valid reading on POST /api/iot-heart-rate",
            "✓ refuses an invalid body on POST /api/iot-heart-rate", "✓ alert names mapped:",
            "✓ stored readings read back: 62 stored reading(s) of 1 patient(s)", "counts per day and month read",
            "the SUT can be tested (8 checks)",
        ] {
            XCTAssertTrue(r.out.contains(line), "\(line): \(r.out)")
        }
    }

    func testAReadBackThatListsNothingAcceptedIsNamed() throws {
        let s = try sut([])
        defer { _ = s.stop() }
        let profile = TestSupport.write(
            "name: wrong-read-back\nstored-readings:\n  url: /api/v1/patients/{patient}/readings?kind=weight\n  list: /items\n"
                + "  fields: {id: /readingId, time: /timestamp, values: /values}\n",
            to: directory,
            name: "wrong-read-back.yaml"
        )
        let r = try doctor(["--target", s.base, "--cacert", s.caFile ?? "", "--sut", profile])
        XCTAssertEqual(r.status, 3, r.out + r.err)
        XCTAssertTrue(r.out.contains("✗ stored readings read back: GET "), r.out)
        XCTAssertTrue(
            r.out.contains("lists none of the readings just accepted: check stored-readings.url and list"),
            r.out
        )
    }

    func testEachMisconfigurationIsNamed() throws {
        let guarded = try sut(["--dev"])
        defer { _ = guarded.stop() }
        let noToken = try doctor(["--target", guarded.base, "--cacert", guarded.caFile ?? ""])
        XCTAssertEqual(noToken.status, 3, noToken.out)
        XCTAssertTrue(
            noToken.out.contains("✗ alert source: GET \(guarded.base)/api/v1/alerts answered 401"),
            noToken.out
        )
        XCTAssertTrue(noToken.out.contains("✗ accepts a valid reading on POST /api/v1/observations"), noToken.out)
        XCTAssertTrue(noToken.out.contains("answered 401") && noToken.out.contains("--header"), noToken.out)

        let untrusted = try doctor(["--target", guarded.base])
        XCTAssertEqual(untrusted.status, 3, untrusted.out)
        XCTAssertTrue(untrusted.out.contains("✗ reachable:") && untrusted.out.contains("--cacert"), untrusted.out)

        let broken = try sut(["--fault", "alert-api=garbage", "--fault", "accept-invalid"])
        defer { _ = broken.stop() }
        let r = try doctor(["--target", broken.base, "--cacert", broken.caFile ?? ""])
        XCTAssertEqual(r.status, 3, r.out)
        XCTAssertTrue(r.out.contains("✗ alert source:") && r.out.contains("a body that is not JSON"), r.out)
        XCTAssertTrue(
            r.out.contains(
                "✗ refuses an invalid body on POST /api/v1/observations: the body cut in half: answered 200"
            ),
            r.out
        )
        XCTAssertTrue(r.out.contains("✓ accepts a valid reading on POST /api/v1/observations"), r.out)
    }

    func testAnMQTTScenarioNeedsTheBrokerAndAnUnreachableSUTIsNamed() throws {
        let s = try sut([])
        defer { _ = s.stop() }
        let mqtt = TestSupport.repositoryRoot + "/scenarios/core/copd-desaturation.yaml"
        let noBroker = try TestSupport.vitalsim(
            ["doctor", mqtt, "--target", s.base, "--cacert", s.caFile ?? ""],
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
            let s = try SUTProcess(
                [
                    "--self-signed", "--database", directory + "/mqtt-\(passes).sqlite", "--scenario", copd, "--mqtt",
                    "127.0.0.1:\(port)",
                ]
                    + faults,
                directory: directory
            )
            defer { _ = s.stop() }
            let r = try TestSupport.vitalsim(
                ["doctor", copd, "--target", s.base, "--cacert", s.caFile ?? "", "--mqtt", "127.0.0.1:\(port)"],
                in: directory
            )
            XCTAssertEqual(r.status, passes ? 0 : 3, r.out + r.err)
            XCTAssertTrue(r.out.contains("✓ accepts a valid reading on MQTT vitals/506/spo2: 506/oxi-506/"), r.out)
            XCTAssertTrue(r.out.contains("PUBACK, confirmed by the SUT"), r.out)
            let refusal =
                passes
                ? "✓ refuses an invalid body on MQTT vitals/506/spo2: the raw value cut to 1 byte(s): refused 400"
                : "✗ refuses an invalid body on MQTT vitals/506/spo2"
            XCTAssertTrue(r.out.contains(refusal), r.out)
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
        let s = try SUTProcess(
            [
                "--self-signed", "--database", directory + "/gw.sqlite", "--scenario", scenario, "--mqtt",
                "127.0.0.1:\(port)",
                "--mqtt-topic", "ble/{patient}/{kind}",
            ],
            directory: directory
        )
        defer { _ = s.stop() }
        let r = try doctor([
            "--target", s.base, "--cacert", s.caFile ?? "", "--mqtt", "127.0.0.1:\(port)", "--sut", gateway,
        ])
        XCTAssertEqual(r.status, 0, r.out + r.err)
        XCTAssertTrue(r.out.contains("✓ accepts a valid reading on MQTT ble/501/heart-rate"), r.out)
        XCTAssertTrue(
            r.out.contains(
                "✓ refuses an invalid body on MQTT ble/501/heart-rate: the raw value cut to 1 byte(s): refused 400 naming 'payload'"
            ),
            r.out
        )
        XCTAssertFalse(r.out.contains("POST /api/v1/observations"), "everything goes over MQTT: " + r.out)
    }
}
