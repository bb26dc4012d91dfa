import VitalSimCore
import Yams

extension GoldenFile {
    /// Parses a golden file; errors name the file, line and field.
    package static func parse(_ text: String, file: String) throws(ScenarioLoadError) -> GoldenFile {
        let root = try ScenarioLoader.compose(text, file: file)
        let yamlReader = YAMLReader(file: file)
        guard
            let top = yamlReader.mapping(
                root,
                "",
                allowed: [
                    "scenario", "seed", "trafficDigest", "tolerance", "levels", "alerts", "validation", "budgets",
                ],
                required: ["scenario", "seed", "trafficDigest", "alerts"]
            )
        else { throw ScenarioLoadError(issues: yamlReader.reportedIssues) }
        var goldenFile = GoldenFile(
            scenario: top.string("scenario") ?? "",
            seed: UInt64(top.integer("seed", in: 0...Int64.max) ?? 0),
            trafficDigest: top.string("trafficDigest") ?? "",
            earlyTolerance: defaultEarly,
            lateTolerance: defaultLate,
            alerts: [],
            validation: [],
            budgets: []
        )
        if let t = top.value("tolerance"),
            let fields = yamlReader.mapping(t, "tolerance", allowed: ["early", "late"], required: ["early", "late"])
        {
            goldenFile.earlyTolerance = fields.duration("early", allowZero: true)?.milliseconds ?? defaultEarly
            goldenFile.lateTolerance = fields.duration("late", allowZero: true)?.milliseconds ?? defaultLate
        }
        if let node = top.value("levels") { goldenFile.levels = levels(node, yamlReader) }
        goldenFile.alerts = (top.list("alerts") ?? []).enumerated().compactMap { i, node in
            expectedAlert(node, index: i, yamlReader)
        }
        if top.has("validation") {
            goldenFile.validation = (top.list("validation") ?? []).enumerated().compactMap { i, node in
                expectedValidation(node, index: i, yamlReader)
            }
        }
        if let budgetsNode = top.value("budgets") {
            if case let .mapping(m) = budgetsNode {
                goldenFile.budgets = m.compactMap { k, v in budget(k, v, yamlReader) }
            } else {
                yamlReader.fail(budgetsNode, "budgets", "expected a mapping of paths to limits")
            }
        }
        guard yamlReader.issues.isEmpty else { throw ScenarioLoadError(issues: yamlReader.reportedIssues) }
        return goldenFile
    }

    /// `{ASPECT: SHALL|SHOULD, …}`.
    static func levels(_ node: Node, _ yamlReader: YAMLReader) -> [RequirementAspect: RequirementLevel] {
        let aspects = RequirementAspect.allCases.map(\.rawValue)
        guard let fields = yamlReader.mapping(node, "levels", allowed: aspects, required: []) else { return [:] }
        var out: [RequirementAspect: RequirementLevel] = [:]
        for aspect in RequirementAspect.allCases {
            guard let text = fields.string(aspect.rawValue) else { continue }
            guard let level = RequirementLevel(rawValue: text.uppercased()) else {
                yamlReader.fail(
                    fields.value(aspect.rawValue),
                    fields.path(aspect.rawValue),
                    "a level is SHALL or SHOULD, got '\(text)'"
                )
                continue
            }
            // Kept only where it departs from the default, so that a file written by `record` (which
            // states every level) parses back to the value it was written from.
            if level != aspect.defaultLevel { out[aspect] = level }
        }
        return out
    }

    /// `{patient, rule, severity, from, to}`, and optionally `recipients` and `actions`.
    static func expectedAlert(_ node: Node, index i: Int, _ yamlReader: YAMLReader) -> ExpectedAlert? {
        let keys = ["patient", "rule", "severity", "from", "to"]
        guard
            let fields = yamlReader.mapping(
                node,
                "alerts[\(i)]",
                allowed: keys + ["recipients", "withheld", "actions"],
                required: keys
            )
        else { return nil }
        guard let patientID = fields.string("patient"), let rule = fields.string("rule"),
            let sev = fields.string("severity"),
            let from = time(fields, "from", yamlReader),
            let to = time(fields, "to", yamlReader)
        else { return nil }
        guard let severity = Severity(rawValue: sev) else {
            yamlReader.fail(fields.value("severity"), fields.path("severity"), "severity must be low, medium or high")
            return nil
        }
        if to < from {
            yamlReader.fail(fields.value("to"), fields.path("to"), "to is before from")
            return nil
        }
        var alert = ExpectedAlert(patientID: patientID, rule: rule, severity: severity, from: from, to: to)
        if fields.has("recipients") { alert.recipients = recipients(fields, "recipients", yamlReader) }
        alert.withheld = fields.has("withheld") ? recipients(fields, "withheld", yamlReader) : []
        alert.actions = actions(fields, yamlReader)
        for key in ["withheld", "actions"] where fields.has(key) && alert.recipients == nil {
            yamlReader.fail(fields.value(key), fields.path(key), "\(key) go with recipients: list who is notified")
        }
        return alert
    }

    /// An alert's `recipients` or `withheld`: `[{person, after}]`, each person once.
    static func recipients(_ f: Fields, _ key: String, _ yamlReader: YAMLReader) -> [ExpectedRecipient] {
        var out: [ExpectedRecipient] = []
        for (j, node) in (f.list(key) ?? []).enumerated() {
            let path = f.path(key) + "[\(j)]"
            guard
                let fields = yamlReader.mapping(
                    node,
                    path,
                    allowed: ["person", "after"],
                    required: ["person", "after"]
                ),
                let person = fields.string("person"), let after = fields.duration("after", allowZero: true)
            else { continue }
            if out.contains(where: { $0.person == person }) {
                yamlReader.fail(fields.value("person"), fields.path("person"), "'\(person)' is listed twice")
                continue
            }
            out.append(ExpectedRecipient(person: person, after: after.milliseconds))
        }
        return out
    }

    /// An alert's `actions: [{person, action}]`.
    static func actions(_ f: Fields, _ yamlReader: YAMLReader) -> [ExpectedAction] {
        (f.list("actions") ?? []).enumerated().compactMap { j, node in
            let path = f.path("actions") + "[\(j)]"
            guard
                let fields = yamlReader.mapping(
                    node,
                    path,
                    allowed: ["person", "action"],
                    required: ["person", "action"]
                ),
                let person = fields.string("person"),
                let action = fields.choice("action", CareAction.self, what: "action")
            else { return nil }
            return ExpectedAction(person: person, action: action)
        }
    }

    /// An RFC 3339 time stamp, in Unix ms.
    static func time(_ fields: Fields, _ key: String, _ yamlReader: YAMLReader) -> Int64? {
        guard let text = fields.string(key) else { return nil }
        guard let ms = CivilTime.unixMilliseconds(rfc3339: text) else {
            yamlReader.fail(
                fields.value(key),
                fields.path(key),
                "expected an ISO-8601 time such as 2024-11-07T08:00:00.000Z"
            )
            return nil
        }
        return ms
    }

    /// `{reading, status, field}`.
    static func expectedValidation(_ node: Node, index i: Int, _ yamlReader: YAMLReader) -> ExpectedValidation? {
        let keys = ["reading", "status", "field"]
        guard let fields = yamlReader.mapping(node, "validation[\(i)]", allowed: keys, required: keys),
            let reading = fields.string("reading"),
            let status = fields.integer("status", in: 100...599)
        else { return nil }
        guard case let .scalar(s)? = fields.value("field") else {
            yamlReader.fail(fields.value("field"), fields.path("field"), "field must be a string")
            return nil
        }
        return ExpectedValidation(reading: reading, status: Int(status), field: s.string)
    }

    /// `PATH: {p50: 20ms, p99: 200ms, max: 1s}`.
    static func budget(_ key: Node, _ value: Node, _ yamlReader: YAMLReader) -> Budget? {
        let name = key.string ?? ""
        guard let path = LatencyPath(rawValue: name), LatencyPath.budgetable.contains(path) else {
            yamlReader.fail(
                key,
                "budgets." + name,
                "budget paths are " + LatencyPath.budgetable.map(\.rawValue).joined(separator: ", ")
            )
            return nil
        }
        guard case let .mapping(limits) = value else {
            yamlReader.fail(value, "budgets." + name, "expected {p50: 20ms, p99: 200ms, max: 1s}")
            return nil
        }
        var parsed: [(Double, Double)] = []
        for (pk, pv) in limits {
            let percentile = pk.string ?? ""
            let pct: Double? =
                percentile == "max" ? 100 : (percentile.hasPrefix("p") ? Double(percentile.dropFirst()) : nil)
            guard let pct, pct > 0, pct <= 100 else {
                yamlReader.fail(pk, "budgets.\(name).\(percentile)", "percentiles are written p50, p99, p99.9 or max")
                continue
            }
            guard let text = pv.string, let virtualDuration = VirtualDuration(parsing: text) else {
                yamlReader.fail(pv, "budgets.\(name).\(percentile)", "expected a duration such as 250ms or 2s")
                continue
            }
            parsed.append((pct, Double(virtualDuration.milliseconds)))
        }
        return Budget(path: path, limits: parsed.sorted { $0.0 < $1.0 })
    }
}
