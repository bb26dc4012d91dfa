import TrafficPlanning
import VitalSimCore

/// What the HTML report draws for one scenario: each patient's vital signs over device time
/// (min/max envelope per time bucket, so short extremes stay visible), the scenario's clinical
/// events and device faults, and (from the verdict) the alerts raised and expected.
package struct ScenarioChart: Sendable {
    /// One vital sign of one patient.
    package struct Series: Sendable {
        package var patientID: String
        package var kind: String
        package var unit: String
        /// (device time Unix ms, value), in time order.
        package var points: [(time: Int64, value: Double)]
    }

    /// A clinical event or device fault, as a shaded span.
    package struct Span: Sendable {
        package var patientID: String
        package var label: String
        package var from: Int64
        package var to: Int64
        package var isFault: Bool
    }

    package var start: Int64
    package var end: Int64
    package var patients: [String]
    package var series: [Series]
    package var spans: [Span]

    /// Time buckets per series (two points each: the bucket's minimum and maximum).
    static let buckets: Int64 = 360

    /// Generates the scenario's readings (same seed as the run) and reduces them for drawing.
    package static func make(_ scenario: Scenario, seed: UInt64?) -> ScenarioChart {
        let start = scenario.startUnixMilliseconds
        let end = start + scenario.duration.milliseconds
        let width = max(1, (end - start) / buckets)
        var order: [String] = []
        var units: [String: String] = [:]
        // key → bucket → (min, max, time of min, time of max)
        var acc: [String: [Int64: (Double, Double, Int64, Int64)]] = [:]
        var run = ScenarioRun(scenario: scenario, seed: seed)
        while let (r, _) = run.next() {
            switch r.measurement {
            case .cuffPressure, .dailySummary, .battery: continue
            default: break
            }
            if r.delivery.duplicate || r.delivery.corruption != nil { continue }
            let key = r.patientID + "\u{0}" + r.kind.rawValue
            if acc[key] == nil {
                order.append(key)
                units[key] = r.measurement.unit
                acc[key] = [:]
            }
            let t = start + r.deviceTime
            let v = r.measurement.primaryValue
            let b = (t - start) / width
            if let (lo, hi, tl, th) = acc[key]![b] {
                acc[key]![b] = (Swift.min(lo, v), Swift.max(hi, v), v < lo ? t : tl, v > hi ? t : th)
            } else {
                acc[key]![b] = (v, v, t, t)
            }
        }
        var series: [Series] = []
        for key in order {
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
            var points: [(Int64, Double)] = []
            for b in (acc[key] ?? [:]).keys.sorted() {
                let (lo, hi, tl, th) = acc[key]![b]!
                if tl == th {
                    points.append((tl, lo))
                } else if tl < th {
                    points += [(tl, lo), (th, hi)]
                } else {
                    points += [(th, hi), (tl, lo)]
                }
            }
            series.append(Series(patientID: parts[0], kind: parts[1], unit: units[key] ?? "", points: points))
        }
        var spans: [Span] = []
        var owner: [String: String] = [:]
        for p in scenario.patients { for d in p.devices { owner[d.id] = p.id } }
        for entry in scenario.timeline {
            switch entry {
            case let .clinical(e):
                spans.append(
                    Span(
                        patientID: e.patientID,
                        label: e.kind.rawValue,
                        from: start + e.start,
                        to: start + e.start + Swift.max(e.duration, width),
                        isFault: false
                    )
                )
            case let .fault(f):
                spans.append(
                    Span(
                        patientID: owner[f.deviceID] ?? "",
                        label: "\(f.kind.rawValue) \(f.deviceID)",
                        from: start + f.start,
                        to: start + f.start + Swift.max(f.duration, width),
                        isFault: true
                    )
                )
            }
        }
        return ScenarioChart(start: start, end: end, patients: scenario.patients.map(\.id), series: series, spans: spans)
    }
}
