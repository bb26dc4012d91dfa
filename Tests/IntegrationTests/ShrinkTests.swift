import Foundation
import VitalSimCore
import XCTest

/// `vitalsim shrink` against the embedded reference SUT in a faulty mode: a failing scenario
/// shrinks to the few parts that still fail the same check, and the written scenario and golden
/// file fail that check again when run.
final class ShrinkTests: XCTestCase {
    var directory = ""
    let root = TestSupport.repositoryRoot

    override func setUpWithError() throws { directory = TestSupport.temporaryDirectory("shrink") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testTheBoundarySuiteShrinksToTheTwoRunsAtTheLevelTwoBoundary() throws {
        let out = directory + "/shrunk"
        let r = try TestSupport.vitalsim(
            [
                "shrink", root + "/scenarios/boundaries/cgm-thresholds.yaml", "--golden-dir", root + "/golden",
                "--sut-fault", "off-by-one",
                "--alert-wait", "2", "--check", "level2-low", "--output", out,
            ],
            in: directory
        )
        XCTAssertEqual(r.status, 0, r.out + r.err)
        XCTAssertTrue(
            r.err.contains("shrinking cgm-thresholds for: early alert glucose.level2-low patient level2"),
            r.err
        )
        XCTAssertTrue(r.out.contains("confirmed: vitalsim run"), r.out)
        let shrunk = try ScenarioLoader.load(path: out + "/cgm-thresholds-min.yaml")
        XCTAssertEqual(shrunk.patients.map(\.id), ["level2"])
        XCTAssertEqual(shrunk.patients[0].devices.count, 1)
        XCTAssertLessThanOrEqual(shrunk.timeline.count, 3, "from 24 timeline entries")
        XCTAssertLessThan(shrunk.duration, .hours(6))
        let golden = try String(contentsOfFile: out + "/cgm-thresholds-min.golden.yaml", encoding: .utf8)
        XCTAssertTrue(golden.contains("rule: \"glucose.level2-low\""), golden)
        // The written pair is an ordinary scenario: the reference SUT passes it, the faulty one fails it.
        let good = try TestSupport.vitalsim(
            ["run", out + "/cgm-thresholds-min.yaml", "--golden-dir", out],
            in: directory
        )
        XCTAssertEqual(good.status, 0, good.out + good.err)
    }

    func testACoreScenarioShrinksToTheCorruptionTheSUTAccepts() throws {
        let out = directory + "/shrunk"
        let r = try TestSupport.vitalsim(
            [
                "shrink", root + "/scenarios/core/corrupt-and-duplicate-payloads.yaml", "--golden-dir",
                root + "/golden", "--sut-fault",
                "accept-invalid", "--alert-wait", "2", "--output", out,
            ],
            in: directory
        )
        XCTAssertEqual(r.status, 0, r.out + r.err)
        XCTAssertTrue(r.err.contains("for: validation-mismatch rejects 511/"), r.err)
        let shrunk = try ScenarioLoader.load(path: out + "/corrupt-and-duplicate-payloads-min.yaml")
        XCTAssertEqual(shrunk.patients[0].devices.count, 1, "from 3 devices")
        XCTAssertEqual(shrunk.timeline.count, 1, "from 6 timeline entries: the one corruption")
        XCTAssertTrue(r.out.contains("3 → 1 device(s), 6 → 1 timeline entries"), r.out)
    }

    func testAPassingScenarioHasNothingToShrinkAndAnUnknownCheckIsNamed() throws {
        let path = root + "/scenarios/core/adult-tachycardia-episode.yaml"
        let pass = try TestSupport.vitalsim(
            ["shrink", path, "--golden-dir", root + "/golden", "--output", directory],
            in: directory
        )
        XCTAssertEqual(pass.status, 0, pass.out + pass.err)
        XCTAssertTrue(pass.out.contains("every check passes; nothing to shrink"), pass.out)
        let args = [
            "shrink", path, "--golden-dir", root + "/golden", "--sut-fault", "wrong-severity", "--check",
            "no-such-check",
        ]
        let unknown = try TestSupport.vitalsim(args + ["--output", directory], in: directory)
        XCTAssertEqual(unknown.status, 2, unknown.out + unknown.err)
        XCTAssertTrue(unknown.err.contains("no failed check matches --check 'no-such-check'"), unknown.err)
        XCTAssertTrue(unknown.err.contains("wrong-severity alert hr.tachycardia patient"), unknown.err)
    }
}
