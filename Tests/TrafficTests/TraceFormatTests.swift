import Foundation
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// Each trace format read from the recordings of `scenarios/traces/field-recordings.yaml`: the
/// values and times a device sends are those of the file, in VitalSim's units.
final class TraceFormatTests: XCTestCase {
    let path = Fixtures.repositoryRoot + "/scenarios/traces/field-recordings.yaml"

    func device(_ scenario: Scenario, _ id: String) -> DeviceSpec {
        scenario.patients.flatMap(\.devices).first { $0.id == id }!
    }

    func testTheFieldRecordingsLoadWithTheirValuesAndTimes() throws {
        let scenario = try TracedScenarioLoader.load(path: path)
        let cgm = try XCTUnwrap(device(scenario, "cgm-rec-1").trace?.readings)
        XCTAssertEqual(
            cgm.count,
            168,
            "every EGV row of the Clarity export, no metadata, insulin, carbs or calibration"
        )
        XCTAssertEqual(cgm.first?.values, ["cgm": 150])
        XCTAssertEqual(cgm.map { $0.values["cgm"]! }.min(), 47)
        XCTAssertEqual(cgm[1].start - cgm[0].start, 300_000)
        XCTAssertEqual(cgm.first?.line, 12, "the first EGV row's line")
        let watch = try XCTUnwrap(device(scenario, "watch-rec-1").trace?.readings)
        XCTAssertEqual(watch.count, 168, "the watch's records only (source), not the iPhone's")
        XCTAssertEqual(watch.map { $0.values["heart-rate"]! }.max(), 112)
        let cuff = try XCTUnwrap(device(scenario, "cuff-rec-1").trace?.readings)
        XCTAssertEqual(cuff.map(\.values), [["systolic": 132, "diastolic": 84], ["systolic": 186, "diastolic": 104]])
        XCTAssertEqual(
            cuff.map(\.start),
            [600_000, 600_000 + 12 * 3_600_000],
            "placed by at: 10m, 12 h apart as recorded"
        )
        let oxi = try XCTUnwrap(device(scenario, "oxi-rec-2").trace?.readings)
        XCTAssertEqual(
            oxi.map(\.values),
            [
                ["spo2": 97, "pulse": 71], ["spo2": 95], ["spo2": 91, "pulse": 88], ["spo2": 89, "pulse": 94],
                ["spo2": 96, "pulse": 76],
            ]
        )
        XCTAssertEqual(oxi.first?.start, (10 * 60 + 2) * 60_000)
        let therm = try XCTUnwrap(device(scenario, "therm-rec-2").trace?.readings)
        XCTAssertEqual(therm.count, 3, "the therm device's temperature lines, not its battery or the scale's lines")
    }

    func testAppleHealthUnitsAreConverted() throws {
        let dir = Fixtures.temporaryDirectory("apple")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="lb" startDate="2024-11-07 08:00:00 -0500" value="158.2"/>
             <Record type="HKQuantityTypeIdentifierBloodGlucose" sourceName="Meter" unit="mmol&lt;180.1558800000541&gt;/L" startDate="2024-11-07 08:00:00 +0000" value="5.5"/>
             <Record type="HKQuantityTypeIdentifierOxygenSaturation" sourceName="Watch" unit="%" startDate="2024-11-07 08:00:00 +0000" value="0.94"/>
             <Record type="HKQuantityTypeIdentifierBodyTemperature" sourceName="Therm" unit="degF" startDate="2024-11-07 08:00:00 +0000" value="100.4"/>
            </HealthData>
            """
        try xml.write(toFile: dir + "/export.xml", atomically: true, encoding: .utf8)
        let scenario = try load(
            dir,
            devices: """
                      - {id: scale, type: weight-scale, trace: {file: export.xml}}
                      - {id: meter, type: glucometer, trace: {file: export.xml}}
                      - {id: oxi, type: pulse-oximeter, trace: {file: export.xml}}
                      - {id: therm, type: thermometer, trace: {file: export.xml}}
                """
        )
        XCTAssertEqual(
            try XCTUnwrap(device(scenario, "scale").trace?.readings?.first?.values["weight"]),
            158.2 * 0.453_592_37,
            accuracy: 1e-9
        )
        XCTAssertEqual(device(scenario, "meter").trace?.readings?.first?.values, ["glucose": 99])
        XCTAssertEqual(device(scenario, "oxi").trace?.readings?.first?.values, ["spo2": 94])
        XCTAssertEqual(
            try XCTUnwrap(device(scenario, "therm").trace?.readings?.first?.values["temperature"]),
            38.0,
            accuracy: 1e-9
        )
    }

    /// An export over libxml2's 10 MB chunk limit loads (XMLParser is fed a stream).
    func testAnExportOverTenMegabytesLoads() throws {
        let dir = Fixtures.temporaryDirectory("big-export")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var xml =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HealthData [\n<!ATTLIST HealthData locale CDATA #REQUIRED>\n]>\n"
        xml += "<HealthData locale=\"en\">\n"
        let padding = String(repeating: "x", count: 160)
        for i in 0..<60_000 {
            let stamp = CivilTime(unixMilliseconds: Int64(i) * 60_000).iso8601().replacingOccurrences(
                of: "T",
                with: " "
            )
            let date = stamp.replacingOccurrences(of: "Z", with: " +0000")
            xml +=
                " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" device=\"\(padding)\" unit=\"count/min\" "
            xml += "startDate=\"\(date)\" value=\"\(60 + i % 40)\"/>\n"
        }
        xml += "</HealthData>\n"
        XCTAssertGreaterThan(xml.utf8.count, 14_000_000, "over 13.7 MB, seen refused before the fix")
        try xml.write(toFile: dir + "/export.xml", atomically: true, encoding: .utf8)
        let scenario = try load(
            dir,
            devices: "          - {id: w, type: phone-bridge, trace: {file: export.xml}}",
            duration: "42d"
        )
        XCTAssertEqual(device(scenario, "w").trace?.readings?.count, 60_000)
    }

    /// A scenario in `dir` with one adult patient holding `devices` (YAML list items).
    func load(_ dir: String, devices: String, duration: String = "1d") throws -> Scenario {
        let yaml = """
            name: t
            duration: \(duration)
            start: 2024-11-07T00:00:00Z
            patients:
              - id: p
                profile: adult
                devices:
            \(devices)
            """
        try yaml.write(toFile: dir + "/t.yaml", atomically: true, encoding: .utf8)
        return try TracedScenarioLoader.load(path: dir + "/t.yaml")
    }
}
