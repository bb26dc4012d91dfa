import Traffic
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
        /// The signals its readings carry (a blood pressure's systolic and diastolic), so that an
        /// alert is drawn only on the charts of the signals its rule reads.
        package var signals: Set<Signal> = []

        package init(
            patientID: String,
            kind: String,
            unit: String,
            points: [(time: Int64, value: Double)],
            signals: Set<Signal> = []
        ) {
            self.patientID = patientID
            self.kind = kind
            self.unit = unit
            self.points = points
            self.signals = signals
        }
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

    package init(start: Int64, end: Int64, patients: [String], series: [Series], spans: [Span]) {
        self.start = start
        self.end = end
        self.patients = patients
        self.series = series
        self.spans = spans
    }

    /// Time buckets per series (two points each: the bucket's minimum and maximum).
    static let buckets: Int64 = 360

    /// Generates the scenario's readings (same seed as the run) and reduces them for drawing.
    package static func make(_ scenario: Scenario, seed: UInt64?) -> ScenarioChart {
        let start = scenario.startUnixMilliseconds
        let end = start + scenario.duration.milliseconds
        let width = max(1, (end - start) / buckets)
        return ScenarioChart(
            start: start,
            end: end,
            patients: scenario.patients.map(\.id),
            series: series(scenario, seed: seed, start: start, width: width),
            spans: spans(scenario, start: start, width: width)
        )
    }

    /// Each patient's vital signs, as min/max envelopes over buckets of `width` ms.
    static func series(_ scenario: Scenario, seed: UInt64?, start: Int64, width: Int64) -> [Series] {
        var order: [String] = []
        var envelopes: [String: Envelope] = [:]
        var run = ScenarioRun(scenario: scenario, seed: seed)
        while let (reading, _) = run.next() {
            switch reading.measurement {
            case .cuffPressure, .dailySummary, .battery: continue
            default: break
            }
            if reading.delivery.duplicate || reading.delivery.corruption != nil { continue }
            let key = reading.patientID + "\u{0}" + reading.kind.rawValue
            if envelopes[key] == nil {
                order.append(key)
                envelopes[key] = Envelope(
                    patientID: reading.patientID,
                    kind: reading.kind.rawValue,
                    unit: reading.measurement.unit
                )
            }
            envelopes[key]!.signals.formUnion(Oracle.signalSet(reading.measurement))
            let time = start + reading.deviceTime
            envelopes[key]!.add(reading.measurement.primaryValue, at: time, bucket: (time - start) / width)
        }
        return order.map { envelopes[$0]!.series }
    }

    /// The scenario's clinical events and device faults, each at least one bucket wide.
    static func spans(_ scenario: Scenario, start: Int64, width: Int64) -> [Span] {
        var owner: [String: String] = [:]
        for p in scenario.patients { for d in p.devices { owner[d.id] = p.id } }
        return scenario.timeline.map { entry in
            switch entry {
            case let .clinical(e):
                Span(
                    patientID: e.patientID,
                    label: e.kind.rawValue,
                    from: start + e.start,
                    to: start + e.start + Swift.max(e.duration, width),
                    isFault: false
                )
            case let .fault(f):
                Span(
                    patientID: owner[f.deviceID] ?? "",
                    label: "\(f.kind.rawValue) \(f.deviceID)",
                    from: start + f.start,
                    to: start + f.start + Swift.max(f.duration, width),
                    isFault: true
                )
            case let .scripted(s):
                Span(
                    patientID: owner[s.deviceID] ?? "",
                    label: "scripted \(s.deviceID)",
                    from: start + s.start,
                    to: start + Swift.max(s.end, s.start + width),
                    isFault: false
                )
            }
        }
    }
}

/// The minimum and maximum of one series per time bucket, with the times they occurred.
struct Envelope {
    let patientID: String
    let kind: String
    let unit: String
    var signals: Set<Signal> = []
    var buckets: [Int64: (lo: Double, hi: Double, timeOfLo: Int64, timeOfHi: Int64)] = [:]

    init(patientID: String, kind: String, unit: String) {
        self.patientID = patientID
        self.kind = kind
        self.unit = unit
    }

    mutating func add(_ v: Double, at t: Int64, bucket b: Int64) {
        if let (lo, hi, tl, th) = buckets[b] {
            buckets[b] = (Swift.min(lo, v), Swift.max(hi, v), v < lo ? t : tl, v > hi ? t : th)
        } else {
            buckets[b] = (v, v, t, t)
        }
    }

    /// Two points per bucket (one when min and max coincide), in time order.
    var series: ScenarioChart.Series {
        var points: [(Int64, Double)] = []
        for b in buckets.keys.sorted() {
            let (lo, hi, tl, th) = buckets[b]!
            if tl == th {
                points.append((tl, lo))
            } else if tl < th {
                points += [(tl, lo), (th, hi)]
            } else {
                points += [(th, hi), (tl, lo)]
            }
        }
        var series = ScenarioChart.Series(patientID: patientID, kind: kind, unit: unit, points: points)
        series.signals = signals
        return series
    }
}
