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
            guard let mapping = item.mapping, let rule = mapping["rule"]?.string,
                let patient = mapping["patient"]?.string
            else {
                return nil
            }
            return (rule, patient, Self.line(item))
        }
        for (subject, item) in zip(AlertSubjects(items.map { ($0.rule, $0.patient) }).names, items) {
            alertLines[subject] = item.line
        }
        for item in top["validation"]?.sequence ?? [] {
            if let reading = item.mapping?["reading"]?.string { validationLines[reading] = Self.line(item) }
        }
        for (key, value) in top["budgets"]?.mapping ?? [:] {
            if let path = key.string { budgetLines[path] = Self.line(value) }
        }
    }

    /// Where `check`'s expectation is written: its area's word (``ConformanceArea/location(of:in:)``),
    /// else (the gate's own checks) the line of the patient it names.
    package func location(of check: Check, registry: ConformanceRegistry = .standard) -> SourceLocation {
        registry.area(of: check)?.location(of: check, in: self) ?? patient(mentionedIn: check.name)
    }

    /// The golden file's traffic digest.
    package var digest: SourceLocation { SourceLocation(file: goldenPath, line: digestLine) }

    /// The golden file's `alerts:` list.
    package var alertList: SourceLocation { SourceLocation(file: goldenPath, line: alertListLine) }

    /// The golden file's budget of latency path `path` (its first line when it has none).
    package func budget(path: String) -> SourceLocation {
        SourceLocation(file: goldenPath, line: budgetLines[path] ?? 1)
    }

    /// The golden file's expected rejection of `reading`, if it has one.
    package func expectedRejection(of reading: String) -> SourceLocation? {
        validationLines[reading].map { SourceLocation(file: goldenPath, line: $0) }
    }

    /// The golden file's expected alert a check's name is about (the longest subject it mentions:
    /// `… patient 5` is a prefix of `… patient 50`), if any.
    package func expectedAlert(mentionedIn name: String) -> SourceLocation? {
        let subjects = alertLines.keys.filter { Self.mentions(name, $0) }.sorted { $0.count > $1.count }
        guard let subject = subjects.first, let line = alertLines[subject] else { return nil }
        return SourceLocation(file: goldenPath, line: line)
    }

    /// The scenario's line of patient `id`, else its first line.
    package func patient(_ id: String) -> SourceLocation {
        SourceLocation(file: scenarioPath, line: patientLines[id] ?? 1)
    }

    /// The scenario's line of the patient a check's name mentions (`… patient P …`), else its first line.
    package func patient(mentionedIn name: String) -> SourceLocation {
        let words = name.split(separator: " ").map(String.init)
        for (i, word) in words.enumerated() where word == "patient" && i + 1 < words.count {
            if let line = patientLines[words[i + 1]] { return SourceLocation(file: scenarioPath, line: line) }
        }
        return SourceLocation(file: scenarioPath, line: 1)
    }

    /// Whether a check's name is about `subject` as a whole word sequence.
    static func mentions(_ name: String, _ subject: String) -> Bool {
        name.hasSuffix(" " + subject) || name.contains(" " + subject + " ") || name == subject
    }

    /// The verdicts with each check's location set, by scenario name (scenarios without sources keep none).
    package static func locate(_ verdicts: [Verdict], with locators: [String: CheckLocator]) -> [Verdict] {
        verdicts.map { verdict in
            guard let locator = locators[verdict.scenario] else { return verdict }
            var verdict = verdict
            for i in verdict.checks.indices { verdict.checks[i].location = locator.location(of: verdict.checks[i]) }
            return verdict
        }
    }

    /// Where a scenario that could not be judged is: its scenario file.
    package var scenarioFile: SourceLocation { SourceLocation(file: scenarioPath, line: 1) }
}
