import Foundation
import VitalSimCore

/// The report of one device: console lines and JSON fields, filled by the analysis of its kind.
struct DeviceSummary {
    var lines: [String]
    var fields: [(String, JSONValue)]
}

/// The analysis of each reading kind.
extension RealismReport {
    static func heartRate(_ rows: [Row], profile: Profile, into summary: inout DeviceSummary) {
        var rr: [(Int64, Double)] = []
        for r in rows {
            for x in (r.obj["rrIntervals"] as? [NSNumber]) ?? [] { rr.append((r.t, x.doubleValue / 1024)) }
        }
        if !rr.isEmpty { heartRateVariability(rr, profile: profile, into: &summary) }
        guard profile != .chdInfant else {
            let values = rows.map(\.value)
            summary.lines.append(
                "  HR median \(f(median(values))) bpm, \(f(values.min() ?? .nan, 0))–\(f(values.max() ?? .nan, 0)); "
                    + "no infant heart-rate rule (the adult > 100 / < 50 do not apply)"
            )
            summary.fields.append(("medianHeartRate", .double(median(values))))
            return
        }
        let hi = episodes(rows, minMs: 600_000) { $0 > 100 }
        let lo = episodes(rows, minMs: 600_000) { $0 < 50 }
        summary.lines.append("  episodes: HR > 100 for ≥ 10 min: \(hi.count); HR < 50 for ≥ 10 min: \(lo.count)")
        summary.fields += [
            ("tachycardiaEpisodes", .int(Int64(hi.count))), ("bradycardiaEpisodes", .int(Int64(lo.count))),
        ]
    }

    /// HRV metrics in 5-minute windows of RR intervals (time in ms, interval in s).
    /// How the HRV measures are computed, as the report names them.
    static let hrvMethods =
        "5-min windows; SDNN with n − 1; RMSSD; pNN50 over successive differences; LF/HF by Welch "
        + "(4 Hz linear resampling, 256-sample Hann segments, 50 % overlap: hrv-analysis's default)"

    static func heartRateVariability(_ rr: [(Int64, Double)], profile: Profile, into summary: inout DeviceSummary) {
        var windows: [HRVMetrics] = []
        var start = rr[0].0
        var cur: [Double] = []
        for (t, v) in rr {
            if t - start >= 300_000 {
                if let metrics = HRVMetrics.compute(cur) { windows.append(metrics) }
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
        summary.lines.append("  methods: " + hrvMethods)
        summary.lines.append(
            profile == .chdInfant
                ? "  norms: none applied (short-term adult norms do not hold for infants)"
                : "  norms (healthy adults, 5 min; Nunan et al. 2010): SDNN 32–93 ms, RMSSD 19–75 ms, LF/HF 1.1–11.6"
        )
        summary.fields += [
            ("methods", .string(hrvMethods)),
            ("sdnn", .double(med(\.sdnn))), ("rmssd", .double(med(\.rmssd))), ("pnn50", .double(med(\.pnn50))),
            ("lfHf", .double(med(\.lfHf))),
            ("afWindows", .int(Int64(af))), ("windows", .int(Int64(windows.count))),
        ]
    }

    static func glucose(_ rows: [Row], continuous: Bool, into summary: inout DeviceSummary) {
        let values = rows.map(\.value)
        let count = Double(values.count)
        let tir = 100 * Double(values.filter { $0 >= 70 && $0 <= 180 }.count) / count
        let tbr = 100 * Double(values.filter { $0 < 70 }.count) / count
        let tbr54 = 100 * Double(values.filter { $0 < 54 }.count) / count
        let tar = 100 * Double(values.filter { $0 > 180 }.count) / count
        let inRange = rows.filter { $0.value > 40 && $0.value < 400 && $0.truth > 0 }
        let mard =
            100 * inRange.map { abs($0.value - $0.truth) / $0.truth }.reduce(0, +) / Double(max(1, inRange.count))
        summary.lines.append(
            "  TIR 70–180 \(f(tir)) %, <70 \(f(tbr)) %, <54 \(f(tbr54)) %, >180 \(f(tar)) %; MARD vs plasma \(f(mard)) %"
        )
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
            ("lagMinutes", .double(lag)), ("level1Episodes", .int(Int64(l1.count))),
            ("level2Episodes", .int(Int64(l2.count))),
        ]
    }

    static func spo2(_ rows: [Row], profile: Profile, into summary: inout DeviceSummary) {
        let values = rows.map(\.value)
        summary.lines.append("  SpO2 median \(f(median(values))) %, min \(f(values.min() ?? .nan, 0)) %")
        summary.fields.append(("median", .double(median(values))))
        if profile == .chdInfant {
            // Interstage single-ventricle targets (JTCVS 2014; docs/clinical.md §5).
            let below = rows.filter { $0.value < 75 }.count
            let above = rows.filter { $0.value > 90 }.count
            summary.lines.append("  interstage infant: readings < 75 %: \(below); > 90 %: \(above)")
            summary.fields += [("below75", .int(Int64(below))), ("above90", .int(Int64(above)))]
            return
        }
        let limit = profile == .copd ? 88.0 : 90.0
        let below = rows.filter { $0.value < limit }.count
        let low = episodes(rows, minMs: 60_000) { $0 < limit }
        summary.lines.append(
            "  readings < \(f(limit, 0)) %: \(below); for ≥ 1 min: \(low.count)"
                + (profile == .copd ? " (COPD target 88–92 %)" : "")
        )
        summary.fields += [
            ("below\(Int(limit))", .int(Int64(below))), ("below\(Int(limit))Episodes", .int(Int64(low.count))),
        ]
    }

    static func bloodPressure(_ rows: [Row], into summary: inout DeviceSummary) {
        let crisis = rows.filter {
            (($0.obj["systolic"] as? NSNumber)?.doubleValue ?? 0) > 180
                || (($0.obj["diastolic"] as? NSNumber)?.doubleValue ?? 0) > 120
        }
        let meanSystolic = rows.map(\.value).reduce(0, +) / Double(rows.count)
        summary.lines.append("  readings > 180 and/or > 120 mmHg: \(crisis.count); mean systolic \(f(meanSystolic))")
        summary.fields.append(("crisisReadings", .int(Int64(crisis.count))))
    }

    static func temperature(_ rows: [Row], into summary: inout DeviceSummary) {
        let fever = rows.filter { $0.value >= 38.0 }
        let values = rows.map(\.value)
        summary.lines.append(
            "  range \(f(values.min() ?? .nan)) – \(f(values.max() ?? .nan)) °C; readings ≥ 38.0 °C: \(fever.count)"
        )
        summary.fields.append(("feverReadings", .int(Int64(fever.count))))
    }

    static func weight(_ rows: [Row], profile: Profile, into summary: inout DeviceSummary) {
        // The change from each reading to the first one at least `span` (less an hour) later.
        func changes(over span: Int64) -> [Double] {
            rows.indices.compactMap { i in
                rows.firstIndex { $0.t >= rows[i].t + span - 3_600_000 }.map { rows[$0].value - rows[i].value }
            }
        }
        let range = "  \(f(rows.first!.value, 3)) → \(f(rows.last!.value, 3)) kg"
        if profile == .chdInfant {
            let losses = changes(over: 86_400_000).filter { $0 * 1000 < -30 }.count
            summary.lines.append(range + "; 24-h losses > 30 g: \(losses)")
            summary.fields.append(("losses30g24h", .int(Int64(losses))))
        } else {
            let gains = changes(over: 3 * 86_400_000).filter { $0 > 2 }.count
            summary.lines.append(range + "; 3-day gains > 2 kg: \(gains)")
            summary.fields.append(("gains2kg3d", .int(Int64(gains))))
        }
    }
}
