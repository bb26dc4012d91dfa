import Crypto
import Foundation
import VitalSimCore

/// Findings as a CI system marks them on the files that state the expectations: GitHub Actions'
/// workflow commands (`::error file=…,line=…::…`, printed on standard output) and GitLab's code
/// quality report (JSON, shown on merge requests' changed lines).
package struct CIAnnotations {
    /// At most this many workflow commands (GitHub shows 10 errors per step and 50 per job).
    package static let limit = 50
    /// The annotations, failures first.
    package let annotations: [Annotation]

    /// One annotation: failed checks and scenarios not judged are errors, excused findings warnings.
    package struct Annotation: Sendable, Equatable {
        package var error: Bool
        package var location: SourceLocation?
        package var title: String
        package var message: String
        /// The check's stable id (`SCENARIO: NAME`).
        package var id: String
    }

    /// Annotations already made.
    package init(annotations: [Annotation]) { self.annotations = annotations }

    /// The annotations of a gated run's `verdicts`, failures first; a scenario not judged is marked
    /// on its scenario file (`scenarioFiles`, by scenario name).
    package init(_ verdicts: [Verdict], scenarioFiles: [String: String] = [:]) {
        var errors: [Annotation] = []
        var warnings: [Annotation] = []
        for v in verdicts {
            if let error = v.error {
                errors.append(
                    Annotation(
                        error: true,
                        location: scenarioFiles[v.scenario].map { SourceLocation(file: $0, line: 1) },
                        title: "VitalSim: \(v.scenario) not judged",
                        message: error,
                        id: "\(v.scenario): run"
                    )
                )
            }
            for c in v.checks where c.finding != nil && !c.isNotApplicable {
                let failed = !c.passed
                let ids = c.requirements.isEmpty ? "" : " (verifies \(c.requirements.joined(separator: ", ")))"
                let annotation = Annotation(
                    error: failed,
                    location: c.location,
                    title: "VitalSim \(c.level.rawValue) \(c.finding?.rawValue ?? ""): \(v.scenario)",
                    message: "\(c.name): \(c.detail)" + ids + (c.excuse.map { " — \($0.explanation)" } ?? ""),
                    id: c.id(in: v.scenario)
                )
                if failed { errors.append(annotation) } else { warnings.append(annotation) }
            }
        }
        annotations = errors + warnings
    }

    /// GitHub Actions workflow commands, one line each (at most ``limit``, then a notice of the rest).
    package var workflowCommands: String {
        let limit = Self.limit
        var out = ""
        for a in annotations.prefix(limit) {
            var properties: [String] = []
            if let location = a.location { properties += ["file=\(property(location.file))", "line=\(location.line)"] }
            properties.append("title=\(property(a.title))")
            out += "::\(a.error ? "error" : "warning") \(properties.joined(separator: ","))::\(data(a.message))\n"
        }
        if annotations.count > limit {
            out += "::notice::\(data("\(annotations.count - limit) more finding(s): see the job summary or JUnit"))\n"
        }
        return out
    }

    /// A workflow command's message: `%`, CR and LF escaped.
    func data(_ s: String) -> String {
        s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// A workflow command's property value: as ``data(_:)``, and `:` and `,` too.
    func property(_ s: String) -> String {
        data(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    /// GitLab's code quality report (Code Climate issues): one per annotation, its fingerprint the
    /// sha256 of the check's stable id, so the same finding is the same issue run after run.
    package var codeQuality: String {
        let issues: [JSONValue] = annotations.map { a in
            let fingerprint = SHA256.hash(data: Data(a.id.utf8)).map { String(format: "%02x", $0) }.joined()
            let location = a.location ?? SourceLocation(file: "", line: 1)
            return .object([
                ("description", .string("\(a.title): \(a.message)")),
                ("check_name", .string(a.title)),
                ("fingerprint", .string(fingerprint)),
                ("severity", .string(a.error ? "critical" : "minor")),
                (
                    "location",
                    .object([
                        ("path", .string(location.file)),
                        ("lines", .object([("begin", .int(Int64(location.line)))])),
                    ])
                ),
            ])
        }
        return JSONValue.array(issues).serialized() + "\n"
    }
}
