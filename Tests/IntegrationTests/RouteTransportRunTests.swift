import Foundation
import XCTest

/// Routes that move devices to another transport, against the embedded reference SUT: Bluetooth
/// devices published over MQTT (FHIR Observations on the profile's topic, raw GATT values on a
/// route's own topic). The core goldens judge them unchanged and a SUT accepting invalid readings is
/// caught on the MQTT routes. (MQTT devices relayed over HTTP, and a format with no form for a
/// reading its route carries, are tested in-process: `LiveHarnessTests.InProcessProfileTests`.)
final class RouteTransportRunTests: XCTestCase {
    var directory = ""
    let golden = TestSupport.repositoryRoot + "/golden"
    let corrupt = TestSupport.repositoryRoot + "/scenarios/core/corrupt-and-duplicate-payloads.yaml"
    let copd = TestSupport.repositoryRoot + "/scenarios/core/copd-desaturation.yaml"

    override func setUp() { directory = TestSupport.temporaryDirectory("route-transport") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// CGM values as FHIR over MQTT, the strap's raw GATT on its own topic, the COPD patient's MQTT
    /// devices relayed over HTTP as FHIR, everything else as observation JSON over HTTP.
    static let gateway = """
        name: gateway
        ingestion:
          routes:
            - {device-types: [cgm], kinds: [cgm], transport: mqtt, format: fhir-observation}
            - {device-types: [heart-rate-strap], transport: mqtt, format: gatt, topic: "ble/{patient}/{kind}/{device}"}
            - {device-types: [pulse-oximeter, thermometer], kinds: [spo2, temperature], transport: http, path: /fhir/Observation, format: fhir-observation}
            - {transport: http, path: /api/v1/observations, format: vitalsim-observation}
        """

    func run(
        _ scenario: String,
        _ profile: String,
        _ extra: [String] = []
    ) throws -> (status: Int32, out: String, err: String) {
        try TestSupport.vitalsim(
            ["run", scenario, "--golden-dir", golden, "--sut", profile] + extra,
            in: directory,
            environment: ["CI": "true"]
        )
    }

    /// At a finite speed: at `--speed max` the patient's MQTT readings queue behind its HTTP ones at
    /// the SUT, and the reference SUT's data-gap rule follows arrival order (docs/sut-profiles.md).
    func testDevicesMovedToMQTTAreJudgedByTheSameGoldens() throws {
        let profile = TestSupport.write(Self.gateway, to: directory, name: "gateway.yaml")
        let ran = try run(corrupt, profile, ["--speed", "900"])
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        // 27 checks as before, and the refused field of each of the 22 expected refusals a check of its own.
        XCTAssertTrue(ran.out.contains("PASS corrupt-and-duplicate-payloads: 49/49 checks"), ran.out)
        XCTAssertTrue(ran.out.contains("ingestion MQTT ble/{patient}/heart-rate/{device}: PUBACK ×"), ran.out)
        XCTAssertTrue(ran.out.contains("ingestion MQTT vitals/{patient}/cgm: PUBACK ×33, refused 400 ×2"), ran.out)

        let faulty = try run(corrupt, profile, ["--sut-fault", "accept-invalid"])
        XCTAssertEqual(faulty.status, 1, faulty.out + faulty.err)
        XCTAssertTrue(faulty.out.contains("validation-mismatch rejects 511/cgm-511/11"), faulty.out)
        XCTAssertTrue(faulty.out.contains("validation-mismatch rejects 511/hrm-511/"), faulty.out)
    }

}
