import Foundation
import Histogram
import VitalSimCore

/// How an observation differs from the golden file.
public enum Finding: String, Sendable, CaseIterable {
    case missed, late, early, spurious, duplicate
    case wrongSeverity = "wrong-severity"
    case validationMismatch = "validation-mismatch"
    case budgetExceeded = "budget-exceeded"
    case lost
    case trafficChanged = "traffic-changed"
}

/// One bar of a latency histogram: readings whose latency fell in the bucket.
public struct LatencyBucket: Sendable, Equatable {
    public var label: String
    public var count: UInt64
}

/// One checked expectation: passed, or failed with its classification.
public struct Check: Sendable {
    /// `alert`, `no-other-alerts`, `validation`, `budget`, `delivery` or `traffic`.
    public var kind: String
    /// A stable name (one JUnit test case each), e.g. `alert hr.tachycardia patient 501`.
    public var name: String
    /// The clinical rule id, when the check is about one.
    public var rule: String?
    public var finding: Finding?
    public var detail: String
    public var passed: Bool { finding == nil }
}

/// A scenario's verdict: every check, the latency summaries and the delivery counts.
public struct Verdict: Sendable {
    public var scenario: String
    public var checks: [Check]
    /// Readings acknowledged, rejected (with a status), failed (no response).
    public var acknowledged = 0, rejected = 0, failed = 0
    public var latency: [String: [String: Double]] = [:]
    /// HTTP requests answered per protocol version (`1.1`, `2`).
    public var httpVersions: [String: Int] = [:]
    /// Latency distributions per path, in logarithmic buckets (for the HTML report).
    public var histograms: [String: [LatencyBucket]] = [:]
    /// The alerts the SUT raised and the golden file's expectations (for charts and audits).
    public var alerts: [ObservedAlert] = []
    public var expectedAlerts: [GoldenFile.ExpectedAlert] = []
    /// Vital signs and events to draw, when an HTML report was asked for.
    public var chart: ScenarioChart?
    public var passed: Bool { checks.allSatisfy(\.passed) }

    /// The latency paths of a verdict in report order: acknowledgement, alert (API, then each push channel), scheduling lag.
    public static func latencyPaths(_ v: Verdict) -> [String] {
        ["reading-to-ack", "reading-to-alert"] + v.latency.keys.filter { $0.hasPrefix("reading-to-alert-") }.sorted() + ["scheduling-lag"]
    }

    /// Upper bounds (ms) of the histogram buckets; the last bucket is open.
    static let bucketBounds: [Double] = [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]

    static func buckets(_ h: Histogram<UInt64>) -> [LatencyBucket] {
        var out: [LatencyBucket] = []
        var lower: UInt64 = 0
        func label(_ ms: Double) -> String { ms >= 1000 ? "\(Int(ms / 1000))s" : ms < 1 ? "\(ms)" : "\(Int(ms))" }
        for bound in bucketBounds {
            let upper = UInt64(bound * 1000)
            out.append(LatencyBucket(label: "≤" + label(bound), count: h.totalCount == 0 || upper < lower ? 0 : h.count(within: lower...upper)))
            lower = upper + 1
        }
        out.append(LatencyBucket(label: ">" + label(bucketBounds.last!), count: h.totalCount == 0 ? 0 : h.count(within: lower...UInt64.max / 2)))
        return out
    }

    /// Percentiles reported for every latency path (ms).
    static let reported: [(String, Double)] = [("p50", 50), ("p90", 90), ("p99", 99), ("p99.9", 99.9), ("max", 100)]

    static func summary(_ h: Histogram<UInt64>) -> [String: Double] {
        var out: [String: Double] = ["count": Double(h.totalCount)]
        guard h.totalCount > 0 else { return out }
        for (name, p) in reported { out[name] = Double(p >= 100 ? h.max : h.valueAtPercentile(p)) / 1000 }
        return out
    }

    /// Compares a run with its golden file.
    /// "; N request(s) answered only after retrying (longest wait X s)", or nothing.
    static func retried(_ outcomes: [RequestOutcome]) -> String {
        let late = outcomes.filter { $0.status != nil && $0.attempts > 1 }
        guard let longest = late.map(\.waited).max() else { return "" }
        return String(format: "; %d request(s) answered only after retrying (longest wait %.1f s)", late.count, longest)
    }

    public static func judge(scenario: String, golden: GoldenFile, plan: [SentRequest], digest: String, result: LiveRunResult) -> Verdict {
        var checks: [Check] = []
        if digest != golden.trafficDigest {
            checks.append(Check(kind: "traffic", name: "traffic digest", rule: nil, finding: .trafficChanged,
                                detail: "the scenario now produces different traffic (\(digest)) than when the golden file was recorded (\(golden.trafficDigest)); re-record and review"))
        }
        // Alerts: each expectation takes the best matching observed alert.
        var unused = Array(result.alerts.indices)
        var matchedKeys: Set<String> = []
        var occurrences: [String: Int] = [:]
        for e in golden.alerts {
            var name = "alert \(e.rule) patient \(e.patientID)"
            occurrences[name, default: 0] += 1
            if let n = occurrences[name], n > 1 { name += " #\(n)" }
            let candidates = unused.filter { result.alerts[$0].patientID == e.patientID && result.alerts[$0].rule == e.rule }
            guard !candidates.isEmpty else {
                checks.append(Check(kind: "alert", name: name, rule: e.rule, finding: .missed, detail: "no \(e.rule) alert for patient \(e.patientID); expected raisedAt in \(iso(e.from))…\(iso(e.to))"))
                continue
            }
            let inWindow = candidates.first { (e.from...e.to).contains(result.alerts[$0].raisedAt) }
            let pick = inWindow ?? candidates[0]
            unused.removeAll { $0 == pick }
            matchedKeys.insert(e.patientID + "\u{0}" + e.rule)
            let a = result.alerts[pick]
            if inWindow == nil {
                let late = a.raisedAt > e.to
                checks.append(Check(kind: "alert", name: name, rule: e.rule, finding: late ? .late : .early,
                                    detail: "raisedAt \(iso(a.raisedAt)) is outside the expected window \(iso(e.from))…\(iso(e.to))"))
            } else if a.severity != e.severity {
                checks.append(Check(kind: "alert", name: name, rule: e.rule, finding: .wrongSeverity, detail: "severity \(a.severity), expected \(e.severity) (alert \(a.alertID))"))
            } else {
                checks.append(Check(kind: "alert", name: name, rule: e.rule, finding: nil, detail: "raised at \(iso(a.raisedAt)) (alert \(a.alertID))"))
            }
        }
        var extras: [String] = []
        var extraFinding: Finding?
        for i in unused {
            let a = result.alerts[i]
            let dup = matchedKeys.contains(a.patientID + "\u{0}" + a.rule)
            if dup { extraFinding = .duplicate } else if extraFinding == nil { extraFinding = .spurious }
            extras.append("\(dup ? "duplicate" : "spurious") \(a.rule) for patient \(a.patientID) at \(iso(a.raisedAt)) (alert \(a.alertID))")
        }
        checks.append(Check(kind: "no-other-alerts", name: "no other alerts", rule: nil, finding: extras.isEmpty ? nil : extraFinding,
                            detail: extras.isEmpty ? "only the expected alerts were raised" : extras.joined(separator: "; ")))

        // Push channels: every alert the API lists arrived on each observed channel, and nothing else.
        let listed = Set(result.alerts.map(\.alertID))
        for p in result.push {
            let got = Set(p.firstSeen.keys)
            let missing = listed.subtracting(got).sorted(), extra = got.subtracting(listed).sorted()
            var detail = "\(got.count) alert(s) delivered via \(p.kind.rawValue)" + (p.repeats > 0 ? ", \(p.repeats) repeated delivery(ies) (at-least-once)" : "")
            if !missing.isEmpty { detail = "\(missing.count) of \(listed.count) alert(s) never arrived via \(p.kind.rawValue), first: \(missing[0])" }
            else if !extra.isEmpty { detail = "\(extra.count) alert(s) arrived via \(p.kind.rawValue) that the alert API does not list, first: \(extra[0])" }
            checks.append(Check(kind: "delivery", name: "alerts delivered via \(p.kind.rawValue)", rule: nil,
                                finding: !missing.isEmpty ? .missed : !extra.isEmpty ? .spurious : nil, detail: detail))
        }

        // Validation: expected rejections, and no other rejection.
        var v = Verdict(scenario: scenario, checks: [])
        var expected: [String: GoldenFile.ExpectedValidation] = [:]
        for e in golden.validation { expected[e.reading] = e }
        var seen: Set<String> = []
        for (i, request) in plan.enumerated() {
            let o = result.outcomes[i]
            let first = request.firstReading ?? ""
            let n = request.readingCount
            if !o.httpVersion.isEmpty { v.httpVersions[o.httpVersion, default: 0] += 1 }
            switch o.status {
            case nil: v.failed += n
            case let s? where s < 300: v.acknowledged += n
            default: v.rejected += n
            }
            if let e = expected[first], !seen.contains(first) {
                seen.insert(first)
                let ok = o.status == e.status && (o.field ?? "") == e.field
                checks.append(Check(kind: "validation", name: "rejects \(first)", rule: nil, finding: ok ? nil : .validationMismatch,
                                    detail: ok ? "\(e.status) naming field '\(e.field)'" : "expected \(e.status) naming field '\(e.field)', got \(o.status.map(String.init) ?? "no response") naming '\(o.field ?? "")'"))
            } else if let s = o.status, s >= 400, s < 500, expected[first] == nil {
                checks.append(Check(kind: "validation", name: "accepts \(first)", rule: nil, finding: .validationMismatch,
                                    detail: "a valid request was rejected with \(s) naming field '\(o.field ?? "")'"))
            }
        }
        // Readings carried over a BLE link: a gateway answers no status, so their rejections are judged
        // only through the alerts (a corrupt value that the SUT ingested may raise a spurious one).
        let overBLE = golden.validation.filter { result.ble?.carries($0.reading) == true }
        for e in golden.validation where !seen.contains(e.reading) && result.ble?.carries(e.reading) != true {
            checks.append(Check(kind: "validation", name: "rejects \(e.reading)", rule: nil, finding: .validationMismatch, detail: "the scenario no longer sends reading \(e.reading)"))
        }
        let lost = result.outcomes.enumerated().filter { $0.element.status == nil || ($0.element.status ?? 0) >= 500 }
        checks.append(Check(kind: "delivery", name: "every reading acknowledged or rejected", rule: nil, finding: lost.isEmpty ? nil : .lost,
                            detail: lost.isEmpty ? "\(v.acknowledged) acknowledged, \(v.rejected) rejected" + retried(result.outcomes) :
                                "\(lost.count) request(s) without a final answer, first: \(plan[lost[0].offset].firstReading ?? "?"): \(lost[0].element.error ?? "status \(lost[0].element.status ?? 0)")"))

        if let ble = result.ble {
            v.acknowledged += ble.sent
            v.failed += ble.notSent
            var detail = "\(ble.sent) reading(s) of \(ble.devices.joined(separator: ", ")) left their device over BLE"
            if ble.disconnects > 0 { detail += "; \(ble.disconnects) disconnect(s), \(ble.reconnects) reconnection(s)" }
            if ble.storedForRACP > 0 { detail += "; \(ble.storedForRACP) stored record(s) offered through RACP" }
            if !overBLE.isEmpty { detail += "; \(overBLE.count) expected rejection(s) of corrupt BLE values judged by their effect on alerts only (a gateway answers no status)" }
            if ble.notSent > 0 { detail = "\(ble.notSent) reading(s) never left their device: no central was subscribed to their characteristic by the end; " + detail }
            checks.append(Check(kind: "delivery", name: "every BLE reading sent to a subscribed central", rule: nil, finding: ble.notSent > 0 ? .lost : nil, detail: detail))
        }

        // Latency budgets; a budget with no samples fails.
        var histograms = ["reading-to-ack": result.ackLatency, "reading-to-alert": result.alertLatency]
        for p in result.push { histograms["reading-to-alert-\(p.kind.rawValue)"] = p.latency }
        for b in golden.budgets {
            for (p, limit) in b.limits {
                let name = "budget \(b.path) \(GoldenFile.percentileName(p)) ≤ \(GoldenFile.ms(limit)) ms"
                guard let h = histograms[b.path], h.totalCount > 0 else {
                    let hint = histograms[b.path] == nil ? " (observe the channel: vitalsim run --observe \(b.path.split(separator: "-").last ?? ""))" : ""
                    checks.append(Check(kind: "budget", name: name, rule: nil, finding: .budgetExceeded, detail: "no samples for \(b.path): a budget with nothing measured cannot pass" + hint))
                    continue
                }
                let value = Double(p >= 100 ? h.max : h.valueAtPercentile(p)) / 1000
                checks.append(Check(kind: "budget", name: name, rule: nil, finding: value <= limit ? nil : .budgetExceeded,
                                    detail: String(format: "%.2f ms over %d samples", value, h.totalCount)))
            }
        }
        v.checks = checks
        v.alerts = result.alerts
        v.expectedAlerts = golden.alerts
        v.latency = ["reading-to-ack": summary(result.ackLatency), "reading-to-alert": summary(result.alertLatency), "scheduling-lag": summary(result.schedulingLag)]
        v.histograms = ["reading-to-ack": buckets(result.ackLatency), "reading-to-alert": buckets(result.alertLatency)]
        for p in result.push {
            v.latency["reading-to-alert-\(p.kind.rawValue)"] = summary(p.latency)
            v.histograms["reading-to-alert-\(p.kind.rawValue)"] = buckets(p.latency)
        }
        return v
    }

    static func iso(_ ms: Int64) -> String { CivilTime(unixMilliseconds: ms).iso8601(fractional: true) }
}
