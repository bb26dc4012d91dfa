import Foundation
import Mustache
import VitalSimCore
import Yams

extension SUTProfileLoader.Context {
    static let lifecycleKeys = ["patient-id", "device-id", "enrol", "reset", "headers", "profile-names"]
    static let stepKeys = ["method", "path", "body", "template", "content-type", "command", "expect", "timeout"]
    static let stepMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"]

    func lifecycle(_ node: Node) -> Lifecycle {
        var lifecycle = Lifecycle()
        guard let f = reader.mapping(node, "lifecycle", allowed: Self.lifecycleKeys) else { return lifecycle }
        lifecycle.patientID = idTemplate(f, "patient-id", required: "patient", allowed: ["run", "scenario", "patient"])
        lifecycle.deviceID = idTemplate(
            f,
            "device-id",
            required: "device",
            allowed: ["run", "scenario", "patient", "device"]
        )
        if f.has("headers") { lifecycle.headers = headers(f, "headers") }
        if let node = f.value("profile-names"), let names = stringMap(node, f.path("profile-names")) {
            let valid = Profile.allCases.map(\.rawValue)
            for (k, _) in node.mapping ?? [:] {
                guard let name = k.scalar?.string, !valid.contains(name) else { continue }
                reader.fail(
                    k,
                    f.path("profile-names"),
                    "'\(name)' is not a VitalSim profile; valid: \(valid.joined(separator: ", "))"
                )
            }
            lifecycle.profileNames = names
        }
        for key in ["enrol", "reset"] {
            guard let list = f.list(key) else { continue }
            let steps = list.enumerated().compactMap { i, node in step(node, "lifecycle.\(key)[\(i)]") }
            if key == "enrol" { lifecycle.enrol = steps } else { lifecycle.reset = steps }
        }
        return lifecycle
    }

    /// An id template: `required` must appear exactly once, only `allowed` placeholders, no `/`.
    func idTemplate(_ f: Fields, _ key: String, required: String, allowed: [String]) -> String? {
        guard let template = f.string(key) else { return nil }
        let names = placeholders(template)
        for name in names where !allowed.contains(name) {
            fail(f, key, "unknown placeholder {\(name)}; valid: " + allowed.map { "{\($0)}" }.joined(separator: ", "))
        }
        if names.filter({ $0 == required }).count != 1 {
            fail(f, key, "put {\(required)} in it exactly once, so that every \(required) keeps an id of its own")
        }
        if template.contains("/") { fail(f, key, "an id must not contain '/' (reading ids are PATIENT/DEVICE/SEQ)") }
        return template
    }

    func step(_ node: Node, _ field: String) -> LifecycleStep? {
        guard let f = reader.mapping(node, field, allowed: Self.stepKeys) else { return nil }
        let action: LifecycleStep.Action
        if f.has("command") {
            for key in ["method", "path", "body", "template", "content-type"] where f.has(key) {
                fail(f, key, "a step is either an HTTP request (method, path) or a command, not both")
            }
            guard let arguments = commandArguments(f) else { return nil }
            action = .command(arguments: arguments, directory: (file as NSString).deletingLastPathComponent)
        } else {
            guard let request = requestAction(f) else { return nil }
            action = request
        }
        var step = LifecycleStep(action: action, field: field)
        if let node = f.value("expect") { step.expect = statuses(node, f.path("expect")) }
        if let d = f.duration("timeout") { step.timeout = Double(d.milliseconds) / 1000 }
        return step
    }

    func commandArguments(_ f: Fields) -> [String]? {
        guard let list = f.list("command") else { return nil }
        let arguments = list.compactMap { $0.scalar?.string }
        guard arguments.count == list.count, let program = arguments.first, !program.isEmpty else {
            fail(f, "command", "expected a list of strings: the program, then its arguments")
            return nil
        }
        for a in arguments {
            for name in placeholders(a) where !["run", "scenario", "patient"].contains(name) {
                fail(f, "command", "unknown placeholder {\(name)}; valid: {run}, {scenario}, {patient}")
            }
        }
        return arguments
    }

    func requestAction(_ f: Fields) -> LifecycleStep.Action? {
        guard f.has("method"), f.has("path") else {
            fail(f, f.has("method") ? "method" : "path", "a step needs method and path (an HTTP request), or command")
            return nil
        }
        guard let method = f.string("method"), let path = f.string("path") else { return nil }
        if !Self.stepMethods.contains(method) {
            fail(f, "method", "expected one of \(Self.stepMethods.joined(separator: ", "))")
        }
        if !path.hasPrefix("/") { fail(f, "path", "expected a path on the SUT's base URL, starting with /") }
        for name in placeholders(path) where !["run", "scenario", "patient"].contains(name) {
            fail(f, "path", "unknown placeholder {\(name)}; valid: {run}, {scenario}, {patient}")
        }
        if f.has("body"), f.has("template") { fail(f, "template", "give body (inline) or template (a file), not both") }
        var body: MustacheTemplate?
        if let text = f.string("body") {
            body = mustache(text, origin: f.value("body"), field: f.path("body"), file: nil)
        } else if f.has("template"), let path = existingFile(f, "template") {
            do { body = mustache(try FileText.read(path), origin: nil, field: f.path("template"), file: path) } catch {
                fail(f, "template", "cannot read \(path): \(error)")
            }
        }
        if body != nil, method == "GET" || method == "DELETE" {
            fail(f, "method", "\(method) sends no body; leave body/template out")
        }
        return .request(
            method: method,
            path: path,
            body: body,
            contentType: f.string("content-type") ?? "application/json"
        )
    }

    /// A Mustache template rendered without HTML escaping; an error names the template's file (or
    /// the profile's key) with line and column.
    func mustache(_ source: String, origin: Node?, field: String, file path: String?) -> MustacheTemplate? {
        do {
            return try MustacheTemplate(string: "{{% CONTENT_TYPE: TEXT}}" + source)
        } catch let error as MustacheTemplate.ParserError {
            if let path {
                reader.record([
                    ScenarioIssue(
                        file: path,
                        line: error.context.lineNumber,
                        column: error.context.columnNumber,
                        field: "",
                        message: "template: \(error.error)"
                    )
                ])
            } else {
                reader.fail(
                    origin,
                    field,
                    "Mustache error at column \(error.context.columnNumber) of the body: \(error.error)"
                )
            }
        } catch {
            reader.fail(origin, field, "Mustache error: \(error)")
        }
        return nil
    }

    /// `201` or `[200, 201, 204]`.
    func statuses(_ node: Node, _ field: String) -> Set<Int>? {
        let items = node.sequence.map(Array.init) ?? [node]
        var out: Set<Int> = []
        for item in items {
            guard let text = item.scalar?.string, let n = Int(text), (100...599).contains(n) else {
                reader.fail(
                    item,
                    field,
                    "expected an HTTP status (100–599) or a list of them, got \(reader.kindName(item))"
                )
                continue
            }
            out.insert(n)
        }
        return out.isEmpty ? nil : out
    }
}
