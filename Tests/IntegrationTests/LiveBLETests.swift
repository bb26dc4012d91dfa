import Bluetooth
import BluetoothHost
import Foundation
import LiveHarness
import Traffic
import VitalSimCore
import XCTest

/// VitalSim's HCI host and GATT server against an independent stack: bumble's virtual controllers
/// on one link, and bumble centrals that connect, discover, subscribe (notify and indicate), write
/// RACP and decode what arrives. Values must equal the offline `readings.jsonl` of the same scenario.
final class LiveBLETests: XCTestCase {
    static let scenario = """
        name: live-ble
        seed: 9
        duration: 20m
        patients:
          - id: "p1"
            profile: diabetic-cgm
            devices:
              - {id: hrm, type: heart-rate-strap}
              - {id: cuff, type: bp-cuff, cadence: 10m}
              - {id: meter, type: glucometer, cadence: 5m}
              - {id: oxi, type: pulse-oximeter, mode: continuous, cadence: 10s}
              - {id: spot, type: pulse-oximeter, cadence: 5m}
              - {id: therm, type: thermometer, cadence: 5m}
              - {id: scale, type: weight-scale, cadence: 5m}
        """

    var processes: [Process] = []

    override func tearDown() {
        for p in processes where p.isRunning {
            p.terminate()
            p.waitUntilExit()
        }
        processes = []
    }

    /// The project's bumble virtual environment (created by ci/setup-debian.sh, or here if missing).
    static func bumblePython() throws -> String {
        let venv = TestSupport.repositoryRoot + "/.venv-bumble"
        let python = venv + "/bin/python"
        if !FileManager.default.isExecutableFile(atPath: python)
            || (try? TestSupport.run(python, ["-c", "import bumble"]).status) != 0
        {
            let made = try TestSupport.run("python3", ["-m", "venv", venv])
            guard made.status == 0 else { throw MissingTool(message: "cannot create \(venv): \(made.err)") }
            let pip = try TestSupport.run(venv + "/bin/pip", ["install", "-q", "bumble==0.0.236"])
            guard pip.status == 0 else { throw MissingTool(message: "cannot install bumble from PyPI: \(pip.err)") }
        }
        return python
    }

    /// Starts a process whose stdout is read line by line.
    func start(_ executable: String, _ args: [String]) throws -> (Process, FileHandle) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes.append(process)
        return (process, out.fileHandleForReading)
    }

    func readLines(_ fileHandle: FileHandle, count: Int, timeout: TimeInterval) -> [String] {
        var text = ""
        let deadline = Date(timeIntervalSinceNow: timeout)
        while text.filter({ $0 == "\n" }).count < count, Date() < deadline {
            let data = fileHandle.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        return text.split(separator: "\n").map(String.init)
    }

    func testBumbleCentralsDiscoverSubscribeAndDecodeLivePeripherals() throws {
        let python = try Self.bumblePython()
        let devices = ["hrm", "cuff", "meter", "oxi", "spot", "therm", "scale"]
        let ports = TestSupport.freePorts(2 * devices.count)
        let (_, ready) = try start(python, ["-c", BumbleControllers.script] + ports.map(String.init))
        XCTAssertEqual(readLines(ready, count: 1, timeout: 30).first, "ready")

        let dir = TestSupport.temporaryDirectory("live")
        let scenarioPath = TestSupport.write(Self.scenario, to: dir, name: "live.yaml")
        _ = try CaptureGenerator(scenario: try ScenarioLoader.load(path: scenarioPath)).generate(into: dir + "/offline")
        let expected = try String(contentsOfFile: dir + "/offline/readings.jsonl", encoding: .utf8).split(
            separator: "\n"
        )
        .map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }

        let (peripheral, out) = try start(
            TestSupport.vitalsimPath,
            [
                "peripheral", scenarioPath, "--speed", "max", "--capture", dir + "/live", "--linger", "3",
                "--subscribe-timeout", "60",
            ] + ports[0..<devices.count].flatMap { ["--hci", "tcp:127.0.0.1:\($0)"] }
        )
        let lines = readLines(out, count: devices.count, timeout: 30)
        var address: [String: String] = [:]
        for l in lines where l.hasPrefix("advertising ") {
            let fields = l.split(separator: " ")
            address[String(fields[1])] = String(fields[2])
        }
        XCTAssertEqual(address.count, devices.count, "\(lines)")

        let central = TestSupport.repositoryRoot + "/Tests/bumble/central.py"
        let jobs: [(String, [String])] = [
            ("hrm", ["31", "2A37,2A19"]), ("cuff", ["42", "2A35,2A36"]), ("meter", ["6", "2A18,2A34", "--racp"]),
            ("oxi", ["20", "2A5F"]), ("spot", ["3", "2A5E"]), ("therm", ["3", "2A1C"]), ("scale", ["3", "2A9D"]),
        ]
        var outputs: [String: FileHandle] = [:]
        for (i, (device, args)) in jobs.enumerated() {
            let (_, handle) = try start(
                python,
                [central, "tcp-client:127.0.0.1:\(ports[devices.count + i])", address[device] ?? "?"] + args
            )
            outputs[device] = handle
        }
        var results: [String: [String: Any]] = [:]
        for (device, handle) in outputs {
            let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            results[device] = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        }
        peripheral.waitUntilExit()
        XCTAssertEqual(peripheral.terminationStatus, 0)
        try checkReceived(results, expected: expected)
        try checkLiveCaptures(dir + "/live", devices: devices)
    }

    /// What each bumble central received equals readings.jsonl, and bumble's and VitalSim's decoders agree.
    func checkReceived(_ results: [String: [String: Any]], expected: [[String: Any]]) throws {
        func expectedHex(_ device: String) -> [String] {
            expected.filter { $0["device"] as? String == device && $0["kind"] as? String != "battery" }
                .flatMap { [$0["payloadHex"] as! String] + (($0["extraPayloadsHex"] as? [String]) ?? []) }
        }
        func received(_ device: String) -> [[String: Any]] { (results[device]?["received"] as? [[String: Any]]) ?? [] }

        // Battery: the level at time zero, notified.
        let battery = received("hrm").filter { $0["uuid"] as? String == "0x2A19" }
        XCTAssertEqual(
            battery.first?["hex"] as? String,
            expected.first { $0["device"] as? String == "hrm" && $0["kind"] as? String == "battery" }?["payloadHex"]
                as? String
        )
        // Heart rate: bumble's own HeartRateService decoder agrees with readings.jsonl.
        let hr = received("hrm").filter { $0["uuid"] as? String == "0x2A37" }
        XCTAssertEqual(results["hrm"]?["services"] as? [String], ["0x1800", "0x180D", "0x180F"])
        XCTAssertGreaterThanOrEqual(hr.count, 30)
        XCTAssertEqual(hr.count + battery.count, received("hrm").count)
        let hrExpected = expected.filter { $0["device"] as? String == "hrm" && $0["kind"] as? String == "heart-rate" }
        for (got, want) in zip(hr, hrExpected) {
            XCTAssertEqual(got["hex"] as? String, want["payloadHex"] as? String)
            XCTAssertEqual(got["heartRate"] as? Int, want["heartRate"] as? Int)
            XCTAssertEqual(got["rr"] as? [Int], want["rrIntervals"] as? [Int])
            XCTAssertEqual(got["contact"] as? Bool, true)
        }
        // Blood pressure: Intermediate Cuff Pressure notifications and BPM indications, in order.
        let cuff = received("cuff").map { $0["hex"] as! String }
        XCTAssertEqual(cuff, Array(expectedHex("cuff").prefix(cuff.count)))
        XCTAssertEqual(cuff.count, 42)
        XCTAssertEqual(
            received("cuff").filter { $0["uuid"] as? String == "0x2A35" }.count,
            2,
            "two indicated BPM readings, each confirmed"
        )
        // Glucose: three records with context, then RACP report-all sends them again and ends with Success.
        let meter = received("meter").map { $0["hex"] as! String }
        let records = Array(expectedHex("meter").prefix(6))
        XCTAssertEqual(meter, records + records + ["06000101"])

        // Pulse oximetry (continuous notify, spot-check indicate), temperature and weight (indicate): the bytes
        // bumble received equal readings.jsonl, and VitalSim's decoders read the values back.
        for device in ["oxi", "spot", "therm", "scale"] {
            let got = received(device).map { $0["hex"] as! String }
            XCTAssertFalse(got.isEmpty, device)
            XCTAssertEqual(got, Array(expectedHex(device).prefix(got.count)), device)
        }
        let values = expected.filter { $0["device"] as? String == "therm" && $0["kind"] as? String == "temperature" }
            .map {
                $0["temperature"] as! Double
            }
        let decoded = try received("therm").map {
            try TemperatureMeasurement.decode(Hex.decode($0["hex"] as! String)!).record.value.value
        }
        XCTAssertEqual(decoded, Array(values.prefix(decoded.count)))

    }

    /// The live captures decode in tshark without invalid usage or malformed frames.
    func checkLiveCaptures(_ folder: String, devices: [String]) throws {
        for device in devices {
            let path = folder + "/p1-\(device).live.btsnoop"
            let ran = try TestSupport.run("tshark", ["-r", path, "-Y", "btatt.invalid_usage || _ws.malformed"])
            XCTAssertEqual(ran.status, 0, ran.err)
            XCTAssertEqual(ran.out.trimmingCharacters(in: .whitespacesAndNewlines), "", device)
            let all = try TestSupport.run("tshark", ["-r", path, "-Y", "btatt.opcode == 0x10"])
            XCTAssertFalse(all.out.isEmpty, "\(device): the central's discovery should be in the live capture")
        }
    }

    /// A disconnect fault drops the link; the meter keeps measuring; after the central reconnects it fetches
    /// the stored records through RACP, and live readings continue.
    func testDisconnectFaultThenReconnectAndRACPBackfill() throws {
        let python = try Self.bumblePython()
        let ports = TestSupport.freePorts(2)
        let (_, ready) = try start(python, ["-c", BumbleControllers.script] + ports.map(String.init))
        XCTAssertEqual(readLines(ready, count: 1, timeout: 30).first, "ready")
        let dir = TestSupport.temporaryDirectory("live-disconnect")
        let path = TestSupport.write(
            """
            name: live-disconnect
            seed: 9
            duration: 30m
            patients:
              - id: "p1"
                profile: diabetic-cgm
                devices:
                  - {id: meter, type: glucometer, cadence: 5m}
            timeline:
              - {at: 12m, device: meter, fault: disconnect, duration: 10m}
            """,
            to: dir,
            name: "disconnect.yaml"
        )
        _ = try CaptureGenerator(scenario: try ScenarioLoader.load(path: path)).generate(into: dir + "/offline")
        let expected = try String(contentsOfFile: dir + "/offline/readings.jsonl", encoding: .utf8).split(
            separator: "\n"
        )
        .map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }.filter {
            $0["kind"] as? String == "glucose"
        }
        XCTAssertEqual(expected.map { $0["seq"] as? Int }, [0, 1, 2, 3, 4])
        XCTAssertEqual(
            expected.map { (($0["delivery"] as? [String]) ?? []).contains("backfill") },
            [false, false, true, true, false]
        )
        func pair(_ r: [String: Any]) -> [String] {
            [r["payloadHex"] as! String] + (r["extraPayloadsHex"] as! [String])
        }

        let (peripheral, out) = try start(
            TestSupport.vitalsimPath,
            ["peripheral", path, "--hci", "tcp:127.0.0.1:\(ports[0])", "--speed", "120", "--linger", "3"]
        )
        let line = readLines(out, count: 1, timeout: 30).first ?? ""
        let address = String(line.split(separator: " ").last ?? "")
        let central = try TestSupport.run(
            python,
            [
                TestSupport.repositoryRoot + "/Tests/bumble/central.py", "tcp-client:127.0.0.1:\(ports[1])", address,
                "14",
                "2A18,2A34", "--reconnect",
            ]
        )
        XCTAssertEqual(central.status, 0, central.err)
        peripheral.waitUntilExit()
        let summary = String(decoding: out.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(summary.contains("1 disconnect(s), 1 reconnection(s), 2 record(s) left for RACP"), summary)
        let result =
            try JSONSerialization.jsonObject(with: Data((central.out.split(separator: "\n").last ?? "").utf8))
            as! [String: Any]
        let got = (result["received"] as! [[String: Any]]).map { $0["hex"] as! String }
        let before = pair(expected[0]) + pair(expected[1])
        XCTAssertEqual(Array(got.prefix(4)), before, "live records before the link drops")
        let rest = Array(got.dropFirst(4))
        XCTAssertEqual(
            rest.filter { $0 != "06000101" && !pair(expected[4]).contains($0) },
            expected[0...3].flatMap(pair),
            "RACP report-all returns every stored record, including the two measured while disconnected"
        )
        XCTAssertTrue(rest.contains("06000101"), "RACP ends with Success")
        XCTAssertEqual(
            rest.filter { pair(expected[4]).contains($0) },
            pair(expected[4]),
            "live readings continue after the reconnection"
        )
    }

    /// VitalSim's central (scan, connect, discover, subscribe, confirm indications, decode) against a bumble
    /// peripheral.
    func testVitalSimCentralAgainstBumblePeripheral() throws {
        let python = try Self.bumblePython()
        let ports = TestSupport.freePorts(2)
        let (_, ready) = try start(python, ["-c", BumbleControllers.script] + ports.map(String.init))
        XCTAssertEqual(readLines(ready, count: 1, timeout: 30).first, "ready")
        let (_, peripheral) = try start(
            python,
            [TestSupport.repositoryRoot + "/Tests/bumble/peripheral.py", "tcp-client:127.0.0.1:\(ports[0])"]
        )
        XCTAssertEqual(readLines(peripheral, count: 1, timeout: 30).first, "advertising C0:DE:C0:DE:C0:DE")
        let capture = TestSupport.temporaryDirectory("central") + "/central.btsnoop"
        let ran = try TestSupport.run(
            TestSupport.vitalsimPath,
            ["central", "--hci", "tcp:127.0.0.1:\(ports[1])", "--count", "6", "--timeout", "30", "--capture", capture]
        )
        // The peripheral's own account: which side lost a value, should one be missing.
        let sent = readLines(peripheral, count: 1, timeout: 10).first ?? "nothing"
        XCTAssertEqual(sent, "sent 6", "the bumble peripheral's count")
        XCTAssertEqual(ran.status, 0, ran.err + " (peripheral: \(sent))")
        let values = try ran.out.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        XCTAssertEqual(
            values.map { $0["hex"] as? String },
            ["164852035c03", "0d2c01d204", "1e4a1e042404", "0648", "1e780050005d00e80705110a1e004800010400", "5f"]
        )
        guard values.count == 6 else { return }  // the difference is reported above; the fields below need all six
        let fields = values.map { $0["fields"] as? [String: Any] ?? [:] }
        XCTAssertEqual(fields[0]["heartRate"] as? Int, 72)
        XCTAssertEqual(fields[0]["rrIntervals"] as? [Int], [850, 860])
        XCTAssertEqual(fields[1]["heartRate"] as? Int, 300)
        XCTAssertEqual(fields[1]["energyExpended"] as? Int, 1234)
        XCTAssertEqual(fields[2]["energyExpended"] as? Int, 1054)
        XCTAssertEqual(fields[4]["systolic"] as? Int, 120)
        XCTAssertEqual(fields[4]["measurementStatusFlags"] as? [String], ["irregular-pulse"])
        XCTAssertEqual(fields[5]["batteryLevel"] as? Int, 95)
        // The central's own capture shows the indication confirmed and no invalid usage.
        let confirmations = try TestSupport.run("tshark", ["-r", capture, "-Y", "btatt.opcode == 0x1e"])
        XCTAssertEqual(confirmations.out.split(separator: "\n").count, 1, confirmations.out)
        XCTAssertEqual(
            try TestSupport.run("tshark", ["-r", capture, "-Y", "btatt.invalid_usage || _ws.malformed"]).out,
            ""
        )
    }

    func testATTServerAnswersDiscoveryAndErrors() {
        let server = ATTServer(database: GATTDatabase.forDevice(.heartRateStrap, name: "hrm"))
        XCTAssertEqual(
            server.handle([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]),
            [0x11, 6, 1, 0, 3, 0, 0x00, 0x18, 4, 0, 0x0B, 0, 0x0D, 0x18, 0x0C, 0, 0x0F, 0, 0x0F, 0x18]
        )
        XCTAssertEqual(
            server.handle([0x10, 0x10, 0x00, 0xFF, 0xFF, 0x00, 0x28]),
            [0x01, 0x10, 0x10, 0x00, 0x0A],
            "Attribute Not Found ends discovery"
        )
        XCTAssertEqual(
            server.handle([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28]),
            [0x01, 0x10, 0x01, 0x00, 0x10],
            "Unsupported Group Type"
        )
        XCTAssertEqual(server.handle([0x0A, 0x09, 0x00]), [0x0B, 1], "Body Sensor Location reads Chest")
        XCTAssertEqual(server.handle([0x0A, 0x06, 0x00]), [0x01, 0x0A, 0x06, 0x00, 0x02], "HRM value is not readable")
        XCTAssertEqual(server.handle([0x0A, 0x63, 0x00]), [0x01, 0x0A, 0x63, 0x00, 0x01], "Invalid Handle")
        XCTAssertEqual(
            server.handle([0x12, 0x07, 0x00, 0x02, 0x00]),
            [0x01, 0x12, 0x07, 0x00, 0xFD],
            "HRM cannot be indicated"
        )
        XCTAssertEqual(server.handle([0x12, 0x07, 0x00, 0x01, 0x00]), [0x13])
        XCTAssertTrue(server.subscribed(0x2A37, indicate: false))
        XCTAssertEqual(server.handle([0x12, 0x09, 0x00, 0x01]), [0x01, 0x12, 0x09, 0x00, 0x03], "Write Not Permitted")
        XCTAssertEqual(server.handle([0x02, 0xB9, 0x00]), [0x03, 0xF7, 0x00])
        XCTAssertEqual(server.mtu, 185)
        XCTAssertEqual(
            server.handle([0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x0D, 0x18]),
            [0x07, 0x04, 0x00, 0x0B, 0x00]
        )
        XCTAssertEqual(
            server.handle([0x08, 0x04, 0x00, 0x0B, 0x00, 0x03, 0x28]).map { Array($0.prefix(2)) },
            [0x09, 7]
        )
        XCTAssertEqual(server.handle([0x04, 0x07, 0x00, 0x07, 0x00]), [0x05, 0x01, 0x07, 0x00, 0x02, 0x29])
        XCTAssertEqual(
            server.handle([0x0C, 0x02, 0x00, 0x03, 0x00]),
            [0x0D, 0x00, 0x2A],
            "Read Blob of the Device Name declaration from offset 3"
        )
        XCTAssertEqual(server.handle([0x20]), [0x01, 0x20, 0x00, 0x00, 0x06], "Request Not Supported")
        XCTAssertNil(server.handle([0x52, 0x09, 0x00, 0x01]), "commands get no response")
        server.reset()
        XCTAssertFalse(server.anySubscription, "CCCDs are per connection")
    }

    func testRealAdapterFailsWithAClearMessageWithoutKernelBluetooth() {
        XCTAssertThrowsError(try HCITransports.open("hci0")) { e in
            let text = (e as? HCIError)?.description ?? ""
            XCTAssertTrue(text.contains("hci0"), text)
        }
        XCTAssertThrowsError(try HCITransports.open("00:1A:7D:DA:71:13")) { e in
            guard case .unsupported? = e as? HCIError else {
                return XCTFail("an adapter address opens the user channel: \(e)")
            }
        }
        XCTAssertThrowsError(try HCITransports.open("usb:0")) { e in XCTAssertEqual(e as? HCIError, .badSpec("usb:0")) }
        XCTAssertThrowsError(try HCITransports.open("tcp:127.0.0.1")) { e in
            XCTAssertEqual(e as? HCIError, .badSpec("tcp:127.0.0.1"))
        }
    }
}
