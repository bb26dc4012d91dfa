import Foundation
import XCTest

/// The `vitalsim` binary as a user runs it: exit codes, messages, JSON and hex output.
final class CLITests: XCTestCase {
    let bin = TestSupport.vitalsimPath

    func testValidateReportsFileLineColumnAndExitsTwo() throws {
        let dir = TestSupport.temporaryDirectory("cli")
        let path = TestSupport.write(
            """
            name: broken
            duration: 1h
            patients:
              - id: "501"
                profile: adult
                devices:
                  - id: hrm
                    type: hr-strap
            """,
            to: dir,
            name: "broken.yaml"
        )
        let ran = try TestSupport.run(bin, ["validate", path])
        XCTAssertEqual(ran.status, 2)
        XCTAssertTrue(
            ran.err.contains("\(path):8:15: error: patients[0].devices[0].type: unknown device type 'hr-strap'"),
            ran.err
        )
        XCTAssertTrue(ran.err.contains("valid: heart-rate-strap"), ran.err)
        let ok = try TestSupport.run(bin, ["validate", TestSupport.repositoryRoot + "/scenarios/core"])
        XCTAssertEqual(ok.status, 0, ok.err)
        XCTAssertEqual(ok.out.split(separator: "\n").count, 25)
    }

    /// In CI a missing golden file is never written (exit 2, nothing created), and a run without one
    /// is a usage error naming `vitalsim record`: the command's exit codes for what
    /// `LiveHarnessTests.InProcessGoldenTests` checks in-process.
    func testMissingGoldenFilesAreUsageErrorsAndCINeverRecords() throws {
        let dir = TestSupport.temporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"
        let missing = try TestSupport.vitalsim(
            ["run", scenario, "--golden-dir", dir + "/nowhere"],
            in: dir,
            environment: ["CI": "true"]
        )
        XCTAssertEqual(missing.status, 2, missing.err)
        XCTAssertTrue(missing.err.contains("no golden file") && missing.err.contains("vitalsim record"), missing.err)
        let refused = try TestSupport.vitalsim(
            ["record", scenario, "--golden-dir", dir + "/nowhere"],
            in: dir,
            environment: ["CI": "true"]
        )
        XCTAssertEqual(refused.status, 2, refused.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/nowhere"), "CI never writes golden files")
    }

    func testGenerateRejectsBadScenarioWithExitTwo() throws {
        let dir = TestSupport.temporaryDirectory("cli")
        let path = TestSupport.write("name: x\nduration: -1h\npatients: []\n", to: dir, name: "x.yaml")
        let ran = try TestSupport.run(bin, ["generate", path, "--out", dir + "/out"])
        XCTAssertEqual(ran.status, 2)
        XCTAssertTrue(ran.err.contains("x.yaml:2:11: error: duration"), ran.err)
    }

    func testDecodePrintsJSONAndEncodeRoundTrips() throws {
        let dumped = try TestSupport.run(bin, ["decode", "0x2A37", "16 48 52 03 5C 03"])
        XCTAssertEqual(dumped.status, 0, dumped.err)
        let json = try JSONSerialization.jsonObject(with: Data(dumped.out.utf8)) as! [String: Any]
        XCTAssertEqual(json["heartRate"] as? Int, 72)
        XCTAssertEqual(json["rrIntervals"] as? [Int], [850, 860])
        XCTAssertEqual(json["sensorContact"] as? String, "detected")
        let encoded = try TestSupport.run(
            bin,
            [
                "encode", "heart-rate-measurement", "--heart-rate", "72", "--sensor-contact", "detected",
                "--rr-intervals", "850,860",
            ]
        )
        XCTAssertEqual(encoded.status, 0, encoded.err)
        XCTAssertEqual(encoded.out.trimmingCharacters(in: .whitespacesAndNewlines), "164852035c03")
        let generated = try TestSupport.run(
            bin,
            [
                "encode", "glucose-measurement", "--sequence-number", "2", "--base-time", "2024-05-17T10:30:00",
                "--time-offset", "-5", "--concentration", "0.0055", "--unit", "mol/L", "--type", "2",
                "--sample-location", "1",
                "--sensor-status", "1", "--context-follows", "true",
            ]
        )
        XCTAssertEqual(
            generated.out.trimmingCharacters(in: .whitespacesAndNewlines),
            "1f0200e807051 10a1e00fbff37c0120100".replacingOccurrences(of: " ", with: "")
        )
    }

    func testDecodeErrorsNameOffsetAndExitTwo() throws {
        let ran = try TestSupport.run(bin, ["decode", "cgm-measurement", "0C035F000A00F1FF620086CF"])
        XCTAssertEqual(ran.status, 2)
        XCTAssertTrue(ran.err.contains("cgm-measurement: E2E-CRC mismatch at byte 10"), ran.err)
        let unknown = try TestSupport.run(bin, ["decode", "0x2A99", "00"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.err.contains("unknown characteristic"), unknown.err)
        let bad = try TestSupport.run(bin, ["encode", "0x2A37", "--heart-rate", "seventy"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.err.contains("heartRate"), bad.err)
    }

    func testGenerateThenStats() throws {
        let dir = TestSupport.temporaryDirectory("cli")
        let generated = try TestSupport.run(
            bin,
            ["generate", TestSupport.repositoryRoot + "/scenarios/core/t1d-nocturnal-hypoglycemia.yaml", "--out", dir]
        )
        XCTAssertEqual(generated.status, 0, generated.err)
        let stats = try TestSupport.run(bin, ["stats", dir, "--json"])
        XCTAssertEqual(stats.status, 0, stats.err)
        XCTAssertTrue(
            stats.out.contains("\"level2Episodes\": 1") || stats.out.contains("\"level2Episodes\": 2"),
            stats.out
        )
        let traced = try TestSupport.run(bin, ["stats", dir])
        XCTAssertTrue(traced.out.contains("MARD vs plasma"), traced.out)
    }

    /// `stats` judges each device by its patient's profile: an interstage infant's heart rate by no
    /// adult rule or HRV norm and its SpO2 by the 75–90 % targets, a COPD patient's SpO2 by 88 %.
    func testStatsJudgesEachPatientByItsProfile() throws {
        let dir = TestSupport.temporaryDirectory("cli-stats")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let yaml = """
            name: stats-profiles
            seed: 3
            duration: 2h
            start: 2024-11-07T10:00:00Z
            patients:
              - id: baby
                profile: chd-infant
                devices:
                  - {id: baby-hr, type: heart-rate-strap}
                  - {id: baby-ox, type: pulse-oximeter, mode: continuous}
              - id: copd
                profile: copd
                devices:
                  - {id: copd-ox, type: pulse-oximeter, mode: continuous}
            """
        try yaml.write(toFile: dir + "/s.yaml", atomically: true, encoding: .utf8)
        let generated = try TestSupport.run(bin, ["generate", dir + "/s.yaml", "--out", dir + "/out"])
        XCTAssertEqual(generated.status, 0, generated.err)
        let text = try TestSupport.run(bin, ["stats", dir + "/out"])
        XCTAssertEqual(text.status, 0, text.err)
        XCTAssertTrue(text.out.contains("no infant heart-rate rule (the adult > 100 / < 50 do not apply)"), text.out)
        XCTAssertTrue(
            text.out.contains("norms: none applied (short-term adult norms do not hold for infants)"),
            text.out
        )
        XCTAssertTrue(text.out.contains("interstage infant: readings < 75 %"), text.out)
        XCTAssertTrue(text.out.contains("(COPD target 88–92 %)"), text.out)
        XCTAssertFalse(
            text.out.contains("episodes: HR > 100"),
            "no adult heart-rate episodes for the infant: " + text.out
        )
        let json = try TestSupport.run(bin, ["stats", dir + "/out", "--json"])
        XCTAssertTrue(json.out.contains("\"below88\""), json.out)
        XCTAssertTrue(json.out.contains("\"below75\""), json.out)
    }
}
