import Foundation
import Histogram
import RunRecord
import VitalSimCore

/// A run's verdicts as reports: JUnit XML (``JUnitReport``, through FoundationXML), JSON, and a
/// console summary, with the gate's notes and what was tested.
package struct RunReport: Sendable {
    package let verdicts: [Verdict]
    /// The gate's notes (waivers, baselines), shown after the verdicts.
    package let notes: [String]
    /// What was tested (the SUT, its profile, the suite), when known.
    package let about: RunDescription?

    package init(_ verdicts: [Verdict], notes: [String] = [], about: RunDescription? = nil) {
        self.verdicts = verdicts
        self.notes = notes
        self.about = about
    }

    /// JUnit XML: a `testsuite` per scenario, a `testcase` per check (``JUnitReport``).
    package var junit: String { JUnitReport(verdicts: verdicts, about: about).xml }

    /// The verdicts as JSON.
    package var json: String {
        func num(_ d: Double) -> JSONValue {
            d == d.rounded() && abs(d) < 1e15 ? .int(Int64(d)) : .double((d * 1000).rounded() / 1000)
        }
        let items: [JSONValue] = verdicts.map { v in
            var fields: [(String, JSONValue)] = [("scenario", .string(v.scenario)), ("passed", .bool(v.passed))]
            if let error = v.error { fields.append(("error", .string(error))) }
            if let contract = v.contract { fields.append(("contract", contract.json)) }
            return .object(
                fields + [
                    (
                        "readings",
                        .object([
                            ("acknowledged", .int(Int64(v.acknowledged))), ("rejected", .int(Int64(v.rejected))),
                            ("failed", .int(Int64(v.failed))),
                        ])
                    ),
                    (
                        "httpVersions",
                        .object(v.httpVersions.keys.sorted().map { ($0, .int(Int64(v.httpVersions[$0]!))) })
                    ),
                    (
                        "latencyMilliseconds",
                        .object(
                            v.latency.keys.sorted { $0.rawValue < $1.rawValue }.map { path in
                                (
                                    path.rawValue,
                                    .object(
                                        (v.latency[path] ?? [:]).keys.sorted().map { ($0, num(v.latency[path]![$0]!)) }
                                    )
                                )
                            }
                        )
                    ),
                    ("areas", areasJSON(v)),
                    ("alerts", alertsJSON(v)),
                    ("latencyHistograms", latencyHistogramsJSON(v)),
                    ("alertPollCycleMs", v.merging.alertPollCycle.map { .double($0) } ?? .null),
                    ("harnessTimerLateMs", harnessTimerJSON(v, num)),
                    (
                        "checks",
                        .array(
                            v.checks.map { c in
                                var f: [(String, JSONValue)] = [
                                    ("id", .string(c.id(in: v.scenario))), ("kind", .string(c.kind.rawValue)),
                                    ("name", .string(c.name)), ("level", .string(c.level.rawValue)),
                                    ("passed", .bool(c.passed)),
                                ]
                                if let rule = c.rule { f.append(("rule", .string(rule))) }
                                f.append(("requirements", .array(c.requirements.map { .string($0) })))
                                if let finding = c.finding { f.append(("finding", .string(finding.rawValue))) }
                                if let excuse = c.excuse {
                                    f.append(("excused", .string(excuse.label)))
                                    f.append(("excuse", .string(excuse.explanation)))
                                }
                                if c.skipped { f.append(("skipped", .bool(true))) }
                                f.append(("detail", .string(c.detail)))
                                if let at = c.location {
                                    f.append(("file", .string(at.file)))
                                    f.append(("line", .int(Int64(at.line))))
                                }
                                return .object(f)
                            }
                        )
                    ),
                ]
            )
        }
        let passed = verdicts.allSatisfy(\.passed)
        var top: [(String, JSONValue)] = [("passed", .bool(passed))]
        if let about { top.append(("run", .object(about.fields.map { ($0.key, .string($0.value)) }))) }
        let contracts = verdicts.compactMap(\.contract)
        if !contracts.isEmpty { top.append(("contract", SUTContract.merged(contracts).json)) }
        if !notes.isEmpty { top.append(("notes", .array(notes.map { .string($0) }))) }
        return JSONValue.object(top + [("scenarios", .array(items))]).serialized() + "\n"
    }

    /// How late the harness's own timer woke through the run (its hiccup meter,
    /// ``RunObservation/hiccups``: ms at each reported percentile, and `count`, the wake-ups): a few
    /// ms when the harness kept its schedule, whatever the SUT did; null when the run was not metered.
    func harnessTimerJSON(_ v: Verdict, _ num: (Double) -> JSONValue) -> JSONValue {
        guard let hiccups = v.merging.hiccups, hiccups.totalCount > 0 else { return .null }
        let summary = hiccups.summary
        return .object(summary.keys.sorted().map { ($0, num(summary[$0] ?? 0)) })
    }

    /// Each conformance area's row (``ConformanceRegistry/rows(of:)``): its checks, how many failed
    /// and were skipped, its findings and what they were about, in the registry's order.
    func areasJSON(_ v: Verdict) -> JSONValue {
        .array(
            ConformanceRegistry.standard.rows(of: v).map { row in
                .object([
                    ("name", .string(row.name)), ("title", .string(row.title)), ("checks", .int(Int64(row.checks))),
                    ("failed", .int(Int64(row.failed))), ("skipped", .int(Int64(row.skipped))),
                    ("findings", .object(row.findings.map { ($0.finding.rawValue, .int(Int64($0.count))) })),
                    ("about", .string(row.about)),
                ])
            }
        )
    }

    /// The areas of a judged verdict in one console line: each area's passed and total checks and
    /// its findings.
    func areasLine(_ v: Verdict) -> String {
        let rows = ConformanceRegistry.standard.rows(of: v).map { row in
            "\(row.title) \(row.checks - row.failed)/\(row.checks)"
                + (row.findings.isEmpty
                    ? ""
                    : " (" + row.findings.map { "\($0.finding.rawValue) ×\($0.count)" }.joined(separator: ", ") + ")")
        }
        return "  areas: " + rows.joined(separator: "; ") + "\n"
    }

    /// The alerts the SUT raised: id, rule, patient, severity, when, the readings it cites and the
    /// W3C trace ids of the requests that carried them.
    func alertsJSON(_ v: Verdict) -> JSONValue {
        .array(
            v.alerts.map { a in
                .object([
                    ("id", .string(a.alertID)), ("rule", .string(a.rule)), ("patient", .string(a.patientID)),
                    ("severity", .string(a.severity)), ("raisedAt", .string(Verdict.iso(a.raisedAt))),
                    ("evidence", .array(a.evidence.map { .string($0) })),
                    ("traceIds", .array((v.alertTraces[a.alertID] ?? []).map { .string($0) })),
                ])
            }
        )
    }

    /// The measured distributions (`[[µs, count], …]` per path) that `vitalsim compare` and
    /// `--baseline` test a later run's against.
    func latencyHistogramsJSON(_ v: Verdict) -> JSONValue {
        .object(
            v.merging.histograms.keys.sorted().map { path in
                let bins = v.merging.histograms[path].map(LatencyDistribution.init)?.bins ?? []
                return (path.rawValue, .array(bins.map { .array([.int(Int64($0.value)), .int(Int64($0.count))]) }))
            }
        )
    }

    /// Console lines: one per scenario, every failed check, every excused finding (warnings, waived,
    /// known) and a count of not-applicable checks, latency figures; `notes` from the gate at the end.
    package func console(colour: Bool) -> String {
        func paint(_ s: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        var out = ""
        for v in verdicts {
            if let error = v.error {
                out += paint("ERROR", "35") + " \(v.scenario): not judged: \(error)\n"
                continue
            }
            let failed = v.checks.filter { !$0.passed }
            out +=
                (v.passed ? paint("PASS", "32") : paint("FAIL", "31"))
                + " \(v.scenario): \(v.checks.count - failed.count)/\(v.checks.count) checks, "
                + "\(v.acknowledged) readings acknowledged, \(v.rejected) rejected, \(v.failed) failed"
                + (v.httpVersions.isEmpty
                    ? ""
                    : " ("
                        + v.httpVersions.keys.sorted().map { "HTTP/\($0): \(v.httpVersions[$0]!) requests" }.joined(
                            separator: ", "
                        )
                        + ")") + "\n"
            out += areasLine(v)
            for c in failed {
                out += "  " + paint(c.finding?.rawValue ?? "", "33") + " \(c.name): \(c.detail)\n"
                if !c.requirements.isEmpty { out += "    verifies \(c.requirements.joined(separator: ", "))\n" }
            }
            for c in v.checks where c.finding != nil && c.excuse != nil && !c.isNotApplicable {
                out += "  \(c.excuse!.label) \(c.finding!.rawValue) \(c.name): \(c.detail) (\(c.excuse!.explanation))\n"
            }
            let notApplicable = v.checks.filter(\.isNotApplicable).count
            if notApplicable > 0 {
                out +=
                    "  \(notApplicable) check(s) not applicable: about what the SUT's conformance statement does not claim\n"
            }
            for c in v.checks where c.skipped { out += "  skipped \(c.name): \(c.detail)\n" }
            for path in v.latencyPaths {
                guard let latency = v.latency[path], let count = latency["count"], count > 0 else { continue }
                out +=
                    "  \(path.rawValue): "
                    + String(
                        format: "p50 %.2f ms, p90 %.2f, p99 %.2f, p99.9 %.2f, max %.2f (%d samples)\n",
                        latency["p50"] ?? 0,
                        latency["p90"] ?? 0,
                        latency["p99"] ?? 0,
                        latency["p99.9"] ?? 0,
                        latency["max"] ?? 0,
                        Int(count)
                    )
            }
        }
        let contracts = verdicts.compactMap(\.contract)
        if !contracts.isEmpty {
            out += "SUT contract" + (contracts.count > 1 ? " (\(contracts.count) scenarios)" : "") + ":\n"
            for line in SUTContract.merged(contracts).lines(allBodies: false) { out += "  \(line)\n" }
        }
        for note in notes { out += "note: \(note)\n" }
        if let about { out += "tested: " + about.lines.joined(separator: "; ") + "\n" }
        let total = verdicts.count
        let passed = verdicts.filter(\.passed).count
        let all = verdicts.flatMap(\.checks).filter { $0.finding != nil }
        var excused: [String] = []
        for label in ["warning", "waived", "known", "not-applicable"] {
            let count = all.filter { $0.excuse?.label == label }.count
            if count > 0 { excused.append("\(count) \(label)") }
        }
        let errors = verdicts.filter { $0.error != nil }.count
        out +=
            (passed == total ? paint("PASS", "32") : paint("FAIL", "31")) + " \(passed)/\(total) scenario(s)"
            + (excused.isEmpty ? "" : " (findings excused: \(excused.joined(separator: ", ")))")
            + (errors > 0 ? ", \(errors) not judged (exit 3)\n" : "\n")
        return out
    }
}

extension Check {
    /// Whether JUnit shows the check as skipped: one not carried out, or excused other than as a warning.
    package var showsSkipped: Bool { skipped || (excuse != nil && excuse != .warning) }

    /// Whether the check is about what the SUT's conformance statement does not claim.
    package var isNotApplicable: Bool {
        if case .notApplicable = excuse { return true }
        return false
    }
}

extension String {
    /// The text escaped for XML 1.0: the five entities, and the control characters XML forbids as `?`.
    var xmlEscaped: String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 forbids most control characters.
                if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r" {
                    out += "?"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
