import Foundation
import XCTest
import Yams

/// The CI pipeline templates in ci/pipelines parse as YAML, run the suite script that exists with
/// the command line's arguments, and publish the files it writes (read as files: no process).
final class PipelineFilesTests: XCTestCase {
    func load(_ name: String) throws -> [String: Any] {
        let text = try String(contentsOfFile: FlagValidationTests.root + "/ci/pipelines/" + name, encoding: .utf8)
        return try XCTUnwrap(try Yams.load(yaml: text) as? [String: Any], name)
    }

    func testPipelinesRunTheSuiteScriptAndPublishItsReports() throws {
        let script = try String(contentsOfFile: FlagValidationTests.root + "/ci/suite.sh", encoding: .utf8)
        for output in ["junit.xml", "verdict.json", "report.html"] {
            XCTAssertTrue(script.contains("$out/" + output), output)
        }

        let github = try load("github-actions.yml")
        let steps = try XCTUnwrap(
            ((github["jobs"] as? [String: Any])?["suite"] as? [String: Any])?["steps"] as? [[String: Any]]
        )
        XCTAssertTrue(
            steps.contains { ($0["run"] as? String)?.contains("bash ci/suite.sh scenarios/core out/ci") == true }
        )
        let junit = try XCTUnwrap(
            steps.first { ($0["uses"] as? String)?.hasPrefix("mikepenz/action-junit-report") == true }
        )
        XCTAssertEqual((junit["with"] as? [String: Any])?["report_paths"] as? String, "out/ci/junit.xml")
        XCTAssertEqual(junit["if"] as? String, "always()", "failures are published too")
        let upload = try XCTUnwrap(
            steps.first { ($0["uses"] as? String)?.hasPrefix("actions/upload-artifact") == true }
        )
        XCTAssertTrue(((upload["with"] as? [String: Any])?["path"] as? String)?.contains("out/ci/report.html") == true)

        let gitlab = try load("gitlab-ci.yml")
        let job = try XCTUnwrap(gitlab["vitalsim-suite"] as? [String: Any])
        XCTAssertEqual(job["script"] as? [String], ["bash ci/suite.sh scenarios/core out/ci"])
        let artifacts = try XCTUnwrap(job["artifacts"] as? [String: Any])
        XCTAssertEqual((artifacts["reports"] as? [String: Any])?["junit"] as? String, "out/ci/junit.xml")
        XCTAssertTrue((artifacts["paths"] as? [String])?.contains("out/ci/report.html") == true)
        XCTAssertEqual(artifacts["when"] as? String, "always")
    }
}
