import Foundation
import VitalSimCore

/// The verdicts as a Common Test Report Format document (CTRF 1.0.0, https://ctrf.io): one test per
/// check, its scenario the suite; a scenario not judged is one failed test named `run`. Statuses:
/// a finding that fails the run is `failed`; a check not carried out, waived, known from the
/// baseline or not applicable is `skipped`; a SHOULD warning is `other` (`rawStatus` says which).
package struct CTRFReport {
    package static let specVersion = "1.0.0"
    let verdicts: [Verdict]
    /// What was tested: the run's id, start, duration and base URL.
    let about: RunDescription?
    /// The report's name.
    let title: String

    package init(_ verdicts: [Verdict], about: RunDescription? = nil, title: String) {
        self.verdicts = verdicts
        self.about = about
        self.title = title
    }

    struct Document: Encodable {
        var reportFormat = "CTRF"
        var specVersion = CTRFReport.specVersion
        var generatedBy: String
        var runId: String?
        var timestamp: String?
        var results: Results
    }

    struct Results: Encodable {
        var tool: Tool
        var summary: Summary
        var tests: [Test]
        var environment: Environment?
        var extra: [String: String]?
    }

    struct Tool: Encodable {
        var name: String
        var version: String
    }

    struct Summary: Encodable {
        var tests = 0, passed = 0, failed = 0, skipped = 0, pending = 0, other = 0
        var suites: Int
        var start: Int64
        var stop: Int64
        var duration: Int64
    }

    struct Test: Encodable {
        var name: String
        var status: String
        var rawStatus: String
        var duration: Int64 = 0
        var suite: [String]
        var message: String?
        var filePath: String?
        var line: Int?
        var type = "conformance"
        var tags: [String]
        var labels: [String: String]
    }

    struct Environment: Encodable {
        var reportName: String
        var testEnvironment: String?
    }

    /// CTRF's status and VitalSim's own word for a check.
    func status(_ c: Check) -> (String, String) {
        if !c.passed { return ("failed", "failed") }
        if let excuse = c.excuse, c.finding != nil {
            return excuse == .warning ? ("other", "warning") : ("skipped", excuse.label)
        }
        if let excuse = c.excuse { return ("skipped", excuse.label) }
        if c.skipped { return ("skipped", "not-checked") }
        return ("passed", "passed")
    }

    func test(_ v: Verdict, _ c: Check) -> Test {
        let (status, raw) = status(c)
        var labels = ["kind": c.kind.rawValue, "level": c.level.rawValue, "id": c.id(in: v.scenario)]
        if let rule = c.rule { labels["rule"] = rule }
        if let area = c.area { labels["area"] = area }
        if let finding = c.finding { labels["finding"] = finding.rawValue }
        let message =
            c.finding.map { "\($0.rawValue): \(c.detail)" + (c.excuse.map { " — \($0.explanation)" } ?? "") }
            ?? c.detail
        return Test(
            name: c.name,
            status: status,
            rawStatus: raw,
            suite: [v.scenario],
            message: message,
            filePath: c.location?.file,
            line: c.location?.line,
            tags: c.requirements,
            labels: labels
        )
    }

    /// The CTRF document of a gated run (keys sorted: the same verdicts give the same bytes).
    package var json: String {
        var tests: [Test] = []
        for v in verdicts {
            if let error = v.error {
                let labels = ["kind": "run", "level": RequirementLevel.shall.rawValue, "id": "\(v.scenario): run"]
                tests.append(
                    Test(
                        name: "run",
                        status: "failed",
                        rawStatus: "error",
                        suite: [v.scenario],
                        message: error,
                        tags: [],
                        labels: labels
                    )
                )
            }
            tests += v.checks.map { test(v, $0) }
        }
        let fields = Dictionary(about?.fields.map { ($0.key, $0.value) } ?? [], uniquingKeysWith: { a, _ in a })
        let start = fields["started"].flatMap { CivilTime(iso8601: $0)?.unixMilliseconds } ?? 0
        let seconds = fields["duration"].flatMap { Double($0.split(separator: " ").first ?? "") } ?? 0
        let duration = Int64(seconds * 1000)
        var summary = Summary(suites: verdicts.count, start: start, stop: start + duration, duration: duration)
        summary.tests = tests.count
        for t in tests {
            switch t.status {
            case "passed": summary.passed += 1
            case "failed": summary.failed += 1
            case "skipped": summary.skipped += 1
            default: summary.other += 1
            }
        }
        let document = Document(
            generatedBy: "vitalsim \(VitalSimVersion.current)",
            runId: fields["run id"],
            timestamp: fields["started"],
            results: Results(
                tool: Tool(name: "vitalsim", version: VitalSimVersion.current),
                summary: summary,
                tests: tests,
                environment: Environment(reportName: title, testEnvironment: fields["base url"]),
                extra: fields.isEmpty ? nil : fields
            )
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(document)) ?? Data(), as: UTF8.self) + "\n"
    }
}
