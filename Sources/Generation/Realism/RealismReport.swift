import Foundation
import VitalSimCore

/// `vitalsim stats`: realism statistics of a generated run, read back from its `readings.jsonl`.
///
/// Reports per device, judged by the patient's profile (`patients.json`): HRV in 5-minute windows
/// (SDNN, RMSSD, pNN50, LF/HF by Welch's method as hrv-analysis computes it, and how many windows
/// look like AF), CGM time in ranges, MARD against plasma ground truth and the CGM–plasma lag, and
/// the episodes the profile's rules look for (CGM < 70 / < 54 for ≥ 15 min; SpO2 below 90 %, a
/// COPD patient's below 88 %, an interstage infant's below 75 % or above 90 %; BP > 180 and/or
/// > 120; an adult's HR > 100 or < 50 sustained 10 min; temperature ≥ 38.0 °C; an infant's weight
/// loss > 30 g in 24 h, an adult's gain > 2 kg in 3 days).
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
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let kind = object["kind"] as? String, let device = object["device"] as? String,
                let patient = object["patient"] as? String,
                let values = object["virtualMs"] as? [String: Any],
                let time = (values["measured"] as? NSNumber)?.int64Value
            else {
                throw ReportError.badLine(path: path, line: n + 1)
            }
            if let tags = object["delivery"] as? [String],
                tags.contains(where: { $0.hasPrefix("corrupt") || $0 == "duplicate" })
            {
                continue
            }
            rows.append(
                Row(
                    kind: kind,
                    device: device,
                    patient: patient,
                    t: time,
                    value: (object["value"] as? NSNumber)?.doubleValue ?? .nan,
                    truth: (object["truth"] as? NSNumber)?.doubleValue ?? .nan,
                    obj: object
                )
            )
        }
        let profiles = try Self.profiles(directory: directory)
        var lines: [String] = []
        var devices: [JSONValue] = []
        var order: [String] = []
        var byDevice: [String: [Row]] = [:]
        for r in rows where r.kind != "battery" && r.kind != "cuff-pressure" {
            let key = r.device + "\u{0}" + r.kind
            if byDevice[key] == nil { order.append(key) }
            byDevice[key, default: []].append(r)
        }
        for tags in order {
            var rs = byDevice[tags]!
            rs.sort { $0.t < $1.t }
            let (text, judged) = RealismReport.analyze(device: rs[0].device, rows: rs, profile: profiles[rs[0].patient])
            lines += text
            devices.append(judged)
        }
        self.lines = lines
        json = .object([("devices", .array(devices))])
    }

    package enum ReportError: Error, CustomStringConvertible {
        case badLine(path: String, line: Int)
        case badPatients(path: String)
        package var description: String {
            switch self {
            case let .badLine(p, l):
                "\(p):\(l): not a readings.jsonl record (needs kind, device, patient, virtualMs.measured)"
            case let .badPatients(p):
                "\(p): not a patients list ({\"patients\": [{\"id\", \"profile\"}]} with a known profile)"
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

    /// Each patient's profile from `directory/patients.json` (written by `vitalsim generate`); empty
    /// for a folder without one (written before it existed): its patients are judged as adults.
    static func profiles(directory: String) throws -> [String: Profile] {
        let path = directory + "/patients.json"
        guard let text = try? FileText.read(path) else { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let list = object["patients"] as? [[String: Any]]
        else { throw ReportError.badPatients(path: path) }
        var out: [String: Profile] = [:]
        for p in list {
            guard let id = p["id"] as? String, let profile = (p["profile"] as? String).flatMap(Profile.init(rawValue:))
            else {
                throw ReportError.badPatients(path: path)
            }
            out[id] = profile
        }
        return out
    }

    static func analyze(device: String, rows: [Row], profile: Profile?) -> ([String], JSONValue) {
        let kind = rows[0].kind
        let judged = profile ?? .adult
        var summary = DeviceSummary(
            lines: [
                "\(rows[0].patient)/\(device) [\(kind)] \(rows.count) readings, \(profile?.rawValue ?? "profile unknown: judged as adult")"
            ],
            fields: [
                ("patient", .string(rows[0].patient)), ("profile", .string(judged.rawValue)),
                ("device", .string(device)),
                ("kind", .string(kind)), ("readings", .int(Int64(rows.count))),
            ]
        )
        switch kind {
        case "heart-rate": heartRate(rows, profile: judged, into: &summary)
        case "cgm", "glucose": glucose(rows, continuous: kind == "cgm", into: &summary)
        case "spo2": spo2(rows, profile: judged, into: &summary)
        case "blood-pressure": bloodPressure(rows, into: &summary)
        case "temperature": temperature(rows, into: &summary)
        case "weight": weight(rows, profile: judged, into: &summary)
        default:
            summary.lines.append(
                "  values \(f(rows.map(\.value).min() ?? .nan)) – \(f(rows.map(\.value).max() ?? .nan))"
            )
        }
        return (summary.lines, .object(summary.fields))
    }

    static func median(_ v: [Double]) -> Double {
        guard !v.isEmpty else { return .nan }
        let sorted = v.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
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
                if let begin = start, last - begin >= minMs { out.append((begin, last)) }
                start = nil
            }
        }
        if let begin = start, last - begin >= minMs { out.append((begin, last)) }
        return out
    }

    /// The shift (minutes, 0–30) of the CGM series that best matches plasma truth (max correlation).
    static func bestLag(_ rows: [Row]) -> Double {
        guard rows.count > 20 else { return .nan }
        let step = max(1, (rows[1].t - rows[0].t) / 60_000)
        var best = (0.0, -2.0)
        for k in 0...Int(30 / step) {
            let later = rows.dropFirst(k).map(\.value)
            let earlier = rows.dropLast(k).map(\.truth)
            let c = correlation(Array(later), Array(earlier))
            if c > best.1 { best = (Double(Int64(k) * step), c) }
        }
        return best.0
    }

    /// Pearson correlation of the common prefix of `a` and `b` (−2 when undefined).
    package static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let count = Double(min(a.count, b.count))
        guard count > 2 else { return -2 }
        let ma = a.reduce(0, +) / count
        let mb = b.reduce(0, +) / count
        var sab = 0.0
        var saa = 0.0
        var sbb = 0.0
        for i in 0..<Int(count) {
            sab += (a[i] - ma) * (b[i] - mb)
            saa += (a[i] - ma) * (a[i] - ma)
            sbb += (b[i] - mb) * (b[i] - mb)
        }
        return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : -2
    }
}
