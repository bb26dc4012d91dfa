import Foundation

/// A CI job's summary in GitHub-flavoured Markdown (GitHub Actions' `$GITHUB_STEP_SUMMARY`, or any
/// file a GitLab job publishes): the run's outcome, a table of scenarios, every check that failed
/// or warned with where its expectation is written, the latency figures, and what was tested.
package struct JobSummary {
    let verdicts: [Verdict]
    /// The gate's notes.
    let notes: [String]
    /// What was tested.
    let about: RunDescription?

    package init(_ verdicts: [Verdict], notes: [String] = [], about: RunDescription? = nil) {
        self.verdicts = verdicts
        self.notes = notes
        self.about = about
    }

    /// The summary of a gated run's verdicts.
    package var markdown: String {
        let passed = verdicts.filter(\.passed).count
        var out =
            "## VitalSim: \(passed == verdicts.count ? "✅ PASS" : "❌ FAIL") — "
            + "\(passed)/\(verdicts.count) scenario(s) passed\n\n"
        out +=
            "| Scenario | Verdict | Checks passed | Failed | Warned or excused | Readings acknowledged / rejected / failed |\n"
        out += "|---|---|---|---|---|---|\n"
        for v in verdicts {
            let verdict = v.error != nil ? "⚠️ not judged" : v.passed ? "✅ pass" : "❌ fail"
            let failed = v.checks.filter { !$0.passed }.count
            let excused = v.checks.filter { $0.finding != nil && $0.excuse != nil }.count
            out +=
                "| \(cell(v.scenario)) | \(verdict) | \(v.checks.count - failed)/\(v.checks.count) | \(failed) "
                + "| \(excused) | \(v.acknowledged) / \(v.rejected) / \(v.failed) |\n"
        }
        out += areas
        out += findings
        out += latency
        if !notes.isEmpty { out += "\n" + notes.map { "> \(cell($0))\n" }.joined() }
        if let about {
            out += "\n<details><summary>What was tested</summary>\n\n| | |\n|---|---|\n"
            out += about.fields.map { "| \(cell($0.key)) | \(cell($0.value)) |\n" }.joined()
            out += "\n</details>\n"
        }
        return out
    }

    /// Each judged scenario's conformance areas (``ConformanceRegistry/rows(of:)``), folded away.
    var areas: String {
        let rows = verdicts.filter { $0.error == nil }.flatMap { v in
            ConformanceRegistry.standard.rows(of: v).map { row in
                let findings = row.findings.map { "\($0.finding.rawValue) ×\($0.count)" }.joined(separator: ", ")
                return
                    "| \(cell(v.scenario)) | \(cell(row.title)) | \(row.checks - row.failed)/\(row.checks) | \(row.failed) "
                    + "| \(row.skipped) | \(cell(findings)) |"
            }
        }
        guard !rows.isEmpty else { return "" }
        return
            "\n<details><summary>Conformance areas</summary>\n\n| Scenario | Area | Checks passed | Failed | Skipped | Findings |\n"
            + "|---|---|---|---|---|---|\n" + rows.joined(separator: "\n") + "\n\n</details>\n"
    }

    /// The scenarios not judged, the failed checks, then the excused findings (warnings, waived, known).
    var findings: String {
        var rows: [String] = []
        for v in verdicts {
            if let error = v.error { rows.append("| \(cell(v.scenario)) | not judged | error | | | \(cell(error)) |") }
            for c in v.checks where !c.passed { rows.append(row(v, c, outcome: "**\(c.level.rawValue)** failed")) }
        }
        for v in verdicts {
            for c in v.checks where c.finding != nil && c.excuse != nil && !c.isNotApplicable {
                rows.append(row(v, c, outcome: c.excuse?.label ?? ""))
            }
        }
        guard !rows.isEmpty else { return "\nEvery check passed.\n" }
        return
            "\n### Findings\n\n| Scenario | Check | Outcome | Finding | Expected at | Detail |\n|---|---|---|---|---|---|\n"
            + rows.joined(separator: "\n") + "\n"
    }

    func row(_ v: Verdict, _ c: Check, outcome: String) -> String {
        let at = c.location.map { "`\($0.file):\($0.line)`" } ?? ""
        let ids = c.requirements.isEmpty ? "" : " (verifies \(c.requirements.joined(separator: ", ")))"
        return "| \(cell(v.scenario)) | \(cell(c.name)) | \(outcome) | \(c.finding?.rawValue ?? "") | \(at) "
            + "| \(cell(c.detail + ids)) |"
    }

    /// Each scenario's measured latency paths.
    var latency: String {
        var rows: [String] = []
        for v in verdicts {
            for path in v.latencyPaths {
                guard let latency = v.latency[path], let samples = latency["count"], samples > 0 else { continue }
                let figures = ["p50", "p90", "p99", "max"].map { String(format: "%.2f", latency[$0] ?? 0) }
                rows.append(
                    "| \(cell(v.scenario)) | \(path.rawValue) | \(figures.joined(separator: " | ")) | \(Int(samples)) |"
                )
            }
        }
        guard !rows.isEmpty else { return "" }
        return
            "\n### Latency (ms)\n\n| Scenario | Path | p50 | p90 | p99 | max | Samples |\n|---|---|---|---|---|---|---|\n"
            + rows.joined(separator: "\n") + "\n"
    }

    /// Text safe in one table cell: no line breaks, pipes escaped, HTML's angle brackets written out.
    func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
