import Foundation
import VitalSimCore

/// The report of one device: console lines and JSON fields, filled by the analysis of its kind.
struct DeviceSummary {
    var lines: [String]
    var fields: [(String, JSONValue)]
}

/// The analysis of each reading kind.
extension RealismReport {
    static func heartRate(_ rows: [Row], into summary: inout DeviceSummary) {
        var rr: [(Int64, Double)] = []
        for r in rows { for x in (r.obj["rrIntervals"] as? [NSNumber]) ?? [] { rr.append((r.t, x.doubleValue / 1024)) } }
        if !rr.isEmpty { heartRateVariability(rr, into: &summary) }
        let hi = episodes(rows, minMs: 600_000) { $0 > 100 }
        let lo = episodes(rows, minMs: 600_000) { $0 < 50 }
        summary.lines.append("  episodes: HR > 100 for ≥ 10 min: \(hi.count); HR < 50 for ≥ 10 min: \(lo.count)")
        summary.fields += [("tachycardiaEpisodes", .int(Int64(hi.count))), ("bradycardiaEpisodes", .int(Int64(lo.count)))]
    }

    /// HRV metrics in 5-minute windows of RR intervals (time in ms, interval in s).
    static func heartRateVariability(_ rr: [(Int64, Double)], into summary: inout DeviceSummary) {
        var windows: [HRVMetrics] = []
        var start = rr[0].0
        var cur: [Double] = []
        for (t, v) in rr {
            if t - start >= 300_000 {
                if let m = HRVMetrics.compute(cur) { windows.append(m) }
                cur = []
                start = t
            }
            cur.append(v)
        }
        let sinus = windows.filter { !($0.pnn50 > 40 && $0.rmssd / $0.meanNN > 0.1) }
        let af = windows.count - sinus.count
        func med(_ k: KeyPath<HRVMetrics, Double>) -> Double { median(sinus.map { $0[keyPath: k] }) }
        summary.lines.append(
            "  HRV (median of \(sinus.count) sinus 5-min windows): mean HR \(f(60000 / med(\.meanNN))) bpm, "
                + "SDNN \(f(med(\.sdnn))) ms, RMSSD \(f(med(\.rmssd))) ms, pNN50 \(f(med(\.pnn50))) %, LF/HF \(f(med(\.lfHf), 2))"
        )
        summary.lines.append("  irregular (AF-like) windows: \(af) of \(windows.count)")
        summary.fields += [
            ("sdnn", .double(med(\.sdnn))), ("rmssd", .double(med(\.rmssd))), ("pnn50", .double(med(\.pnn50))),
            ("lfHf", .double(med(\.lfHf))),
            ("afWindows", .int(Int64(af))), ("windows", .int(Int64(windows.count))),
        ]
    }

    static func glucose(_ rows: [Row], continuous: Bool, into summary: inout DeviceSummary) {
        let v = rows.map(\.value)
        let n = Double(v.count)
        let tir = 100 * Double(v.filter { $0 >= 70 && $0 <= 180 }.count) / n
        let tbr = 100 * Double(v.filter { $0 < 70 }.count) / n
        let tbr54 = 100 * Double(v.filter { $0 < 54 }.count) / n
        let tar = 100 * Double(v.filter { $0 > 180 }.count) / n
        let inRange = rows.filter { $0.value > 40 && $0.value < 400 && $0.truth > 0 }
        let mard = 100 * inRange.map { abs($0.value - $0.truth) / $0.truth }.reduce(0, +) / Double(max(1, inRange.count))
        summary.lines.append("  TIR 70–180 \(f(tir)) %, <70 \(f(tbr)) %, <54 \(f(tbr54)) %, >180 \(f(tar)) %; MARD vs plasma \(f(mard)) %")
        summary.fields += [
            ("timeInRange", .double(tir)), ("timeBelow70", .double(tbr)), ("timeBelow54", .double(tbr54)),
            ("timeAbove180", .double(tar)), ("mard", .double(mard)),
        ]
        guard continuous else { return }
        let lag = bestLag(rows)
        let l1 = episodes(rows, minMs: 15 * 60_000) { $0 < 70 }
        let l2 = episodes(rows, minMs: 15 * 60_000) { $0 < 54 }
        summary.lines.append(
            "  CGM lag behind plasma \(f(lag, 0)) min; episodes < 70 for ≥ 15 min: \(l1.count), < 54 for ≥ 15 min: \(l2.count)"
        )
        summary.fields += [
            ("lagMinutes", .double(lag)), ("level1Episodes", .int(Int64(l1.count))), ("level2Episodes", .int(Int64(l2.count))),
        ]
    }

    static func spo2(_ rows: [Row], into summary: inout DeviceSummary) {
        let low = episodes(rows, minMs: 60_000) { $0 < 90 }
        let values = rows.map(\.value)
        let below90 = rows.filter { $0.value < 90 }.count
        summary.lines.append("  SpO2 median \(f(median(values))) %, min \(f(values.min() ?? .nan, 0)) %; readings < 90 %: \(below90)")
        summary.fields += [
            ("median", .double(median(values))), ("below90", .int(Int64(below90))), ("below90Episodes", .int(Int64(low.count))),
        ]
    }

    static func bloodPressure(_ rows: [Row], into summary: inout DeviceSummary) {
        let crisis = rows.filter {
            (($0.obj["systolic"] as? NSNumber)?.doubleValue ?? 0) > 180 || (($0.obj["diastolic"] as? NSNumber)?.doubleValue ?? 0) > 120
        }
        let meanSystolic = rows.map(\.value).reduce(0, +) / Double(rows.count)
        summary.lines.append("  readings > 180 and/or > 120 mmHg: \(crisis.count); mean systolic \(f(meanSystolic))")
        summary.fields.append(("crisisReadings", .int(Int64(crisis.count))))
    }

    static func temperature(_ rows: [Row], into summary: inout DeviceSummary) {
        let fever = rows.filter { $0.value >= 38.0 }
        let values = rows.map(\.value)
        summary.lines.append("  range \(f(values.min() ?? .nan)) – \(f(values.max() ?? .nan)) °C; readings ≥ 38.0 °C: \(fever.count)")
        summary.fields.append(("feverReadings", .int(Int64(fever.count))))
    }

    static func weight(_ rows: [Row], into summary: inout DeviceSummary) {
        var losses = 0
        for i in rows.indices {
            if let j = rows.firstIndex(where: { $0.t >= rows[i].t + 86_400_000 - 3_600_000 }), j < rows.count,
                (rows[i].value - rows[j].value) * 1000 > 30
            {
                losses += 1
            }
        }
        summary.lines.append("  \(f(rows.first!.value, 3)) → \(f(rows.last!.value, 3)) kg; 24-h losses > 30 g: \(losses)")
        summary.fields.append(("losses30g24h", .int(Int64(losses))))
    }
}
