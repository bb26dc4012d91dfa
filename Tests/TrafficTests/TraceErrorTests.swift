import Foundation
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// A bad recording is an error naming the trace file, line and field; never a crash, never a
/// reading silently dropped or changed.
final class TraceErrorTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = Fixtures.temporaryDirectory("trace-errors") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// The problems of loading a scenario whose one device traces `file` (written with `text`).
    func problems(
        _ text: String,
        file: String = "t.csv",
        device: String = "{id: d, type: thermometer, trace: {file: t.csv, format: csv}}",
        timeline: String = ""
    )
        throws -> String
    {
        try text.write(toFile: dir + "/" + file, atomically: true, encoding: .utf8)
        let yaml = """
            name: t
            duration: 1d
            patients:
              - id: p
                profile: adult
                devices:
                  - \(device)
            """ + timeline
        try yaml.write(toFile: dir + "/t.yaml", atomically: true, encoding: .utf8)
        do {
            _ = try TracedScenarioLoader.load(path: dir + "/t.yaml")
            return ""
        } catch { return error.description }
    }

    func testCSVProblemsNameTheLineAndColumn() throws {
        XCTAssertTrue(
            try problems("time,temperature,colour\n0s,37.0,red\n").contains(
                "t.csv:1:1: error: colour: not a field of a thermometer"
            )
        )
        XCTAssertTrue(
            try problems("time,temperature\n0s,37.0\n10m,warm\n").contains(
                "t.csv:3:1: error: temperature: 'warm' is not a number"
            )
        )
        XCTAssertTrue(
            try problems("time,temperature\n0s,37.0\n2024-11-07T00:10:00Z,37.1\n").contains(
                "t.csv:3:1: error: time: mixes"
            )
        )
        XCTAssertTrue(
            try problems("time,temperature\n0s,37.0\n2d,37.1\n").contains(
                "t.csv:3:1: error: time: this reading falls 2d into the scenario"
            )
        )
        XCTAssertTrue(
            try problems("time,temperature\n0s,37.0\n0s,37.4\n").contains(
                "t.csv:3:1: error: time: a second reading at the same time as line 2"
            )
        )
        XCTAssertTrue(
            try problems("time,temperature\n0s,52.0\n").contains(
                "t.csv:2:1: error: temperature: 52.0 is outside 25.0...45.0"
            )
        )
        XCTAssertTrue(
            try problems(
                "time,pulse\n0s,70\n",
                device: "{id: d, type: pulse-oximeter, trace: {file: t.csv, format: csv}}"
            ).contains(
                "no 'spo2' column"
            )
        )
        XCTAssertEqual(
            try problems("time,temperature\n0s,37.0\n0s,37.0\n10m,37.2\n"),
            "",
            "a repeated identical row is one reading"
        )
    }

    func testTheScenarioNamesATraceItCannotRead() throws {
        let text = try problems("", device: "{id: d, type: thermometer, trace: {file: missing.csv, format: csv}}")
        XCTAssertTrue(text.contains("t.yaml:7:") && text.contains("trace.file: cannot read the trace file"), text)
        let empty = try problems("time,temperature\n")
        XCTAssertTrue(empty.contains("holds no readings a thermometer sends"), empty)
        let format = try problems("x", device: "{id: d, type: thermometer, trace: {file: t.csv}}")
        XCTAssertTrue(format.contains("say which format 't.csv' is"), format)
        let diary = try problems("x", device: "{id: d, type: symptom-diary, trace: {file: t.csv, format: csv}}")
        XCTAssertTrue(diary.contains("a symptom-diary's readings cannot come from a trace"), diary)
    }

    func testClarityAndAppleHealthProblems() throws {
        let clarity =
            "Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Glucose Value (mg/dL)\n1,2024-11-07T08:00:00,EGV,Low\n2,2024-11-07T08:05:00,EGV,?\n"
        let cgm = "{id: d, type: cgm, trace: {file: t.csv, format: dexcom-clarity}}"
        XCTAssertTrue(
            try problems(clarity, device: cgm).contains(
                "t.csv:3:1: error: Glucose Value (mg/dL): '?' is not a glucose value"
            )
        )
        XCTAssertTrue(
            try problems(clarity, device: "{id: d, type: thermometer, trace: {file: t.csv, format: dexcom-clarity}}")
                .contains(
                    "trace it on a cgm or a glucometer"
                )
        )
        let xml =
            "<HealthData>\n<Record type=\"HKQuantityTypeIdentifierBodyTemperature\" unit=\"K\" startDate=\"2024-11-07 08:00:00 +0000\" value=\"310\"/>\n</HealthData>\n"
        let therm = "{id: d, type: thermometer, trace: {file: t.xml}}"
        XCTAssertTrue(
            try problems(xml, file: "t.xml", device: therm).contains(
                "t.xml:2:1: error: unit: unit 'K' is not one VitalSim converts"
            )
        )
        let broken = try problems("<HealthData>\n<Record type=\"x\"\n", file: "t.xml", device: therm)
        XCTAssertTrue(broken.contains("t.xml:") && broken.contains("not well-formed XML"), broken)
        let lonely =
            "<HealthData>\n<Record type=\"HKQuantityTypeIdentifierBloodPressureSystolic\" unit=\"mmHg\" startDate=\"2024-11-07 08:00:00 +0000\" value=\"120\"/>\n</HealthData>\n"
        XCTAssertTrue(
            try problems(lonely, file: "t.xml", device: "{id: d, type: bp-cuff, trace: {file: t.xml}}").contains(
                "needs a systolic and a diastolic record"
            )
        )
    }

    func testATracedDeviceCannotAlsoBeScripted() throws {
        let text = try problems(
            "time,temperature\n0s,37.0\n",
            timeline: "\ntimeline:\n  - {at: 1h, device: d, reading: {temperature: 38.5}}\n"
        )
        XCTAssertTrue(
            text.contains("t.yaml:9:") && text.contains("device d sends its trace; it cannot also be scripted"),
            text
        )
    }

    func testABrokenCaptureIsNamed() throws {
        try Data([0x62, 0x74, 0x73]).write(to: URL(fileURLWithPath: dir + "/c.btsnoop"))
        let text = try problems("", device: "{id: d, type: heart-rate-strap, trace: {file: c.btsnoop}}")
        XCTAssertTrue(text.contains("c.btsnoop:0:0: error: ") && text.contains("missing btsnoop magic"), text)
    }
}
