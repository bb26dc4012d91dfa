import Foundation
import FoundationXML

/// The verdicts as JUnit XML, built as a document by Foundation's XML library (libxml2 underneath,
/// which escapes text and attributes): a `testsuite` per scenario (the run's description as its
/// properties, the SUT contract as its `system-out`), a `testcase` per check (its rule, level,
/// requirement ids and excuse as properties, the golden or scenario file line of its expectation as
/// `file`/`line`); a failed check is a `failure`, a scenario not judged an `error`, a check not
/// carried out or excused other than as a warning `skipped`.
struct JUnitReport {
    let verdicts: [Verdict]
    /// What was tested: each suite's properties.
    let about: RunDescription?

    /// Text XML 1.0 can carry: its forbidden control characters (a hostile SUT's answer may hold
    /// them) become `?`; the library escapes the rest.
    func clean(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.value < 0x20 && !["\n", "\t", "\r"].contains($0) }) else {
            return s
        }
        var out = String.UnicodeScalarView()
        for c in s.unicodeScalars {
            out.append(c.value < 0x20 && c != "\n" && c != "\t" && c != "\r" ? "?" : c)
        }
        return String(out)
    }

    /// An element with attributes (in order) and, optionally, text.
    func element(_ name: String, _ attributes: [(String, String)], text: String? = nil) -> XMLElement {
        let element = text.map { XMLElement(name: name, stringValue: clean($0)) } ?? XMLElement(name: name)
        for (key, value) in attributes {
            if let attribute = XMLNode.attribute(withName: key, stringValue: clean(value)) as? XMLNode {
                element.addAttribute(attribute)
            }
        }
        return element
    }

    func properties(_ pairs: [(String, String)]) -> XMLElement {
        let e = XMLElement(name: "properties")
        for (name, value) in pairs { e.addChild(element("property", [("name", name), ("value", value)])) }
        return e
    }

    /// One check's test case.
    func testCase(_ v: Verdict, _ c: Check) -> XMLElement {
        var attributes = [("classname", "vitalsim." + v.scenario), ("name", c.name)]
        if let at = c.location { attributes += [("file", at.file), ("line", String(at.line))] }
        let e = element("testcase", attributes)
        var pairs: [(String, String)] = []
        if let rule = c.rule { pairs.append(("rule", rule)) }
        pairs.append(("level", c.level.rawValue))
        pairs += c.requirements.map { ("requirement", $0) }
        if let excuse = c.excuse { pairs.append(("excused", excuse.label)) }
        e.addChild(properties(pairs))
        if let finding = c.finding, let excuse = c.excuse {
            // Excused: not a failure of the gate, but never shown as a plain pass either.
            let text = "\(finding.rawValue): \(c.detail) — \(excuse.explanation)"
            e.addChild(
                excuse == .warning
                    ? element("system-out", [], text: "warning " + text)
                    : element("skipped", [("message", excuse.label + " " + text)])
            )
        } else if let excuse = c.excuse {
            e.addChild(element("skipped", [("message", excuse.explanation + "; " + c.detail)]))
        } else if let finding = c.finding {
            let message = finding.rawValue + ": " + c.detail
            e.addChild(element("failure", [("type", finding.rawValue), ("message", message)], text: c.detail))
        } else if c.skipped {
            e.addChild(element("skipped", [("message", c.detail)]))
        } else {
            e.addChild(element("system-out", [], text: c.detail))
        }
        return e
    }

    /// One scenario's test suite.
    func testSuite(_ v: Verdict) -> XMLElement {
        let counts = [
            ("tests", v.checks.count + (v.error == nil ? 0 : 1)), ("failures", v.checks.filter { !$0.passed }.count),
            ("errors", v.error == nil ? 0 : 1), ("skipped", v.checks.filter(\.showsSkipped).count),
        ]
        let suite = element("testsuite", [("name", v.scenario)] + counts.map { ($0.0, String($0.1)) })
        // What was tested, on every suite (JUnit keeps properties per testsuite).
        if let about { suite.addChild(properties(about.fields.map { ($0.key, $0.value) })) }
        if let error = v.error {
            // Not a clinical failure: the scenario could not be judged (JUnit's <error>, not <failure>).
            let run = element("testcase", [("classname", "vitalsim." + v.scenario), ("name", "run")])
            run.addChild(element("error", [("type", "infrastructure"), ("message", error)], text: error))
            suite.addChild(run)
        }
        for c in v.checks { suite.addChild(testCase(v, c)) }
        if let contract = v.contract {
            let lines = ["SUT contract:"] + contract.lines(allBodies: true).map { "  " + $0 }
            suite.addChild(element("system-out", [], text: lines.joined(separator: "\n")))
        }
        return suite
    }

    /// The whole report.
    var xml: String {
        let suites = verdicts.map(testSuite)
        let total = { (key: String) in
            suites.reduce(0) { $0 + (Int($1.attribute(forName: key)?.stringValue ?? "") ?? 0) }
        }
        let root = element(
            "testsuites",
            [("name", "vitalsim")] + ["tests", "failures", "errors", "skipped"].map { ($0, String(total($0))) }
        )
        for s in suites { root.addChild(s) }
        let document = XMLDocument(rootElement: root)
        document.version = "1.0"
        document.characterEncoding = "UTF-8"
        return document.xmlString(options: [.nodePrettyPrint, .nodeCompactEmptyElement]) + "\n"
    }
}
