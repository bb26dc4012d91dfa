import Foundation
import VitalSimCore

/// A self-contained HTML report of a run (inline CSS and SVG, no scripts, no external resources):
/// per scenario, a vitals chart per patient with the scenario's events and faults shaded, the
/// expected alert windows and the alerts the SUT raised marked; a latency histogram per path; the
/// latency table; and the verdict table, one row per check with its rule and finding (failed checks
/// first, passed ones folded away unless all passed).
package enum HTMLReport {
    static let panelWidth = 960.0, panelHeight = 120.0, left = 64.0, right = 16.0, top = 14.0, bottom = 22.0

    package static func render(
        _ verdicts: [Verdict],
        title: String = "VitalSim run",
        about: RunDescription? = nil
    )
        -> String
    {
        let passed = verdicts.filter(\.passed).count
        var h = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(esc(title))</title>
            <style>
            body{font-family:system-ui,sans-serif;margin:24px;color:#1d2733;background:#fff}
            h1{font-size:22px} h2{font-size:18px;margin-top:36px} h3{font-size:15px;margin:16px 0 4px}
            .badge{display:inline-block;padding:2px 8px;border-radius:4px;color:#fff;font-weight:600}
            .pass .badge,.badge.pass{background:#1f883d} .fail .badge,.badge.fail{background:#cf222e}
            table{border-collapse:collapse;margin:8px 0;font-size:13px} td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
            tr.check.fail td{background:#ffebe9} tr.check.pass td.finding{color:#1f883d} tr.check.excused td{background:#fff8c5}
            svg{display:block;margin:2px 0} .axis{font-size:10px;fill:#57606a} .label{font-size:11px;fill:#1d2733;font-weight:600}
            .series{fill:none;stroke:#0969da;stroke-width:1.2} .event{fill:#fff8c5;stroke:#d4a72c;stroke-width:.5}
            .fault{fill:#f6f8fa;stroke:#8c959f;stroke-dasharray:3 2;stroke-width:.5} .expected-window{fill:#2da44e;opacity:.85}
            .alert-marker line{stroke:#cf222e;stroke-width:1.5} .alert-marker circle{fill:#cf222e}
            .alert-marker.matched line{stroke:#1f883d} .alert-marker.matched circle{fill:#1f883d}
            .alert-marker.early line,.alert-marker.late line{stroke:#bc4c00;stroke-dasharray:4 2} .alert-marker.early circle,.alert-marker.late circle{fill:#bc4c00}
            .alert-marker.duplicate circle{fill:#fff;stroke:#cf222e;stroke-width:1.5} .alert-marker.unmapped line{stroke:#8250df} .alert-marker.unmapped circle{fill:#8250df}
            .expected-window.missed{fill:#fff;stroke:#cf222e;stroke-width:1.5;stroke-dasharray:3 2}
            p.error{background:#fbefff;border-left:4px solid #8250df;padding:6px 10px} table.contract code{font-size:12px}
            .point{fill:#0969da} .bar{fill:#8250df} .legend span{display:inline-block;margin-right:14px;font-size:12px}
            </style></head><body>
            <h1>\(esc(title)) <span class="badge \(passed == verdicts.count ? "pass" : "fail")">\(passed == verdicts.count ? "PASS" : "FAIL")</span></h1>
            <p id="summary">\(passed)/\(verdicts.count) scenario(s) passed.</p>
            <p class="legend"><span><b style="color:#d4a72c">■</b> clinical event</span><span><b style="color:#8c959f">■</b> device fault</span>
            <span><b style="color:#2da44e">■</b> expected alert window (met)</span><span><b style="color:#cf222e">□</b> expected window missed</span>
            <span><b style="color:#1f883d">●</b> alert in its window</span><span><b style="color:#bc4c00">●</b> early or late</span>
            <span><b style="color:#cf222e">●</b> spurious</span><span><b style="color:#cf222e">○</b> duplicate</span><span><b style="color:#8250df">●</b> unmapped</span></p>

            """
        if let about { h += described(about) }
        h += summaryTable(verdicts)
        for v in verdicts { h += scenario(v) }
        return h + "</body></html>\n"
    }

    static func scenario(_ verdict: Verdict) -> String {
        let state = verdict.passed ? "pass" : "fail"
        var h =
            "<section class=\"scenario \(state)\" id=\"scenario-\(esc(verdict.scenario))\" data-passed=\"\(verdict.passed)\">\n"
        h +=
            "<h2>\(esc(verdict.scenario)) <span class=\"badge\">\(verdict.error != nil ? "ERROR" : verdict.passed ? "PASS" : "FAIL")</span></h2>\n"
        if let error = verdict.error {
            // Not judged: what went wrong, and what the SUT answered meanwhile.
            h +=
                "<p class=\"error\">Not judged (a misconfiguration or an infrastructure failure, exit 3): \(esc(error))</p>\n"
            return h + (verdict.contract.map(contract) ?? "") + "</section>\n"
        }
        h +=
            "<p>\(verdict.acknowledged) readings acknowledged, \(verdict.rejected) rejected, \(verdict.failed) failed; "
            + "\(verdict.checks.filter(\.passed).count)/\(verdict.checks.count) checks passed.</p>\n"
        if let chart = verdict.chart {
            for patient in chart.patients {
                let series = chart.series.filter { $0.patientID == patient }
                h += "<figure class=\"vitals\" data-patient=\"\(esc(patient))\"><h3>Patient \(esc(patient))</h3>\n"
                for s in series { h += panel(s, chart, verdict) }
                h += "</figure>\n"
            }
        }
        h +=
            "<h3>Latency</h3>\n<table class=\"latency\"><tr><th>path</th><th>samples</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>\n"
        for path in Verdict.latencyPaths(verdict) {
            guard let l = verdict.latency[path] else { continue }
            let cells = ["p50", "p90", "p99", "p99.9", "max"].map { l[$0].map { String(format: "%.2f ms", $0) } ?? "–" }
            h +=
                "<tr><td>\(path.rawValue)</td><td>\(Int(l["count"] ?? 0))</td>"
                + cells.map { "<td>\($0)</td>" }.joined() + "</tr>\n"
        }
        h += "</table>\n"
        for path in Verdict.latencyPaths(verdict) where path != .schedulingLag {
            if let buckets = verdict.histograms[path], buckets.contains(where: { $0.count > 0 }) {
                h += histogram(path, buckets)
            }
        }
        if let c = verdict.contract { h += contract(c) }
        let failed = verdict.checks.filter { !$0.passed }
        let excused = verdict.checks.filter { $0.finding != nil && $0.excuse != nil }
        let passed = verdict.checks.filter { $0.passed && !($0.finding != nil && $0.excuse != nil) }
        h += "<h3>Verdict</h3>\n"
        if !failed.isEmpty { h += table(failed) }
        if !excused.isEmpty {
            h +=
                "<h4>\(excused.count) finding(s) excused (warnings, waived, known, not applicable)</h4>\n"
                + table(excused)
        }
        if !passed.isEmpty {
            h +=
                "<details class=\"passed-checks\"\(failed.isEmpty ? " open" : "")><summary>\(passed.count) passed check(s)</summary>\n"
                + table(passed) + "</details>\n"
        }
        return h + "</section>\n"
    }

    /// What was tested: the run's description as a table.
    static func described(_ about: RunDescription) -> String {
        var h = "<table class=\"run\">"
        for field in about.fields { h += "<tr><th>\(esc(field.key))</th><td>\(esc(field.value))</td></tr>" }
        return h + "</table>\n"
    }

    /// One row per scenario, linking to its section: verdict, checks failed, excused and passed, readings.
    static func summaryTable(_ verdicts: [Verdict]) -> String {
        var h =
            "<table class=\"summary\"><tr><th>scenario</th><th>verdict</th><th>failed</th><th>excused</th>"
            + "<th>passed</th><th>readings acknowledged / rejected / failed</th></tr>\n"
        for v in verdicts {
            let failed = v.checks.filter { !$0.passed }.count
            let excused = v.checks.filter { $0.finding != nil && $0.excuse != nil }.count
            let state = v.error != nil ? "ERROR" : v.passed ? "PASS" : "FAIL"
            h +=
                "<tr class=\"\(v.passed ? "pass" : "fail")\"><td><a href=\"#scenario-\(esc(v.scenario))\">\(esc(v.scenario))</a></td>"
                + "<td>\(state)</td><td>\(failed)</td><td>\(excused)</td><td>\(v.checks.count - failed - excused)</td>"
                + "<td>\(v.acknowledged) / \(v.rejected) / \(v.failed)</td></tr>\n"
        }
        return h + "</table>\n"
    }

    /// The verdict table: one row per check with its rule, the requirements it verifies and its finding.
    static func table(_ checks: [Check]) -> String {
        var h =
            "<table class=\"verdict\"><tr><th>check</th><th>kind</th><th>rule</th><th>requirements</th><th>result</th><th>detail</th></tr>\n"
        for c in checks {
            // An excused finding shows as what it is (a warning, waived, known, not applicable), never as a pass.
            var result = c.finding?.rawValue ?? (c.skipped ? "skipped" : "pass")
            var detail = c.detail
            if let excuse = c.excuse {
                result = c.finding.map { "\($0.rawValue) (\(excuse.label))" } ?? excuse.label
                detail += " — " + excuse.explanation
            }
            let state = c.excuse != nil ? "excused" : c.passed ? "pass" : "fail"
            h +=
                "<tr class=\"check \(state)\" data-finding=\"\(c.finding?.rawValue ?? "")\" data-level=\"\(c.level.rawValue)\"><td>\(esc(c.name))</td><td>\(esc(c.kind.rawValue))</td>"
                + "<td>\(esc(c.rule ?? ""))</td><td class=\"requirements\">\(esc(c.requirements.joined(separator: " ")))</td>"
                + "<td class=\"finding\">\(esc(result))</td><td>\(esc(detail))</td></tr>\n"
        }
        return h + "</table>\n"
    }

    /// One vital sign over the scenario's device time.
    static func panel(_ scenarioChart: ScenarioChart.Series, _ chart: ScenarioChart, _ verdict: Verdict) -> String {
        let w = panelWidth
        let ht = panelHeight
        let plotW = w - left - right
        let plotH = ht - top - bottom
        let span = Double(max(1, chart.end - chart.start))
        func x(_ t: Int64) -> Double { left + plotW * Double(min(max(t, chart.start), chart.end) - chart.start) / span }
        let values = scenarioChart.points.map(\.value)
        var lo = values.min() ?? 0
        var hi = values.max() ?? 1
        if hi - lo < 1e-9 {
            lo -= 1
            hi += 1
        }
        let pad = (hi - lo) * 0.08
        lo -= pad
        hi += pad
        func y(_ value: Double) -> Double { top + plotH * (1 - (value - lo) / (hi - lo)) }
        var g =
            "<svg class=\"panel\" data-kind=\"\(esc(scenarioChart.kind))\" width=\"\(Int(w))\" height=\"\(Int(ht))\" viewBox=\"0 0 \(Int(w)) \(Int(ht))\" role=\"img\" aria-label=\"\(esc(scenarioChart.kind)) of patient \(esc(scenarioChart.patientID))\">\n"
        g +=
            "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotW))\" height=\"\(f(plotH))\" fill=\"#fff\" stroke=\"#d0d7de\"/>\n"
        for sp in chart.spans where sp.patientID == scenarioChart.patientID {
            g +=
                "<rect class=\"\(sp.isFault ? "fault" : "event")\" x=\"\(f(x(sp.from)))\" y=\"\(f(top))\" width=\"\(f(max(1, x(sp.to) - x(sp.from))))\" height=\"\(f(plotH))\"><title>\(esc(sp.label)) \(iso(sp.from))–\(iso(sp.to))</title></rect>\n"
        }
        let marks = AlertMarks(expected: verdict.expectedAlerts, observed: verdict.alerts)
        for (i, e) in verdict.expectedAlerts.enumerated()
        where e.patientID == scenarioChart.patientID && AlertMarks.belongs(e.rule, on: scenarioChart.signals) {
            let state = marks.windows[i] ?? "met"
            g +=
                "<rect class=\"expected-window \(state)\" data-rule=\"\(esc(e.rule))\" x=\"\(f(x(e.from)))\" y=\"\(f(top + plotH - 6))\" width=\"\(f(max(2, x(e.to) - x(e.from))))\" height=\"6\"><title>expected \(esc(e.rule)) (\(esc(e.severity.rawValue))) \(iso(e.from))–\(iso(e.to)): \(state)</title></rect>\n"
        }
        let line = scenarioChart.points.map { "\(f(x($0.time))),\(f(y($0.value)))" }.joined(separator: " ")
        g += "<polyline class=\"series\" points=\"\(line)\"/>\n"
        // Spot checks (a few readings a day) are drawn as dots as well.
        if scenarioChart.points.count <= 120 {
            for p in scenarioChart.points {
                g +=
                    "<circle class=\"point\" cx=\"\(f(x(p.time)))\" cy=\"\(f(y(p.value)))\" r=\"2.5\"><title>\(num(p.value)) \(esc(scenarioChart.unit)) at \(iso(p.time))</title></circle>\n"
            }
        }
        for a in verdict.alerts
        where a.patientID == scenarioChart.patientID && AlertMarks.belongs(a.rule, on: scenarioChart.signals) {
            let ax = x(a.raisedAt)
            let state = marks.alerts[a.alertID] ?? "spurious"
            g +=
                "<g class=\"alert-marker \(state)\" data-rule=\"\(esc(a.rule))\"><line x1=\"\(f(ax))\" y1=\"\(f(top))\" x2=\"\(f(ax))\" y2=\"\(f(top + plotH))\"/>"
                + "<circle cx=\"\(f(ax))\" cy=\"\(f(top + 3))\" r=\"4\"/><title>\(esc(a.rule)) (\(esc(a.severity))) raised at \(iso(a.raisedAt)): \(state)</title></g>\n"
        }
        g +=
            "<text class=\"label\" x=\"\(f(left + 6))\" y=\"\(f(top + 14))\">\(esc(scenarioChart.kind)) (\(esc(scenarioChart.unit)))</text>\n"
        g +=
            "<text class=\"axis\" x=\"\(f(left - 4))\" y=\"\(f(top + 8))\" text-anchor=\"end\">\(num(hi - pad))</text>\n"
        g +=
            "<text class=\"axis\" x=\"\(f(left - 4))\" y=\"\(f(top + plotH))\" text-anchor=\"end\">\(num(lo + pad))</text>\n"
        g += "<text class=\"axis\" x=\"\(f(left))\" y=\"\(f(ht - 6))\">\(iso(chart.start))</text>\n"
        g +=
            "<text class=\"axis\" x=\"\(f(w - right))\" y=\"\(f(ht - 6))\" text-anchor=\"end\">\(iso(chart.end))</text>\n"
        return g + "</svg>\n"
    }

    /// Bars of a latency distribution (logarithmic buckets).
    static func histogram(_ latencyPath: LatencyPath, _ buckets: [LatencyBucket]) -> String {
        let path = latencyPath.rawValue
        let w = 640.0
        let ht = 150.0
        let plotH = ht - 40
        let barW = (w - 20) / Double(buckets.count)
        let peak = Double(buckets.map(\.count).max() ?? 1)
        var g =
            "<svg class=\"latency-histogram\" data-path=\"\(path)\" width=\"\(Int(w))\" height=\"\(Int(ht))\" viewBox=\"0 0 \(Int(w)) \(Int(ht))\" role=\"img\" aria-label=\"\(path) latency histogram\">\n"
        g += "<text class=\"label\" x=\"10\" y=\"12\">\(path) latency (readings per bucket)</text>\n"
        for (i, b) in buckets.enumerated() {
            let bh = b.count == 0 ? 0 : max(1, plotH * Double(b.count) / peak)
            let bx = 10 + Double(i) * barW
            g +=
                "<rect class=\"bar\" data-count=\"\(b.count)\" x=\"\(f(bx + 1))\" y=\"\(f(18 + plotH - bh))\" width=\"\(f(barW - 2))\" height=\"\(f(bh))\"><title>\(esc(b.label)): \(b.count)</title></rect>\n"
            g +=
                "<text class=\"axis\" x=\"\(f(bx + barW / 2))\" y=\"\(f(ht - 8))\" text-anchor=\"middle\">\(esc(b.label))</text>\n"
        }
        return g + "</svg>\n"
    }

    static func f(_ d: Double) -> String { String(format: "%.1f", d) }
    static func num(_ d: Double) -> String { abs(d) >= 100 ? String(format: "%.0f", d) : String(format: "%.1f", d) }
    static func iso(_ ms: Int64) -> String {
        String(CivilTime(unixMilliseconds: ms).iso8601(fractional: false).prefix(16)).replacingOccurrences(
            of: "T",
            with: " "
        )
    }
    static func esc(_ s: String) -> String { RunReport.xml(s) }
}
