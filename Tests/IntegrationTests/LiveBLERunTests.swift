import Foundation
import XCTest

/// `vitalsim run --ble hci`: the scenario's Bluetooth devices as live peripherals on bumble's
/// virtual controllers, the embedded reference SUT's BLE gateway as their central, the phone
/// bridge over HTTPS alongside. The golden file is recorded with the devices relayed over HTTPS;
/// the same expectations must hold over the BLE link — with a disconnect fault whose glucose
/// records come back through RACP and a heart-rate dropout — and a faulty SUT must still be caught.
final class LiveBLERunTests: XCTestCase {
    static let scenario = """
        name: live-ble-run
        seed: 77
        duration: 1h
        start: 2024-11-07T08:00:00Z
        patients:
          - id: "b1"
            profile: adult
            baseline: {heartRate: 68, dailySteps: 0}
            devices:
              - {id: strap-b1, type: heart-rate-strap}
              - {id: meter-b1, type: glucometer, cadence: 10m}
              - {id: phone-b1, type: phone-bridge, cadence: 5m}
        timeline:
          - {at: 12m, patient: "b1", event: tachycardia, duration: 20m, target: 150, onset: 2m, offset: 3m}
          - {at: 21m, device: meter-b1, fault: disconnect, duration: 15m}
          - {at: 40m, device: strap-b1, fault: dropout, duration: 5m}
        """

    var directory = ""

    override func setUpWithError() throws {
        _ = try LiveBLETests.bumblePython()
        directory = TestSupport.temporaryDirectory("ble-run")
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func vitalsim(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try TestSupport.vitalsim(
            args,
            in: directory,
            environment: ["CI": nil, "VITALSIM_BUMBLE_PYTHON": TestSupport.repositoryRoot + "/.venv-bumble/bin/python"]
        )
    }

    func checks(_ json: String) throws -> [[String: Any]] {
        let j = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as! [String: Any]
        return try XCTUnwrap((j["scenarios"] as? [[String: Any]])?.first?["checks"] as? [[String: Any]])
    }

    func testBLELinkMeetsTheRelayGoldenAndCatchesAFaultySUT() throws {
        let path = TestSupport.write(Self.scenario, to: directory, name: "live-ble-run.yaml")
        let golden = directory + "/golden"
        let record = try vitalsim(["record", path, "--golden-dir", golden])
        XCTAssertEqual(record.status, 0, record.err)
        let goldenText = try String(contentsOfFile: golden + "/live-ble-run.golden.yaml", encoding: .utf8)
        XCTAssertTrue(
            goldenText.contains("rule: \"hr.tachycardia\""),
            "the relayed run raises the tachycardia alert: \(goldenText)"
        )

        // Over the BLE link: the same alerts, every BLE reading sent, the glucometer reconnected.
        let json = directory + "/ble.json"
        let evidence = directory + "/evidence"
        let run = try vitalsim([
            "run", path, "--golden-dir", golden, "--ble", "hci", "--speed", "240", "--json", json, "--evidence",
            evidence,
        ])
        XCTAssertEqual(run.status, 0, run.out + run.err)
        let list = try checks(json)
        let ble = try XCTUnwrap(
            list.first { $0["name"] as? String == "every BLE reading sent to a subscribed central" },
            "\(list)"
        )
        let detail = ble["detail"] as? String ?? ""
        XCTAssertEqual(ble["passed"] as? Bool, true, detail)
        XCTAssertTrue(detail.contains("b1/strap-b1, b1/meter-b1"), detail)
        XCTAssertTrue(detail.contains("1 disconnect(s), 1 reconnection(s)"), detail)
        XCTAssertTrue(detail.contains("stored record(s) offered through RACP"), detail)
        let sent = Int(detail.split(separator: " ").first ?? "") ?? 0
        XCTAssertGreaterThan(sent, 3000, "about one heart-rate notification per virtual second: \(detail)")
        XCTAssertTrue(
            list.contains {
                $0["name"] as? String == "alert hr.tachycardia patient b1" && $0["passed"] as? Bool == true
            },
            "\(list)"
        )
        XCTAssertTrue(
            run.out.contains("HTTP/1.1:"),
            "the phone bridge still posts over HTTPS (HTTP/1.1 by default): \(run.out)"
        )

        try checkBundle(evidence + "/live-ble-run")

        // A SUT that never raises tachycardia alerts is caught over BLE too.
        let faultyJSON = directory + "/faulty.json"
        let faulty = try vitalsim([
            "run", path, "--golden-dir", golden, "--ble", "hci", "--speed", "240", "--sut-fault",
            "miss-rule=hr.tachycardia",
            "--alert-wait", "0", "--json", faultyJSON,
        ])
        XCTAssertEqual(faulty.status, 1, faulty.out + faulty.err)
        let missed = try checks(faultyJSON).first { $0["name"] as? String == "alert hr.tachycardia patient b1" }
        XCTAssertEqual(missed?["finding"] as? String, "missed", "\(String(describing: missed))")
    }

    /// The bundle names the BLE devices, carries their live captures (which Wireshark decodes cleanly:
    /// discovery, subscriptions, notifications, RACP), and its HTTP traffic replays byte for byte.
    func checkBundle(_ bundle: String) throws {
        let meta =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: bundle + "/meta.json")))
            as! [String: Any]
        XCTAssertEqual(meta["ble"] as? String, "hci")
        XCTAssertEqual(meta["bleReadingsNotSent"] as? Int, 0)
        let captures = try FileManager.default.contentsOfDirectory(atPath: bundle + "/ble-live").sorted()
        XCTAssertEqual(captures, ["b1-meter-b1.live.btsnoop", "b1-strap-b1.live.btsnoop"])
        for capture in captures {
            let bad = try TestSupport.run(
                "tshark",
                ["-r", bundle + "/ble-live/" + capture, "-Y", "btatt.invalid_usage || _ws.malformed"]
            )
            XCTAssertEqual(bad.status, 0, bad.err)
            XCTAssertEqual(bad.out, "", capture)
        }
        let notifications = try TestSupport.run(
            "tshark",
            ["-r", bundle + "/ble-live/b1-strap-b1.live.btsnoop", "-Y", "btatt.opcode == 0x1b"]
        )
        XCTAssertGreaterThan(
            notifications.out.split(separator: "\n").count,
            3000,
            "heart-rate notifications in the capture"
        )
        let replay = try vitalsim(["replay", bundle])
        XCTAssertEqual(replay.status, 0, replay.out + replay.err)
    }

    func testBLELinkNeedsAFiniteSpeed() throws {
        let path = TestSupport.write(Self.scenario, to: directory, name: "live-ble-run.yaml")
        let ran = try vitalsim(["run", path, "--ble", "hci"])
        XCTAssertEqual(ran.status, 2, ran.err)
        XCTAssertTrue(ran.err.contains("--ble hci needs a finite --speed"), ran.err)
        let hci = try vitalsim(["run", path, "--ble", "hci", "--speed", "60", "--hci", "tcp:127.0.0.1:1"])
        XCTAssertEqual(hci.status, 2, hci.err)
        XCTAssertTrue(
            hci.err.contains("--hci names the BLE devices' controllers for a SUT given with --target"),
            hci.err
        )
    }
}
