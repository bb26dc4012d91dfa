import Foundation
import Mustache
import RunRecord
import VitalSimCore

/// A self-contained HTML report of a run (inline CSS and SVG, no scripts, no external resources):
/// per scenario, a vitals chart per patient with the scenario's events and faults shaded, the
/// expected alert windows and the alerts the SUT raised marked; a latency histogram per path; the
/// latency table; the SUT contract; and the verdict table, one row per check with its rule and
/// finding (failed checks first, passed ones folded away unless all passed).
///
/// The page is Mustache templates (`Reports/HTML/*.mustache`: the report, a scenario, a vitals
/// panel, a latency histogram, the contract, a table of checks); this type only works out what they
/// show — the charts' coordinates among it. Every value is HTML-escaped by the templates.
package struct HTMLReport {
    let verdicts: [Verdict]
    /// The page's title.
    let title: String
    /// What was tested, at the page's top.
    let about: RunDescription?

    /// The page of `verdicts`, titled `title`, with what was tested (`about`) at its top.
    package init(_ verdicts: [Verdict], title: String = "VitalSim run", about: RunDescription? = nil) {
        self.verdicts = verdicts
        self.title = title
        self.about = about
    }

    static let panelWidth = 960.0, panelHeight = 120.0, left = 64.0, right = 16.0, top = 14.0, bottom = 22.0

    /// A template missing from the installed resources (a `vitalsim` copied without the
    /// `VitalSim_Judge.resources` folder beside it) or not parsing.
    package struct TemplateProblem: Error, CustomStringConvertible {
        package var description: String
    }

    /// The templates, read once from the module's resources.
    static let library: Result<MustacheLibrary, TemplateProblem> = {
        var templates: [String: MustacheTemplate] = [:]
        for name in ["report", "scenario", "checks", "contract", "panel", "histogram"] {
            guard let url = Bundle.module.url(forResource: name, withExtension: "mustache", subdirectory: "HTML"),
                let text = try? String(contentsOf: url, encoding: .utf8)
            else {
                return .failure(
                    TemplateProblem(
                        description: "the HTML report's template \(name).mustache is missing: keep the "
                            + "VitalSim_Judge.resources folder beside the vitalsim executable"
                    )
                )
            }
            do { templates[name] = try MustacheTemplate(string: text) } catch {
                return .failure(TemplateProblem(description: "the HTML report's template \(name).mustache: \(error)"))
            }
        }
        return .success(MustacheLibrary(templates: templates))
    }()

    /// The page.
    package func render() throws(TemplateProblem) -> String {
        let passed = verdicts.filter(\.passed).count
        var context: [String: Any] = [
            "title": title,
            "overall": passed == verdicts.count ? "PASS" : "FAIL",
            "overallClass": passed == verdicts.count ? "pass" : "fail",
            "passedScenarios": passed, "scenarioCount": verdicts.count,
            "summary": verdicts.map(summaryRow), "scenarios": verdicts.map(scenario),
        ]
        if let about {
            context["about"] = ["fields": about.fields.map { ["key": $0.key, "value": $0.value] }]
        }
        return try Self.library.get().render(context, withTemplate: "report") ?? ""
    }

    /// A scenario's row of the summary table, linking to its section.
    func summaryRow(_ v: Verdict) -> [String: Any] {
        let failed = v.checks.filter { !$0.passed }.count
        let excused = v.checks.filter { $0.finding != nil && $0.excuse != nil }.count
        return [
            "rowClass": v.passed ? "pass" : "fail", "scenario": v.scenario, "state": state(v), "failed": failed,
            "excused": excused, "passed": v.checks.count - failed - excused, "acknowledged": v.acknowledged,
            "rejected": v.rejected, "failedReadings": v.failed,
        ]
    }

    func state(_ v: Verdict) -> String { v.error != nil ? "ERROR" : v.passed ? "PASS" : "FAIL" }

    /// A scenario's section: charts, latency, contract and checks; a scenario not judged shows why.
    func scenario(_ verdict: Verdict) -> [String: Any] {
        var context: [String: Any] = [
            "sectionClass": verdict.passed ? "pass" : "fail", "scenario": verdict.scenario,
            "passedFlag": String(verdict.passed), "state": state(verdict),
        ]
        if let contract = verdict.contract { context["contract"] = self.contract(contract) }
        if let error = verdict.error {
            context["error"] = ["message": error]
            return context
        }
        context["judged"] = true
        context["acknowledged"] = verdict.acknowledged
        context["rejected"] = verdict.rejected
        context["failedReadings"] = verdict.failed
        context["checksPassed"] = verdict.checks.filter(\.passed).count
        context["checksTotal"] = verdict.checks.count
        if let chart = verdict.chart {
            context["figures"] = chart.patients.map { patient in
                [
                    "patient": patient,
                    "panels": chart.series.filter { $0.patientID == patient }.map { panel($0, chart, verdict) },
                ] as [String: Any]
            }
        }
        context["latency"] = verdict.latencyPaths.compactMap { path -> [String: Any]? in
            guard let latency = verdict.latency[path] else { return nil }
            let cells = ["p50", "p90", "p99", "p99.9", "max"].map {
                latency[$0].map { String(format: "%.2f ms", $0) } ?? "–"
            }
            return ["path": path.rawValue, "samples": Int(latency["count"] ?? 0), "cells": cells]
        }
        context["histograms"] = verdict.latencyPaths.filter { $0 != .schedulingLag }.compactMap { path in
            verdict.histograms[path].flatMap { $0.contains { $0.count > 0 } ? histogram(path, $0) : nil }
        }
        context["areas"] = ConformanceRegistry.standard.rows(of: verdict).map { row in
            [
                "name": row.name, "title": row.title, "checks": row.checks, "failed": row.failed,
                "skipped": row.skipped, "rowClass": row.failed > 0 ? "fail" : "pass",
                "findings": row.findings.map { "\($0.finding.rawValue) ×\($0.count)" }.joined(separator: ", "),
                "about": row.about,
            ] as [String: Any]
        }
        let failed = verdict.checks.filter { !$0.passed }
        let excused = verdict.checks.filter { $0.finding != nil && $0.excuse != nil }
        let passed = verdict.checks.filter { $0.passed && !($0.finding != nil && $0.excuse != nil) }
        if !failed.isEmpty { context["failedChecks"] = ["rows": failed.map(checkRow)] }
        if !excused.isEmpty { context["excusedChecks"] = ["count": excused.count, "rows": excused.map(checkRow)] }
        if !passed.isEmpty {
            context["passedChecks"] =
                ["count": passed.count, "open": failed.isEmpty, "rows": passed.map(checkRow)] as [String: Any]
        }
        return context
    }

    /// One check's row: its rule, the requirements it verifies and its finding. An excused finding
    /// shows as what it is (a warning, waived, known, not applicable), never as a pass.
    func checkRow(_ c: Check) -> [String: Any] {
        var result = c.finding?.rawValue ?? (c.skipped ? "skipped" : "pass")
        var detail = c.detail
        if let excuse = c.excuse {
            result = c.finding.map { "\($0.rawValue) (\(excuse.label))" } ?? excuse.label
            detail += " — " + excuse.explanation
        }
        return [
            "rowClass": c.excuse != nil ? "excused" : c.passed ? "pass" : "fail",
            "finding": c.finding?.rawValue ?? "", "level": c.level.rawValue, "name": c.name, "kind": c.kind.rawValue,
            "rule": c.rule ?? "", "requirements": c.requirements.joined(separator: " "), "result": result,
            "detail": detail,
        ]
    }

    /// The SUT contract: one row per endpoint with its answers and first refusals, and the alerts line.
    func contract(_ sutContract: SUTContract) -> [String: Any] {
        [
            "endpoints": sutContract.sortedEndpoints.map { e -> [String: Any] in
                var first: [[String: Any]] = e.firstBodies.keys.sorted().map {
                    ["label": e.label($0), "body": e.firstBodies[$0]!]
                }
                if let reason = e.firstUnanswered { first.append(["label": "no answer", "body": reason]) }
                return [
                    "role": e.role.rawValue, "name": e.name, "summary": e.summary,
                    "first": first.enumerated().map { i, f in f.merging(["firstOne": i == 0]) { a, _ in a } },
                ]
            },
            "alertSummary": sutContract.alertSummary,
        ]
    }

    /// Bars of a latency distribution (logarithmic buckets).
    func histogram(_ latencyPath: LatencyPath, _ buckets: [LatencyBucket]) -> [String: Any] {
        let width = 640.0
        let ht = 150.0
        let plotH = ht - 40
        let barW = (width - 20) / Double(buckets.count)
        let peak = Double(buckets.map(\.count).max() ?? 1)
        let bars: [[String: Any]] = buckets.enumerated().map { i, b in
            let bh = b.count == 0 ? 0 : max(1, plotH * Double(b.count) / peak)
            let bx = 10 + Double(i) * barW
            return [
                "count": b.count, "label": b.label, "x": f(bx + 1), "y": f(18 + plotH - bh), "w": f(barW - 2),
                "h": f(bh), "labelX": f(bx + barW / 2), "labelY": f(ht - 8),
            ]
        }
        return ["path": latencyPath.rawValue, "width": Int(width), "height": Int(ht), "bars": bars]
    }

    func f(_ d: Double) -> String { String(format: "%.1f", d) }
    func num(_ d: Double) -> String { abs(d) >= 100 ? String(format: "%.0f", d) : String(format: "%.1f", d) }
    func iso(_ ms: Int64) -> String {
        String(CivilTime(unixMilliseconds: ms).iso8601(fractional: false).prefix(16)).replacingOccurrences(
            of: "T",
            with: " "
        )
    }
}
