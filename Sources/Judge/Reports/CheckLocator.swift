import VitalSimCore
import Yams

/// A line of a file a check's expectation comes from, for CI annotations and reports.
package struct SourceLocation: Sendable, Codable, Equatable {
    /// The path as the run was given it (relative to where it ran, as CI annotations want it).
    package var file: String
    /// 1-based.
    package var line: Int

    package init(file: String, line: Int) {
        self.file = file
        self.line = line
    }
}

/// Where each check's expectation is written: the golden file's line of an expected alert (its
/// alert, evidence, recipients and care-action checks), of an expected rejection, of a latency
/// budget, of the traffic digest; the `alerts:` list for alerts nobody expected; the scenario's
/// line of the patient a check names (stored data, access, acceptance of a valid reading); else the
/// scenario's first line. Files that do not parse give first lines, never an error.
package struct CheckLocator: Sendable {
    let goldenPath: String
    let scenarioPath: String
    var alertLines: [String: Int] = [:]
    var validationLines: [String: Int] = [:]
    var budgetLines: [String: Int] = [:]
    var alertListLine = 1
    var digestLine = 1
    var patientLines: [String: Int] = [:]

    /// A locator for one scenario's checks from its golden file's and scenario file's text.
    package init(goldenPath: String, goldenText: String, scenarioPath: String, scenarioText: String) {
        self.goldenPath = goldenPath
        self.scenarioPath = scenarioPath
        if let top = (try? Yams.compose(yaml: goldenText))?.flatMap(\.mapping) { readGolden(top) }
        if let top = (try? Yams.compose(yaml: scenarioText))?.flatMap(\.mapping),
            let patients = top["patients"]?.sequence
        {
            for p in patients {
                if let id = p.mapping?["id"]?.string { patientLines[id] = Self.line(p) }
            }
        }
    }

    static func line(_ node: Node) -> Int { node.mark?.line ?? 1 }

    /// The line of each expectation of the golden file, as the judge names its checks.
    mutating func readGolden(_ top: Node.Mapping) {
        for (key, _) in top {
            switch key.string {
            case "trafficDigest": digestLine = Self.line(key)
            case "alerts": alertListLine = Self.line(key)
            default: break
            }
        }
        let items = (top["alerts"]?.sequence ?? []).compactMap { item -> (rule: String, patient: String, line: Int)? in
            guard let m = item.mapping, let rule = m["rule"]?.string, let patient = m["patient"]?.string else {
                return nil
            }
            return (rule, patient, Self.line(item))
        }
        for (subject, item) in zip(Verdict.alertSubjects(items.map { ($0.rule, $0.patient) }), items) {
            alertLines[subject] = item.line
        }
        for item in top["validation"]?.sequence ?? [] {
            if let reading = item.mapping?["reading"]?.string { validationLines[reading] = Self.line(item) }
        }
        for (key, value) in top["budgets"]?.mapping ?? [:] {
            if let path = key.string { budgetLines[path] = Self.line(value) }
        }
    }

    /// Where `check`'s expectation is written.
    package func location(of check: Check) -> SourceLocation {
        let golden = { (line: Int) in SourceLocation(file: goldenPath, line: line) }
        let scenario = { (line: Int) in SourceLocation(file: scenarioPath, line: line) }
        let name = check.name
        switch check.kind {
        case .traffic: return golden(digestLine)
        case .noOtherAlerts: return golden(alertListLine)
        case .budget:
            let path = name.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            return golden(budgetLines[path] ?? 1)
        case .validation, .refusedField:
            let reading = Verdict.reading(named: name)
            if let line = validationLines[reading] { return golden(line) }
            let patient = reading.split(separator: "/").first.map(String.init) ?? ""
            return scenario(patientLines[patient] ?? 1)
        case .alert, .evidence, .recipients, .careAction:
            // The longest subject the name mentions (`… patient 5` is a prefix of `… patient 50`).
            let subjects = alertLines.keys.filter { Self.mentions(name, $0) }.sorted { $0.count > $1.count }
            if let subject = subjects.first, let line = alertLines[subject] { return golden(line) }
            return check.kind == .alert ? golden(alertListLine) : patientLocation(name, scenario)
        case .storedData, .access, .audit, .delivery, .waiver:
            return patientLocation(name, scenario)
        }
    }

    /// The scenario's line of the patient a check's name mentions, else its first line.
    func patientLocation(_ name: String, _ scenario: (Int) -> SourceLocation) -> SourceLocation {
        let words = name.split(separator: " ").map(String.init)
        for (i, word) in words.enumerated() where word == "patient" && i + 1 < words.count {
            if let line = patientLines[words[i + 1]] { return scenario(line) }
        }
        return scenario(1)
    }

    /// Whether a check's name is about `subject` as a whole word sequence.
    static func mentions(_ name: String, _ subject: String) -> Bool {
        name.hasSuffix(" " + subject) || name.contains(" " + subject + " ") || name == subject
    }

    /// The verdicts with each check's location set, by scenario name (scenarios without sources keep none).
    package static func locate(_ verdicts: [Verdict], with locators: [String: CheckLocator]) -> [Verdict] {
        verdicts.map { v in
            guard let locator = locators[v.scenario] else { return v }
            var v = v
            for i in v.checks.indices { v.checks[i].location = locator.location(of: v.checks[i]) }
            return v
        }
    }

    /// Where a scenario that could not be judged is: its scenario file.
    package var scenarioFile: SourceLocation { SourceLocation(file: scenarioPath, line: 1) }
}
