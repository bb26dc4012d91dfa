import Foundation
import Mustache
import VitalSimCore
import Yams

extension SUTProfileLoader.Context {
    static let lifecycleKeys = ["patient-id", "device-id", "enrol", "reset", "headers", "profile-names"]
    static let stepKeys = [
        "method", "path", "body", "template", "content-type", "command", "expect", "timeout", "deletes-patient",
    ]
    static let stepMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"]

    func lifecycle(_ node: Node) -> Lifecycle {
        var lifecycle = Lifecycle()
        guard let fields = reader.mapping(node, "lifecycle", allowed: Self.lifecycleKeys) else { return lifecycle }
        lifecycle.patientID = idTemplate(
            fields,
            "patient-id",
            required: "patient",
            allowed: ["run", "scenario", "patient"]
        )
        lifecycle.deviceID = idTemplate(
            fields,
            "device-id",
            required: "device",
            allowed: ["run", "scenario", "patient", "device"]
        )
        if fields.has("headers") { lifecycle.headers = headers(fields, "headers") }
        if let node = fields.value("profile-names"), let names = stringMap(node, fields.path("profile-names")) {
            let valid = Profile.allCases.map(\.rawValue)
            for (k, _) in node.mapping ?? [:] {
                guard let name = k.scalar?.string, !valid.contains(name) else { continue }
                reader.fail(
                    k,
                    fields.path("profile-names"),
                    "'\(name)' is not a VitalSim profile; valid: \(valid.joined(separator: ", "))"
                )
            }
            lifecycle.profileNames = names
        }
        for key in ["enrol", "reset"] {
            guard let list = fields.list(key) else { continue }
            let steps = list.enumerated().compactMap { i, node in step(node, "lifecycle.\(key)[\(i)]") }
            if key == "enrol" { lifecycle.enrol = steps } else { lifecycle.reset = steps }
        }
        return lifecycle
    }

    /// An id template: `required` must appear exactly once, only `allowed` placeholders, no `/`.
    func idTemplate(_ fields: Fields, _ key: String, required: String, allowed: [String]) -> String? {
        guard let template = fields.string(key) else { return nil }
        let names = placeholders(template)
        for name in names where !allowed.contains(name) {
            fail(
                fields,
                key,
                "unknown placeholder {\(name)}; valid: " + allowed.map { "{\($0)}" }.joined(separator: ", ")
            )
        }
        if names.filter({ $0 == required }).count != 1 {
            fail(fields, key, "put {\(required)} in it exactly once, so that every \(required) keeps an id of its own")
        }
        if template.contains("/") {
            fail(fields, key, "an id must not contain '/' (reading ids are PATIENT/DEVICE/SEQ)")
        }
        return template
    }

    func step(_ node: Node, _ field: String) -> LifecycleStep? {
        guard let fields = reader.mapping(node, field, allowed: Self.stepKeys) else { return nil }
        let action: LifecycleStep.Action
        if fields.has("command") {
            for key in ["method", "path", "body", "template", "content-type"] where fields.has(key) {
                fail(fields, key, "a step is either an HTTP request (method, path) or a command, not both")
            }
            guard let arguments = commandArguments(fields) else { return nil }
            action = .command(arguments: arguments, directory: (file as NSString).deletingLastPathComponent)
        } else {
            guard let request = requestAction(fields) else { return nil }
            action = request
        }
        var step = LifecycleStep(action: action, field: field)
        if let node = fields.value("expect") { step.expect = statuses(node, fields.path("expect")) }
        if let timeout = fields.duration("timeout") { step.timeout = Double(timeout.milliseconds) / 1000 }
        if fields.has("deletes-patient") { step.deletesPatient = fields.bool("deletes-patient") }
        return step
    }

    func commandArguments(_ fields: Fields) -> [String]? {
        guard let list = fields.list("command") else { return nil }
        let arguments = list.compactMap { $0.scalar?.string }
        guard arguments.count == list.count, let program = arguments.first, !program.isEmpty else {
            fail(fields, "command", "expected a list of strings: the program, then its arguments")
            return nil
        }
        for a in arguments {
            for name in placeholders(a) where !["run", "scenario", "patient"].contains(name) {
                fail(fields, "command", "unknown placeholder {\(name)}; valid: {run}, {scenario}, {patient}")
            }
        }
        return arguments
    }

    func requestAction(_ fields: Fields) -> LifecycleStep.Action? {
        guard fields.has("method"), fields.has("path") else {
            fail(
                fields,
                fields.has("method") ? "method" : "path",
                "a step needs method and path (an HTTP request), or command"
            )
            return nil
        }
        guard let method = fields.string("method"), let path = fields.string("path") else { return nil }
        if !Self.stepMethods.contains(method) {
            fail(fields, "method", "expected one of \(Self.stepMethods.joined(separator: ", "))")
        }
        if !path.hasPrefix("/") { fail(fields, "path", "expected a path on the SUT's base URL, starting with /") }
        for name in placeholders(path) where !["run", "scenario", "patient"].contains(name) {
            fail(fields, "path", "unknown placeholder {\(name)}; valid: {run}, {scenario}, {patient}")
        }
        if fields.has("body"), fields.has("template") {
            fail(fields, "template", "give body (inline) or template (a file), not both")
        }
        var body: MustacheTemplate?
        if let text = fields.string("body") {
            body = mustache(text, origin: fields.value("body"), field: fields.path("body"), file: nil)
        } else if fields.has("template"), let path = existingFile(fields, "template") {
            do {
                body = mustache(try FileText.read(path), origin: nil, field: fields.path("template"), file: path)
            } catch {
                fail(fields, "template", "cannot read \(path): \(error)")
            }
        }
        if body != nil, method == "GET" || method == "DELETE" {
            fail(fields, "method", "\(method) sends no body; leave body/template out")
        }
        return .request(
            method: method,
            path: path,
            body: body,
            contentType: fields.string("content-type") ?? "application/json"
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
            guard let text = item.scalar?.string, let status = Int(text), (100...599).contains(status) else {
                reader.fail(
                    item,
                    field,
                    "expected an HTTP status (100–599) or a list of them, got \(reader.kindName(item))"
                )
                continue
            }
            out.insert(status)
        }
        return out.isEmpty ? nil : out
    }
}
