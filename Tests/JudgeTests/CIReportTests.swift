import Foundation
import Judge
import XCTest

/// The CI reports: where each check's expectation is written, GitHub annotations, the Markdown job
/// summary, GitLab's code quality report and CTRF (validated against the CTRF schema by
/// `IntegrationTests.CIGateRunTests`).
final class CIReportTests: XCTestCase {
    let golden = """
        scenario: "s"
        seed: 1
        trafficDigest: "sha256:00"
        alerts:
          - {patient: "5", rule: "hr.tachycardia", severity: high, from: "2024-11-07T10:00:00.000Z", to: "2024-11-07T10:05:00.000Z"}
          - {patient: "50", rule: "hr.tachycardia", severity: high, from: "2024-11-07T10:00:00.000Z", to: "2024-11-07T10:05:00.000Z"}
          - {patient: "5", rule: "hr.tachycardia", severity: high, from: "2024-11-07T11:00:00.000Z", to: "2024-11-07T11:05:00.000Z"}
        validation:
          - {reading: "5/hr-5/3", status: 400, field: "unit"}
        budgets:
          reading-to-ack: {p99: 1000ms}
          reading-to-alert: {p99: 1000ms, max: 2000ms}
        """
    let scenario = """
        name: s
        patients:
          - id: "5"
            profile: adult
          - id: "50"
            profile: adult
        """

    var locator: CheckLocator {
        CheckLocator(
            goldenPath: "golden/s.golden.yaml",
            goldenText: golden,
            scenarioPath: "s.yaml",
            scenarioText: scenario
        )
    }

    func check(_ kind: CheckKind, _ name: String, _ finding: Finding? = nil) -> Check {
        Check(kind: kind, name: name, rule: nil, finding: finding, detail: "d").stamped()
    }

    func testEachCheckIsLocatedOnTheLineOfItsExpectation() {
        func line(_ kind: CheckKind, _ name: String) -> String {
            let at = locator.location(of: check(kind, name))
            return "\(at.file):\(at.line)"
        }
        XCTAssertEqual(line(.alert, "alert hr.tachycardia patient 5"), "golden/s.golden.yaml:5")
        XCTAssertEqual(line(.alert, "alert hr.tachycardia patient 50"), "golden/s.golden.yaml:6")
        XCTAssertEqual(line(.alert, "alert hr.tachycardia patient 5 #2"), "golden/s.golden.yaml:7")
        XCTAssertEqual(
            line(.recipients, "escalates hr.tachycardia patient 5 #2 to bob after 60s"),
            "golden/s.golden.yaml:7"
        )
        XCTAssertEqual(line(.recipients, "notifies ann of hr.tachycardia patient 50"), "golden/s.golden.yaml:6")
        XCTAssertEqual(line(.evidence, "evidence of alert hr.tachycardia patient 5"), "golden/s.golden.yaml:5")
        XCTAssertEqual(line(.noOtherAlerts, "no other alerts"), "golden/s.golden.yaml:4")
        XCTAssertEqual(line(.traffic, "traffic digest"), "golden/s.golden.yaml:3")
        XCTAssertEqual(line(.validation, "rejects 5/hr-5/3"), "golden/s.golden.yaml:9")
        XCTAssertEqual(line(.validation, "accepts 50/hr-50/4"), "s.yaml:5")
        XCTAssertEqual(line(.budget, "budget reading-to-alert max ≤ 2000 ms"), "golden/s.golden.yaml:12")
        XCTAssertEqual(line(.storedData, "stored readings of patient 50 kept"), "s.yaml:5")
        XCTAssertEqual(line(.access, "access caregiver ann read readings patient 5 (in care)"), "s.yaml:3")
        XCTAssertEqual(line(.delivery, "every reading acknowledged or rejected"), "s.yaml:1")
        // Files that do not parse locate on first lines rather than failing the report.
        let broken = CheckLocator(goldenPath: "g", goldenText: "{", scenarioPath: "s", scenarioText: ": :")
        XCTAssertEqual(broken.location(of: check(.alert, "alert x patient 1")), SourceLocation(file: "g", line: 1))
    }

    func verdicts() -> [Verdict] {
        var failed = check(.alert, "alert hr.tachycardia patient 5", .missed)
        failed.detail = "50% of 100, line one\nline two"
        failed.requirements = ["rule.hr.tachycardia"]
        var warned = check(.refusedField, "rejects 5/hr-5/3 naming its field", .validationMismatch)
        (warned.level, warned.excuse) = (.should, .warning)
        var waived = check(.alert, "alert hr.tachycardia patient 50", .missed)
        waived.excuse = .waived(reason: "RPM-7 | known", ticket: nil)
        var skipped = check(.recipients, "alert recipients")
        skipped.skipped = true
        var verdict = Verdict(
            scenario: "s",
            checks: [check(.traffic, "traffic digest"), failed, warned, waived, skipped]
        )
        verdict.latency[.readingToAck] = ["count": 3, "p50": 1.5, "p90": 2, "p99": 2.5, "max": 3]
        let located = CheckLocator.locate([verdict], with: ["s": locator])
        return located + [Verdict(scenario: "t", error: "no route to the SUT", contract: nil)]
    }

    func testAnnotationsAreEscapedWorkflowCommandsOnTheirLines() {
        let found = CIAnnotations(verdicts(), scenarioFiles: ["t": "scenarios/t.yaml"]).annotations
        let lines = CIAnnotations(annotations: found).workflowCommands.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, lines.joined(separator: "\n"))
        XCTAssertEqual(
            lines[1],
            "::error file=scenarios/t.yaml,line=1,title=VitalSim%3A t not judged::no route to the SUT"
        )
        XCTAssertEqual(
            lines[0],
            "::error file=golden/s.golden.yaml,line=5,title=VitalSim SHALL missed%3A s::alert hr.tachycardia patient 5: "
                + "50%25 of 100, line one%0Aline two (verifies rule.hr.tachycardia)"
        )
        let warning =
            "::warning file=golden/s.golden.yaml,line=9,title=VitalSim SHOULD validation-mismatch%3A s::rejects"
        XCTAssertTrue(lines[2].hasPrefix(warning), lines[2])
        XCTAssertTrue(lines[3].hasPrefix("::warning file=golden/s.golden.yaml,line=6,"), lines[3])
        XCTAssertTrue(lines[3].hasSuffix("— waived: RPM-7 | known"), lines[3])
        let many = Array(repeating: found[0], count: CIAnnotations.limit + 3)
        let capped = CIAnnotations(annotations: many).workflowCommands.split(separator: "\n")
        XCTAssertEqual(capped.count, CIAnnotations.limit + 1)
        XCTAssertEqual(capped.last, "::notice::3 more finding(s): see the job summary or JUnit")
    }

    func testTheJobSummaryListsScenariosFindingsWithTheirLinesAndLatency() {
        let markdown = JobSummary(verdicts()).markdown
        XCTAssertTrue(markdown.hasPrefix("## VitalSim: ❌ FAIL — 0/2 scenario(s) passed\n"), markdown)
        XCTAssertTrue(markdown.contains("| s | ❌ fail | 4/5 | 1 | 2 | 0 / 0 / 0 |"), markdown)
        XCTAssertTrue(markdown.contains("| t | ⚠️ not judged |"), markdown)
        XCTAssertTrue(
            markdown.contains(
                "| s | alert hr.tachycardia patient 5 | **SHALL** failed | missed | `golden/s.golden.yaml:5` "
                    + "| 50% of 100, line one line two (verifies rule.hr.tachycardia) |"
            ),
            markdown
        )
        XCTAssertTrue(markdown.contains("waived: RPM-7 \\| known") == false)  // the detail, not the excuse, is shown
        XCTAssertTrue(markdown.contains("| s | alert hr.tachycardia patient 50 | waived | missed |"), markdown)
        XCTAssertTrue(markdown.contains("| s | reading-to-ack | 1.50 | 2.00 | 2.50 | 3.00 | 3 |"), markdown)
        let clean = JobSummary([Verdict(scenario: "ok", checks: [check(.traffic, "traffic digest")])]).markdown
        XCTAssertTrue(clean.hasPrefix("## VitalSim: ✅ PASS — 1/1 scenario(s) passed"), clean)
        XCTAssertTrue(clean.contains("Every check passed."), clean)
    }

    func testCodeQualityIssuesHaveStableFingerprintsAndLines() throws {
        let found = CIAnnotations(verdicts()).annotations
        let report = CIAnnotations(annotations: found).codeQuality
        XCTAssertEqual(report, CIAnnotations(annotations: CIAnnotations(verdicts()).annotations).codeQuality)
        let issues = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.utf8)) as? [[String: Any]])
        XCTAssertEqual(issues.count, 4)
        XCTAssertEqual(issues.map { $0["severity"] as? String }, ["critical", "critical", "minor", "minor"])
        let location = try XCTUnwrap(issues[0]["location"] as? [String: Any])
        XCTAssertEqual(location["path"] as? String, "golden/s.golden.yaml")
        XCTAssertEqual((location["lines"] as? [String: Any])?["begin"] as? Int, 5)
        XCTAssertEqual(Set(issues.compactMap { $0["fingerprint"] as? String }).count, 4)
    }

    func testCTRFStatusesAndCounts() throws {
        let about = RunDescription(fields: [
            .init("run id", "r1"), .init("started", "2026-11-28T03:00:00Z"), .init("duration", "2.5 s"),
        ])
        let text = CTRFReport(verdicts(), about: about, title: "run").json
        let top = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(top["reportFormat"] as? String, "CTRF")
        XCTAssertEqual(top["runId"] as? String, "r1")
        let results = try XCTUnwrap(top["results"] as? [String: Any])
        let tests = try XCTUnwrap(results["tests"] as? [[String: Any]])
        XCTAssertEqual(
            tests.map { "\($0["name"] ?? "") \($0["status"] ?? "") \($0["rawStatus"] ?? "")" },
            [
                "traffic digest passed passed", "alert hr.tachycardia patient 5 failed failed",
                "rejects 5/hr-5/3 naming its field other warning", "alert hr.tachycardia patient 50 skipped waived",
                "alert recipients skipped not-checked", "run failed error",
            ]
        )
        XCTAssertEqual(tests[1]["filePath"] as? String, "golden/s.golden.yaml")
        XCTAssertEqual(tests[1]["line"] as? Int, 5)
        XCTAssertEqual(tests[1]["tags"] as? [String], ["rule.hr.tachycardia"])
        let summary = try XCTUnwrap(results["summary"] as? [String: Any])
        XCTAssertEqual(
            ["tests", "passed", "failed", "skipped", "other", "suites"].map { summary[$0] as? Int },
            [6, 1, 2, 2, 1, 2]
        )
        XCTAssertEqual(summary["start"] as? Int, 1_795_834_800_000)
        XCTAssertEqual(summary["stop"] as? Int, 1_795_834_802_500)
    }
}
