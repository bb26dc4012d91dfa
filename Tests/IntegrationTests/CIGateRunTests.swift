import Foundation
import Judge
import XCTest

/// The CI gate end to end, as a team uses it: `vitalsim run` against a backend that implements only
/// some rules (the embedded reference SUT with rules switched off), through a profile whose
/// conformance statement says which, and a waivers file for a known defect. It passes; the same
/// backend with one new defect fails on exactly that check; two runs give the same JUnit names;
/// the failures of a `--baseline` verdict are known ones.
final class CIGateRunTests: XCTestCase {
    var directory = ""
    let scenario = TestSupport.repositoryRoot + "/scenarios/boundaries/adult-thresholds.yaml"
    var golden: String { TestSupport.repositoryRoot + "/golden" }

    override func setUp() { directory = TestSupport.temporaryDirectory("ci-gate") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// The backend: no SpO2 or glucose-meter rule at all, and a fever rule that never fires (its
    /// known defect); `faults` adds more.
    func run(
        _ faults: [String],
        _ extra: [String],
        environment: [String: String?] = [:]
    ) throws -> (status: Int32, out: String, err: String) {
        let profile = TestSupport.write(
            """
            name: partial-rules
            conformance:
              rules: [hr.tachycardia, hr.bradycardia, bp.hypertensive-crisis, temp.fever]
            """,
            to: directory,
            name: "partial.yaml"
        )
        let waivers = TestSupport.write(
            """
            waivers:
              - check: "adult-thresholds: alert temp.fever patient fever"
                reason: the fever rule never fires
                ticket: RPM-7
                expires: 2099-12-31
              - check: "adult-thresholds: alert temp.fever patient fever #2"
                reason: the fever rule never fires
                ticket: RPM-7
            """,
            to: directory,
            name: "waivers.yaml"
        )
        let off = ["spo2.low", "glucose.meter-level2-low", "temp.fever"] + faults
        return try TestSupport.vitalsim(
            ["run", scenario, "--golden-dir", golden, "--sut", profile, "--waivers", waivers, "--alert-wait", "2"]
                + off.flatMap { ["--sut-fault", "miss-rule=\($0)"] } + extra,
            in: directory,
            environment: environment.merging(["CI": "true"]) { _, b in b }
        )
    }

    func testCases(_ junit: String) throws -> [String] {
        let xml = try String(contentsOfFile: directory + "/" + junit, encoding: .utf8)
        return xml.split(separator: "\n").filter { $0.contains("<testcase ") }.map(String.init)
    }

    /// The ids of the checks that fail the run, from a `--json` verdict.
    func failing(_ json: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + json))
        let top = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let scenarios = try XCTUnwrap(top["scenarios"] as? [[String: Any]])
        return scenarios.flatMap { ($0["checks"] as? [[String: Any]]) ?? [] }.filter { $0["passed"] as? Bool == false }
            .compactMap { $0["id"] as? String }
    }

    func testAPartialBackendPassesItsGateAndANewDefectFailsOnExactlyThatCheck() throws {
        let first = try run([], ["--junit", directory + "/first.xml", "--json", directory + "/first.json"])
        XCTAssertEqual(first.status, 0, first.out + first.err)
        XCTAssertTrue(first.out.contains("waived missed alert temp.fever patient fever"), first.out)
        XCTAssertTrue(first.out.contains("2 check(s) not applicable"), first.out)
        XCTAssertTrue(first.out.contains("findings excused: 2 waived, 2 not-applicable"), first.out)
        // What was tested, in the console and as JUnit properties.
        let sha = try XCTUnwrap(RunDescription.sha256(ofFile: directory + "/partial.yaml"))
        XCTAssertTrue(
            first.out.contains(
                "tested: sut: partial-rules; profile: \(directory)/partial.yaml; profile sha256: \(sha)"
            ),
            first.out
        )
        let junit = try String(contentsOfFile: directory + "/first.xml", encoding: .utf8)
        XCTAssertTrue(junit.contains("<property name=\"vitalsim\" value=\"0."), junit)
        XCTAssertTrue(junit.contains("<property name=\"gate\" value=\"waivers \(directory)/waivers.yaml\"/>"), junit)
        let second = try run([], ["--junit", directory + "/second.xml"])
        XCTAssertEqual(second.status, 0, second.out + second.err)
        XCTAssertEqual(
            try testCases("first.xml"),
            try testCases("second.xml"),
            "the same JUnit test cases run after run"
        )

        // In a GitHub Actions job: the job summary and an annotation on the golden file's line of the
        // expectation the new defect broke; the waived findings are warnings.
        let summary = directory + "/step-summary.md"
        let broken = try run(
            ["hr.bradycardia"],
            ["--json", directory + "/broken.json", "--ctrf", directory + "/broken.ctrf.json"],
            environment: [
                "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary,
                "GITHUB_WORKSPACE": TestSupport.repositoryRoot,
            ]
        )
        XCTAssertEqual(broken.status, 1, broken.out + broken.err)
        XCTAssertEqual(try failing("broken.json"), ["adult-thresholds: alert hr.bradycardia patient brady"])
        let goldenLines = try String(contentsOfFile: golden + "/adult-thresholds.golden.yaml", encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let line = try XCTUnwrap(
            goldenLines.firstIndex { $0.contains("patient: \"brady\"") && $0.contains("hr.bradycardia") }
        )
        let annotations = broken.out.split(separator: "\n").filter { $0.hasPrefix("::") }
        XCTAssertEqual(annotations.filter { $0.hasPrefix("::error") }.count, 1, broken.out)
        XCTAssertTrue(
            annotations[0].hasPrefix(
                "::error file=golden/adult-thresholds.golden.yaml,line=\(line + 1),"
                    + "title=VitalSim SHALL missed%3A adult-thresholds::alert hr.bradycardia patient brady: "
            ),
            String(annotations[0])
        )
        XCTAssertEqual(annotations.filter { $0.hasPrefix("::warning") && $0.contains("waived") }.count, 2, broken.out)
        let markdown = try String(contentsOfFile: summary, encoding: .utf8)
        XCTAssertTrue(markdown.hasPrefix("## VitalSim: ❌ FAIL — 0/1 scenario(s) passed"), markdown)
        XCTAssertTrue(
            markdown.contains(
                "| adult-thresholds | alert hr.bradycardia patient brady | **SHALL** failed | missed "
                    + "| `golden/adult-thresholds.golden.yaml:\(line + 1)` |"
            ),
            markdown
        )
        XCTAssertTrue(markdown.contains("| adult-thresholds | reading-to-ack |"), markdown)
        XCTAssertTrue(try CTRFSchema.validate(directory + "/broken.ctrf.json").isEmpty)

        // Accepted as it is now: the broken run as the baseline lets it pass, and nothing new fails.
        let known = try run(["hr.bradycardia"], ["--baseline", directory + "/broken.json"])
        XCTAssertEqual(known.status, 0, known.out + known.err)
        XCTAssertTrue(known.out.contains("known missed alert hr.bradycardia patient brady"), known.out)
    }

    /// A backend that refuses corrupt readings as the VitalEdge SDS words it ("400 Bad Request: Invalid
    /// data", naming no field): it passes, with a warning per refusal; `--strict` fails it on
    /// exactly those checks.
    func testABackendFollowingSeed001LiterallyPassesAndWarns() throws {
        let corrupt = TestSupport.repositoryRoot + "/scenarios/core/corrupt-and-duplicate-payloads.yaml"
        func run(_ extra: [String]) throws -> (status: Int32, out: String, err: String) {
            try TestSupport.vitalsim(
                ["run", corrupt, "--golden-dir", golden, "--sut-fault", "bare-refusals"] + extra,
                in: directory,
                environment: ["CI": "true"]
            )
        }
        let lenient = try run(["--json", directory + "/lenient.json"])
        XCTAssertEqual(lenient.status, 0, lenient.out + lenient.err)
        XCTAssertTrue(lenient.out.contains("warning validation-mismatch rejects "), lenient.out)
        XCTAssertTrue(lenient.out.contains(" naming its field: the refusal names no field, expected "), lenient.out)
        let strict = try run(["--strict", "--json", directory + "/strict.json"])
        XCTAssertEqual(strict.status, 1, strict.out + strict.err)
        let failed = try failing("strict.json")
        XCTAssertFalse(failed.isEmpty)
        XCTAssertTrue(failed.allSatisfy { $0.hasSuffix(" naming its field") }, "\(failed)")
    }
}
