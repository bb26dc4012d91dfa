import Foundation
import XMLCoder

/// The verdicts as JUnit XML, encoded by XMLCoder: a `testsuite` per scenario (the run's
/// description as its properties, the SUT contract as its `system-out`), a `testcase` per check
/// (its rule, level, requirement ids and excuse as properties, the golden or scenario file line of
/// its expectation as `file`/`line`); a failed check is a `failure`, a scenario not judged an
/// `error`, a check not carried out or excused other than as a warning `skipped`.
enum JUnitReport {
    struct Suites: Encodable, DynamicNodeEncoding {
        var name = "vitalsim"
        var tests: Int, failures: Int, errors: Int, skipped: Int
        var testsuite: [Suite]

        static func nodeEncoding(for key: any CodingKey) -> XMLEncoder.NodeEncoding {
            key.stringValue == "testsuite" ? .element : .attribute
        }
    }

    struct Suite: Encodable, DynamicNodeEncoding {
        var name: String
        var tests: Int, failures: Int, errors: Int, skipped: Int
        var properties: Properties?
        var testcase: [Case]
        var systemOut: String?

        enum CodingKeys: String, CodingKey {
            case name, tests, failures, errors, skipped, properties, testcase
            case systemOut = "system-out"
        }

        static func nodeEncoding(for key: any CodingKey) -> XMLEncoder.NodeEncoding {
            ["properties", "testcase", "system-out"].contains(key.stringValue) ? .element : .attribute
        }
    }

    struct Properties: Encodable {
        var property: [Property]
    }

    struct Property: Encodable, DynamicNodeEncoding {
        var name: String
        var value: String

        static func nodeEncoding(for key: any CodingKey) -> XMLEncoder.NodeEncoding { .attribute }
    }

    struct Case: Encodable, DynamicNodeEncoding {
        var classname: String
        var name: String
        var file: String?
        var line: Int?
        var properties: Properties?
        var error: Outcome?
        var failure: Outcome?
        var skipped: Skip?
        var systemOut: String?

        enum CodingKeys: String, CodingKey {
            case classname, name, file, line, properties, error, failure, skipped
            case systemOut = "system-out"
        }

        static func nodeEncoding(for key: any CodingKey) -> XMLEncoder.NodeEncoding {
            ["classname", "name", "file", "line"].contains(key.stringValue) ? .attribute : .element
        }
    }

    /// A `failure` or `error`: its type and message as attributes, the detail as its text.
    struct Outcome: Encodable, DynamicNodeEncoding {
        var type: String
        var message: String
        var text: String

        enum CodingKeys: String, CodingKey {
            case type, message
            case text = ""
        }

        static func nodeEncoding(for key: any CodingKey) -> XMLEncoder.NodeEncoding {
            key.stringValue.isEmpty ? .element : .attribute
        }
    }

    struct Skip: Encodable, DynamicNodeEncoding {
        var message: String

        static func nodeEncoding(for key: any CodingKey) -> XMLEncoder.NodeEncoding { .attribute }
    }

    /// Text XML 1.0 can carry: its forbidden control characters (a hostile SUT's answer may hold
    /// them) become `?`; the encoder escapes the rest.
    static func clean(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.value < 0x20 && !["\n", "\t", "\r"].contains($0) }) else {
            return s
        }
        var out = String.UnicodeScalarView()
        for c in s.unicodeScalars {
            out.append(c.value < 0x20 && c != "\n" && c != "\t" && c != "\r" ? "?" : c)
        }
        return String(out)
    }

    /// One check's test case.
    static func testCase(_ v: Verdict, _ c: Check) -> Case {
        var properties: [Property] = []
        if let rule = c.rule { properties.append(Property(name: "rule", value: clean(rule))) }
        properties.append(Property(name: "level", value: c.level.rawValue))
        for id in c.requirements { properties.append(Property(name: "requirement", value: clean(id))) }
        if let excuse = c.excuse { properties.append(Property(name: "excused", value: excuse.label)) }
        var testCase = Case(
            classname: "vitalsim." + clean(v.scenario),
            name: clean(c.name),
            file: c.location.map { clean($0.file) },
            line: c.location?.line,
            properties: Properties(property: properties)
        )
        if let finding = c.finding, let excuse = c.excuse {
            // Excused: not a failure of the gate, but never shown as a plain pass either.
            let text = "\(finding.rawValue): \(c.detail) — \(excuse.explanation)"
            if excuse == .warning {
                testCase.systemOut = clean("warning " + text)
            } else {
                testCase.skipped = Skip(message: clean(excuse.label + " " + text))
            }
        } else if let excuse = c.excuse {
            testCase.skipped = Skip(message: clean(excuse.explanation + "; " + c.detail))
        } else if let finding = c.finding {
            testCase.failure = Outcome(
                type: finding.rawValue,
                message: clean(finding.rawValue + ": " + c.detail),
                text: clean(c.detail)
            )
        } else if c.skipped {
            testCase.skipped = Skip(message: clean(c.detail))
        } else {
            testCase.systemOut = clean(c.detail)
        }
        return testCase
    }

    /// The whole report.
    static func xml(_ verdicts: [Verdict], about: RunDescription?) -> String {
        let suites = verdicts.map { v -> Suite in
            var cases: [Case] = []
            if let error = v.error {
                // Not a clinical failure: the scenario could not be judged (JUnit's <error>, not <failure>).
                var run = Case(classname: "vitalsim." + clean(v.scenario), name: "run")
                run.error = Outcome(type: "infrastructure", message: clean(error), text: clean(error))
                cases.append(run)
            }
            cases += v.checks.map { testCase(v, $0) }
            let contract = v.contract.map { contract in
                clean(
                    (["SUT contract:"] + RunReport.contractLines(contract, allBodies: true).map { "  " + $0 }).joined(
                        separator: "\n"
                    )
                )
            }
            return Suite(
                name: clean(v.scenario),
                tests: v.checks.count + (v.error == nil ? 0 : 1),
                failures: v.checks.filter { !$0.passed }.count,
                errors: v.error == nil ? 0 : 1,
                skipped: v.checks.filter(RunReport.showsSkipped).count,
                properties: about.map {
                    Properties(property: $0.fields.map { Property(name: clean($0.key), value: clean($0.value)) })
                },
                testcase: cases,
                systemOut: contract
            )
        }
        let top = Suites(
            tests: suites.reduce(0) { $0 + $1.tests },
            failures: suites.reduce(0) { $0 + $1.failures },
            errors: suites.reduce(0) { $0 + $1.errors },
            skipped: suites.reduce(0) { $0 + $1.skipped },
            testsuite: suites
        )
        let encoder = XMLEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        encoder.prettyPrintIndentation = .spaces(2)
        let data =
            (try? encoder.encode(top, withRootKey: "testsuites", header: XMLHeader(version: 1.0, encoding: "UTF-8")))
            ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
