import Foundation
import RunRecord
import VitalSimCore

extension HTMLReport {
    /// One vital sign over the scenario's device time: the series (and its readings as dots when
    /// few), the scenario's events and faults shaded, the expected alert windows along the bottom and
    /// the alerts the SUT raised as markers, each with its state (met, missed, matched, early, late,
    /// spurious, duplicate, unmapped).
    func panel(_ series: ScenarioChart.Series, _ chart: ScenarioChart, _ verdict: Verdict) -> [String: Any] {
        let plotW = Self.panelWidth - Self.left - Self.right
        let plotH = Self.panelHeight - Self.top - Self.bottom
        let span = Double(max(1, chart.end - chart.start))
        func x(_ t: Int64) -> Double {
            Self.left + plotW * Double(min(max(t, chart.start), chart.end) - chart.start) / span
        }
        let values = series.points.map(\.value)
        var lo = values.min() ?? 0
        var hi = values.max() ?? 1
        if hi - lo < 1e-9 {
            lo -= 1
            hi += 1
        }
        let pad = (hi - lo) * 0.08
        lo -= pad
        hi += pad
        func y(_ value: Double) -> Double { Self.top + plotH * (1 - (value - lo) / (hi - lo)) }
        let marks = AlertMarks(expected: verdict.expectedAlerts, observed: verdict.alerts)
        let spans: [[String: Any]] = chart.spans.filter { $0.patientID == series.patientID }.map { sp in
            [
                "spanClass": sp.isFault ? "fault" : "event", "x": f(x(sp.from)), "w": f(max(1, x(sp.to) - x(sp.from))),
                "label": sp.label, "from": iso(sp.from), "to": iso(sp.to),
            ]
        }
        let windows: [[String: Any]] = verdict.expectedAlerts.enumerated().filter { _, e in
            e.patientID == series.patientID && AlertMarks.belongs(e.rule, on: series.signals)
        }.map { i, e in
            [
                "windowState": marks.windows[i] ?? "met", "rule": e.rule, "x": f(x(e.from)),
                "y": f(Self.top + plotH - 6),
                "w": f(max(2, x(e.to) - x(e.from))), "severity": e.severity.rawValue, "from": iso(e.from),
                "to": iso(e.to),
            ]
        }
        // Spot checks (a few readings a day) are drawn as dots as well.
        let dots: [[String: Any]] =
            series.points.count > 120
            ? []
            : series.points.map {
                ["x": f(x($0.time)), "y": f(y($0.value)), "value": num($0.value), "time": iso($0.time)]
            }
        let markers: [[String: Any]] = verdict.alerts.filter {
            $0.patientID == series.patientID && AlertMarks.belongs($0.rule, on: series.signals)
        }.map { a in
            [
                "markerState": marks.alerts[a.alertID] ?? "spurious", "rule": a.rule, "x": f(x(a.raisedAt)),
                "cy": f(Self.top + 3), "severity": a.severity, "time": iso(a.raisedAt),
            ]
        }
        return [
            "kind": series.kind, "unit": series.unit, "patient": series.patientID, "width": Int(Self.panelWidth),
            "height": Int(Self.panelHeight), "plotX": f(Self.left), "plotY": f(Self.top), "plotWidth": f(plotW),
            "plotHeight": f(plotH), "plotBottom": f(Self.top + plotH), "spans": spans, "windows": windows,
            "points": series.points.map { "\(f(x($0.time))),\(f(y($0.value)))" }.joined(separator: " "),
            "dots": dots, "markers": markers, "labelX": f(Self.left + 6), "labelY": f(Self.top + 14),
            "axisX": f(Self.left - 4),
            "highY": f(Self.top + 8), "high": num(hi - pad), "low": num(lo + pad), "timeY": f(Self.panelHeight - 6),
            "start": iso(chart.start), "endX": f(Self.panelWidth - Self.right), "end": iso(chart.end),
        ]
    }
}
