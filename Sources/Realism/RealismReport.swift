import Foundation
import VitalSimCore

/// `vitalsim stats`: realism statistics of a generated run, read back from its `readings.jsonl`.
///
/// Reports per device: HRV in 5-minute windows (SDNN, RMSSD, pNN50, LF/HF, and how many windows
/// look like AF), CGM time in ranges, MARD against plasma ground truth and the CGM–plasma lag,
/// and alert-relevant episodes (CGM < 70 / < 54 for ≥ 15 min, SpO2 below 90 %, BP > 180 and/or
/// > 120, HR > 100 or < 50 sustained 10 min, temperature ≥ 38.0 °C, weight loss > 30 g in 24 h).
package struct RealismReport {
    struct Row {
        var kind: String
        var device: String
        var patient: String
        var t: Int64
        var value: Double
        var truth: Double
        var obj: [String: Any]
    }

    package let lines: [String]
    package let json: JSONValue

    /// Reads `directory/readings.jsonl`.
    package init(directory: String) throws {
        let path = directory + "/readings.jsonl"
        let text = try FileText.read(path)
        var rows: [Row] = []
        for (n, line) in text.split(separator: "\n").enumerated() {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let kind = o["kind"] as? String, let device = o["device"] as? String, let patient = o["patient"] as? String,
                let v = o["virtualMs"] as? [String: Any], let t = (v["measured"] as? NSNumber)?.int64Value
            else {
                throw ReportError.badLine(path: path, line: n + 1)
            }
            if let d = o["delivery"] as? [String], d.contains(where: { $0.hasPrefix("corrupt") || $0 == "duplicate" }) { continue }
            rows.append(
                Row(
                    kind: kind,
                    device: device,
                    patient: patient,
                    t: t,
                    value: (o["value"] as? NSNumber)?.doubleValue ?? .nan,
                    truth: (o["truth"] as? NSNumber)?.doubleValue ?? .nan,
                    obj: o
                )
            )
        }
        var lines: [String] = []
        var devices: [JSONValue] = []
        var order: [String] = []
        var byDevice: [String: [Row]] = [:]
        for r in rows where r.kind != "battery" && r.kind != "cuff-pressure" {
            let key = r.device + "\u{0}" + r.kind
            if byDevice[key] == nil { order.append(key) }
            byDevice[key, default: []].append(r)
        }
        for d in order {
            var rs = byDevice[d]!
            rs.sort { $0.t < $1.t }
            let (text, j) = RealismReport.analyze(device: rs[0].device, rows: rs)
            lines += text
            devices.append(j)
        }
        self.lines = lines
        json = .object([("devices", .array(devices))])
    }

    package enum ReportError: Error, CustomStringConvertible {
        case badLine(path: String, line: Int)
        package var description: String {
            switch self {
            case let .badLine(p, l): "\(p):\(l): not a readings.jsonl record (needs kind, device, patient, virtualMs.measured)"
            }
        }
    }

    static func f(_ x: Double, _ digits: Int = 1) -> String {
        guard x.isFinite else { return "n/a" }
        var p = 1.0
        for _ in 0..<digits { p *= 10 }
        let v = (x * p).rounded() / p
        return digits == 0 ? String(Int64(v)) : String(v)
    }

    static func analyze(device: String, rows: [Row]) -> ([String], JSONValue) {
        let kind = rows[0].kind
        let head = "\(rows[0].patient)/\(device) [\(kind)] \(rows.count) readings"
        var out: [String] = [head]
        var o: [(String, JSONValue)] = [
            ("patient", .string(rows[0].patient)), ("device", .string(device)), ("kind", .string(kind)),
            ("readings", .int(Int64(rows.count))),
        ]
        switch kind {
        case "heart-rate":
            var rr: [(Int64, Double)] = []
            for r in rows { for x in (r.obj["rrIntervals"] as? [NSNumber]) ?? [] { rr.append((r.t, x.doubleValue / 1024)) } }
            if !rr.isEmpty {
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
                out.append(
                    "  HRV (median of \(sinus.count) sinus 5-min windows): mean HR \(f(60000 / med(\.meanNN))) bpm, SDNN \(f(med(\.sdnn))) ms, RMSSD \(f(med(\.rmssd))) ms, pNN50 \(f(med(\.pnn50))) %, LF/HF \(f(med(\.lfHf), 2))"
                )
                out.append("  irregular (AF-like) windows: \(af) of \(windows.count)")
                o += [
                    ("sdnn", .double(med(\.sdnn))), ("rmssd", .double(med(\.rmssd))), ("pnn50", .double(med(\.pnn50))),
                    ("lfHf", .double(med(\.lfHf))),
                    ("afWindows", .int(Int64(af))), ("windows", .int(Int64(windows.count))),
                ]
            }
            let hi = episodes(rows, minMs: 600_000) { $0 > 100 }
            let lo = episodes(rows, minMs: 600_000) { $0 < 50 }
            out.append("  episodes: HR > 100 for ≥ 10 min: \(hi.count); HR < 50 for ≥ 10 min: \(lo.count)")
            o += [("tachycardiaEpisodes", .int(Int64(hi.count))), ("bradycardiaEpisodes", .int(Int64(lo.count)))]
        case "cgm", "glucose":
            let v = rows.map(\.value)
            let n = Double(v.count)
            let tir = 100 * Double(v.filter { $0 >= 70 && $0 <= 180 }.count) / n
            let tbr = 100 * Double(v.filter { $0 < 70 }.count) / n
            let tbr54 = 100 * Double(v.filter { $0 < 54 }.count) / n
            let tar = 100 * Double(v.filter { $0 > 180 }.count) / n
            let inRange = rows.filter { $0.value > 40 && $0.value < 400 && $0.truth > 0 }
            let mard = 100 * inRange.map { abs($0.value - $0.truth) / $0.truth }.reduce(0, +) / Double(max(1, inRange.count))
            out.append("  TIR 70–180 \(f(tir)) %, <70 \(f(tbr)) %, <54 \(f(tbr54)) %, >180 \(f(tar)) %; MARD vs plasma \(f(mard)) %")
            o += [
                ("timeInRange", .double(tir)), ("timeBelow70", .double(tbr)), ("timeBelow54", .double(tbr54)),
                ("timeAbove180", .double(tar)), ("mard", .double(mard)),
            ]
            if kind == "cgm" {
                let lag = bestLag(rows)
                let l1 = episodes(rows, minMs: 15 * 60_000) { $0 < 70 }
                let l2 = episodes(rows, minMs: 15 * 60_000) { $0 < 54 }
                out.append(
                    "  CGM lag behind plasma \(f(lag, 0)) min; episodes < 70 for ≥ 15 min: \(l1.count), < 54 for ≥ 15 min: \(l2.count)"
                )
                o += [("lagMinutes", .double(lag)), ("level1Episodes", .int(Int64(l1.count))), ("level2Episodes", .int(Int64(l2.count)))]
            }
        case "spo2":
            let low = episodes(rows, minMs: 60_000) { $0 < 90 }
            out.append(
                "  SpO2 median \(f(median(rows.map(\.value)))) %, min \(f(rows.map(\.value).min() ?? .nan, 0)) %; readings < 90 %: \(rows.filter { $0.value < 90 }.count)"
            )
            o += [
                ("median", .double(median(rows.map(\.value)))), ("below90", .int(Int64(rows.filter { $0.value < 90 }.count))),
                ("below90Episodes", .int(Int64(low.count))),
            ]
        case "blood-pressure":
            let crisis = rows.filter {
                (($0.obj["systolic"] as? NSNumber)?.doubleValue ?? 0) > 180 || (($0.obj["diastolic"] as? NSNumber)?.doubleValue ?? 0) > 120
            }
            out.append(
                "  readings > 180 and/or > 120 mmHg: \(crisis.count); mean systolic \(f(rows.map(\.value).reduce(0, +) / Double(rows.count)))"
            )
            o.append(("crisisReadings", .int(Int64(crisis.count))))
        case "temperature":
            let fever = rows.filter { $0.value >= 38.0 }
            out.append(
                "  range \(f(rows.map(\.value).min() ?? .nan)) – \(f(rows.map(\.value).max() ?? .nan)) °C; readings ≥ 38.0 °C: \(fever.count)"
            )
            o.append(("feverReadings", .int(Int64(fever.count))))
        case "weight":
            var losses = 0
            for i in rows.indices {
                if let j = rows.firstIndex(where: { $0.t >= rows[i].t + 86_400_000 - 3_600_000 }), j < rows.count,
                    (rows[i].value - rows[j].value) * 1000 > 30
                {
                    losses += 1
                }
            }
            out.append("  \(f(rows.first!.value, 3)) → \(f(rows.last!.value, 3)) kg; 24-h losses > 30 g: \(losses)")
            o.append(("losses30g24h", .int(Int64(losses))))
        default:
            out.append("  values \(f(rows.map(\.value).min() ?? .nan)) – \(f(rows.map(\.value).max() ?? .nan))")
        }
        return (out, .object(o))
    }

    static func median(_ v: [Double]) -> Double {
        guard !v.isEmpty else { return .nan }
        let s = v.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// Episodes where `cond` holds on consecutive readings for at least `minMs`.
    static func episodes(_ rows: [Row], minMs: Int64, _ cond: (Double) -> Bool) -> [(Int64, Int64)] {
        var out: [(Int64, Int64)] = []
        var start: Int64?
        var last: Int64 = 0
        for r in rows {
            if cond(r.value) {
                if start == nil { start = r.t }
                last = r.t
            } else {
                if let s = start, last - s >= minMs { out.append((s, last)) }
                start = nil
            }
        }
        if let s = start, last - s >= minMs { out.append((s, last)) }
        return out
    }

    /// The shift (minutes, 0–30) of the CGM series that best matches plasma truth (max correlation).
    static func bestLag(_ rows: [Row]) -> Double {
        guard rows.count > 20 else { return .nan }
        let step = max(1, (rows[1].t - rows[0].t) / 60_000)
        var best = (0.0, -2.0)
        for k in 0...Int(30 / step) {
            let a = rows.dropFirst(k).map(\.value)
            let b = rows.dropLast(k).map(\.truth)
            let c = correlation(Array(a), Array(b))
            if c > best.1 { best = (Double(Int64(k) * step), c) }
        }
        return best.0
    }

    /// Pearson correlation of the common prefix of `a` and `b` (−2 when undefined).
    package static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(min(a.count, b.count))
        guard n > 2 else { return -2 }
        let ma = a.reduce(0, +) / n
        let mb = b.reduce(0, +) / n
        var sab = 0.0
        var saa = 0.0
        var sbb = 0.0
        for i in 0..<Int(n) {
            sab += (a[i] - ma) * (b[i] - mb)
            saa += (a[i] - ma) * (a[i] - ma)
            sbb += (b[i] - mb) * (b[i] - mb)
        }
        return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : -2
    }
}
