import Generation
import Traffic
import VitalSimCore
import XCTest

/// Scripted readings (`reading:` in the timeline) and `noise: off`: exact values at exact times,
/// the device's own readings replaced inside a script's window and unchanged outside it.
final class ScriptedReadingTests: XCTestCase {
    let minute: Int64 = 60_000

    func readings(_ yaml: String) throws -> [Reading] {
        var run = ScenarioRun(scenario: try ScenarioLoader.parse(yaml, file: "s.yaml"))
        var out: [Reading] = []
        while let (reading, _) = run.next() { out.append(reading) }
        return out
    }

    func scenario(_ timeline: String, noise: String = "") -> String {
        """
        name: s
        seed: 4
        duration: 3h
        start: 2024-11-07T08:00:00Z
        patients:
          - id: p
            profile: diabetic-cgm
        \(noise)
            devices:
              - {id: cgm, type: cgm}
              - {id: cuff, type: bp-cuff, cadence: 30m}
        timeline:
        \(timeline)
        """
    }

    func testScriptsReplaceTheDeviceInTheirWindowOnly() throws {
        let plain = try readings(scenario("  []"))
        let scripted = try readings(
            scenario(
                """
                  - {at: 1h, device: cgm, reading: {cgm: 80}, to: {cgm: 50}, count: 7, every: 5m}
                  - {at: 30m, device: cuff, reading: {systolic: 180, diastolic: 120}}
                """
            )
        )
        let step = minute
        let window = scripted.filter { $0.kind == .cgm && (60 * step...90 * step).contains($0.measuredAt) }
        XCTAssertEqual(
            window.map(\.measurement.primaryValue),
            [80, 75, 70, 65, 60, 55, 50],
            "the ramp, exactly, at 5-minute steps"
        )
        XCTAssertEqual(window.map(\.measuredAt), (0...6).map { 60 * step + Int64($0) * 5 * step })
        if case let .cgm(_, trend, _, _, _) = window[0].measurement {
            XCTAssertEqual(trend, -1.0, "30 mg/dL over 30 min")
        }
        // Outside the windows (the CGM's 60–90 min, the cuff's burst at 30 min), every reading is
        // the one the unscripted scenario has.
        func outside(_ rs: [Reading]) -> [VitalSimCore.Measurement] {
            rs.filter { r in
                if r.deviceID == "cgm", r.kind == .cgm { return !(60 * step...90 * step).contains(r.measuredAt) }
                if r.deviceID == "cuff", r.kind != .battery { return !(30 * step...32 * step).contains(r.measuredAt) }
                return true
            }.map(\.measurement)
        }
        XCTAssertEqual(outside(plain), outside(scripted))
        let bp = scripted.filter { $0.kind == .bloodPressure && (30 * step...32 * step).contains($0.measuredAt) }
        XCTAssertEqual(
            bp.map(\.measuredAt),
            [30 * step],
            "the script's one reading replaces the cuff's burst at 30 min"
        )
        XCTAssertEqual(
            bp.first?.measurement,
            .bloodPressure(systolic: 180, diastolic: 120, meanArterial: 140, pulse: 70, status: 0)
        )
    }

    func testNoiseOffReportsThePhysiologyExactly() throws {
        let quiet = try readings(scenario("  []", noise: "    noise: off"))
        let cgm = quiet.filter { $0.kind == .cgm }
        XCTAssertFalse(cgm.isEmpty)
        for r in quiet where r.kind == .bloodPressure {
            XCTAssertEqual(
                r.measurement.primaryValue,
                r.truth.rounded(),
                accuracy: 0.5 + 1e-9,
                "systolic without error"
            )
        }
        let noisy = try readings(scenario("  []"))
        XCTAssertNotEqual(noisy.filter { $0.kind == .cgm }.map(\.measurement), cgm.map(\.measurement))
        XCTAssertEqual(noisy.count, quiet.count, "the same readings, at the same times")
    }
}
