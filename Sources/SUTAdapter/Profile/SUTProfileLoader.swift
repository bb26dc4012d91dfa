import Foundation
import RunRecord
import Traffic
import VitalSimCore
import Yams

/// Loads a SUT profile strictly: unknown, duplicate and missing keys, wrong types, unset
/// environment variables and missing files are errors naming the file, line and key
/// (`docs/sut-profiles.md` lists every key). Files a profile names (CA, device credentials) are
/// relative to the profile's folder.
package enum SUTProfileLoader {
    static let topKeys = [
        "name", "base-url", "tls", "auth", "ingestion", "alerts", "rules", "severities", "lifecycle", "mqtt",
        "stored-readings", "conformance", "care-team", "audit",
    ]

    /// Loads the profile at `path`; `environment` supplies `${NAME}` and `client-secret-env` values.
    package static func load(path: String, environment: [String: String]) throws(ScenarioLoadError) -> SUTProfile {
        let text: String
        do { text = try FileText.read(path) } catch {
            throw ScenarioLoadError(issues: [
                ScenarioIssue(file: path, line: 0, column: 0, field: "", message: "\(error)")
            ])
        }
        return try parse(text, file: path, environment: environment)
    }

    /// Parses a profile's text (`file` names it in messages and anchors its relative paths).
    package static func parse(
        _ text: String,
        file: String,
        environment: [String: String]
    ) throws(ScenarioLoadError) -> SUTProfile {
        let root = try ScenarioLoader.compose(text, file: file)
        let context = Context(reader: YAMLReader(file: file), file: file, environment: environment)
        var profile = SUTProfile(name: "")
        profile.file = file
        if let top = context.reader.mapping(root, "", allowed: topKeys, required: ["name"]) {
            profile.name = top.string("name") ?? ""
            if let url = top.string("base-url") {
                if context.isHTTPURL(url) {
                    profile.baseURL = url
                } else {
                    context.fail(top, "base-url", "expected an http:// or https:// URL")
                }
            }
            if let node = top.value("tls") { profile.tls = context.tls(node) }
            if let node = top.value("auth") { profile.auth = context.auth(node) }
            if let node = top.value("ingestion") { profile.ingestion = context.ingestion(node) }
            if let node = top.value("lifecycle") { profile.lifecycle = context.lifecycle(node) }
            if let node = top.value("mqtt") { profile.mqtt = context.mqtt(node) }
            if profile.mqtt.deviceCredentials != .none, profile.auth.devices == nil, let node = top.value("mqtt") {
                context.reader.fail(
                    node,
                    "mqtt.device-credentials",
                    "device credentials come from auth.devices, which this profile lacks"
                )
            }
            if let node = top.value("alerts") {
                if node.scalar?.string == "none" {
                    profile.alerts = .none
                } else if let source = context.alerts(node) {
                    profile.alerts = source
                }
            }
            if let node = top.value("stored-readings") { profile.storedReadings = context.storedReadings(node) }
            if let node = top.value("rules") {
                (profile.mapping.rules, profile.mapping.rulesByProfile) = context.ruleNames(node)
            }
            if let node = top.value("conformance") { profile.conformance = context.conformance(node) }
            if profile.alerts.absent {
                // A SUT without an alert API claims no rule, and lists no alert to judge.
                if let claimed = profile.conformance.rules, !claimed.isEmpty, let node = top.value("alerts") {
                    context.reader.fail(
                        node,
                        "alerts",
                        "alerts: none, yet conformance.rules claims \(claimed.count) rule(s): give the alert source, or claim none"
                    )
                }
                profile.conformance.rules = []
                profile.conformance.listsAlerts = false
            }
            if let subscriptions = profile.alerts.subscriptions, profile.conformance.rules == nil {
                // Each rule of the Subscriptions is one the server can be heard to raise; no other.
                profile.conformance.rules = Set(subscriptions.rules.map(\.rule))
            }
            if let node = top.value("care-team") { profile.careTeam = context.careTeam(node) }
            if let node = top.value("audit") { profile.audit = context.audit(node) }
            if let node = top.value("severities") { profile.mapping.severities = context.severityNames(node) }
        }
        guard context.reader.issues.isEmpty else { throw ScenarioLoadError(issues: context.reader.reportedIssues) }
        return profile
    }

    /// What the parse functions share: the reader collecting issues, the profile's folder, the environment.
    struct Context {
        let reader: YAMLReader
        let file: String
        let environment: [String: String]

        func fail(_ fields: Fields, _ key: String, _ message: String) {
            reader.fail(fields.value(key) ?? fields.node, fields.path(key), message)
        }

        func isHTTPURL(_ s: String) -> Bool {
            (s.hasPrefix("http://") || s.hasPrefix("https://")) && URL(string: s)?.host != nil
        }

        /// A path relative to the profile's folder; an error when no file is there.
        func existingFile(_ fields: Fields, _ key: String) -> String? {
            guard let name = fields.string(key) else { return nil }
            let folder = (file as NSString).deletingLastPathComponent
            let path = name.hasPrefix("/") || folder.isEmpty ? name : folder + "/" + name
            guard FileManager.default.isReadableFile(atPath: path) else {
                fail(
                    fields,
                    key,
                    "no readable file at \(path)" + (name.hasPrefix("/") ? "" : " (relative to the profile's folder)")
                )
                return nil
            }
            return path
        }

        /// `${NAME}` replaced by the environment variable's value; an unset variable is an error.
        func expand(_ text: String, _ node: Node?, _ field: String) -> String? {
            var out = ""
            var rest = Substring(text)
            while let open = rest.range(of: "${") {
                out += rest[..<open.lowerBound]
                guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                    reader.fail(node, field, "'${' without a closing '}'")
                    return nil
                }
                let name = String(rest[open.upperBound..<close])
                guard let value = environment[name] else {
                    reader.fail(node, field, "the environment variable \(name) is not set")
                    return nil
                }
                out += value
                rest = rest[rest.index(after: close)...]
            }
            return out + rest
        }

        /// A `Name: value` header (environment variables expanded).
        func header(_ node: Node, _ field: String) -> String? {
            guard let raw = node.scalar?.string, !raw.isEmpty else {
                reader.fail(node, field, "expected a header 'Name: value', got \(reader.kindName(node))")
                return nil
            }
            guard let colon = raw.firstIndex(of: ":"), !raw[..<colon].isEmpty,
                raw[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) })
            else {
                reader.fail(node, field, "expected a header 'Name: value', got '\(raw)'")
                return nil
            }
            guard let value = expand(raw, node, field) else { return nil }
            guard !value.contains("\r"), !value.contains("\n") else {
                reader.fail(node, field, "a header must be one line")
                return nil
            }
            return value
        }

        func headers(_ fields: Fields, _ key: String) -> [String] {
            guard let list = fields.list(key) else { return [] }
            return list.enumerated().compactMap { i, node in header(node, fields.path(key) + "[\(i)]") }
        }

        func bool(_ fields: Fields, _ key: String) -> Bool? {
            guard let value = fields.value(key) else { return nil }
            switch value.scalar?.string {
            case "true": return true
            case "false": return false
            default:
                fail(fields, key, "expected true or false, got \(reader.kindName(value))")
                return nil
            }
        }

        /// A mapping of non-empty strings to non-empty strings.
        func stringMap(_ node: Node, _ field: String) -> [String: String]? {
            guard let map = node.mapping else {
                reader.fail(node, field, "expected a mapping of names, got \(reader.kindName(node))")
                return nil
            }
            var out: [String: String] = [:]
            for (k, v) in map {
                guard let key = k.scalar?.string, !key.isEmpty else {
                    reader.fail(k, field, "keys must be non-empty strings")
                    continue
                }
                guard let value = v.scalar?.string, !value.isEmpty else {
                    reader.fail(v, field + "." + key, "expected a non-empty string, got \(reader.kindName(v))")
                    continue
                }
                guard out[key] == nil else {
                    reader.fail(k, field + "." + key, "duplicate key '\(key)'")
                    continue
                }
                out[key] = value
            }
            return out
        }

        /// `conformance: {rules: [ID…] | all, kinds, channels, names-refused-field: BOOL, refusals: [LEVEL…]}`.
        func conformance(_ node: Node) -> ConformanceStatement {
            var statement = ConformanceStatement()
            guard
                let fields = reader.mapping(
                    node,
                    "conformance",
                    allowed: ["rules", "kinds", "channels", "names-refused-field", "refusals"]
                )
            else {
                return statement
            }
            if let rulesNode = fields.value("rules") {
                if rulesNode.scalar?.string == "all" {
                    statement.rules = nil
                } else if let list = fields.list("rules") {
                    var rules: Set<String> = []
                    for (i, item) in list.enumerated() {
                        guard let id = item.scalar?.string, !id.isEmpty else {
                            reader.fail(item, "conformance.rules[\(i)]", "expected a VitalSim rule id")
                            continue
                        }
                        if !AlertRuleIDs.all.contains(id) {
                            checkRuleID(id, at: item, "conformance.rules[\(i)]")
                        } else if !rules.insert(id).inserted {
                            reader.fail(item, "conformance.rules[\(i)]", "rule '\(id)' is listed twice")
                        }
                    }
                    statement.rules = rules
                }
            }
            if let claims = bool(fields, "names-refused-field") { statement.namesRefusedField = claims }
            if let list = fields.list("refusals") {
                var levels: Set<RefusalLevel> = []
                for (i, item) in list.enumerated() {
                    guard let level = item.scalar.flatMap({ RefusalLevel(rawValue: $0.string) }) else {
                        reader.fail(
                            item,
                            "conformance.refusals[\(i)]",
                            "expected structure, terminology or plausibility"
                        )
                        continue
                    }
                    levels.insert(level)
                }
                statement.refusals = levels
            }
            for (i, item) in (fields.list("channels") ?? []).enumerated() {
                guard let channel = item.scalar.flatMap({ PushChannel(rawValue: $0.string) }) else {
                    let valid = PushChannel.allCases.map(\.rawValue).joined(separator: ", ")
                    reader.fail(item, "conformance.channels[\(i)]", "expected a push channel: \(valid)")
                    continue
                }
                if !statement.channels.contains(channel) { statement.channels.append(channel) }
            }
            if let list = fields.list("kinds") {
                let valid = VitalKind.allCases.filter { $0 != .cuffPressure }.map(\.rawValue)
                var kinds: Set<String> = []
                for (i, item) in list.enumerated() {
                    guard let kind = item.scalar?.string, valid.contains(kind) else {
                        reader.fail(
                            item,
                            "conformance.kinds[\(i)]",
                            "expected a reading kind: \(valid.joined(separator: ", "))"
                        )
                        continue
                    }
                    kinds.insert(kind)
                }
                statement.kinds = kinds
            }
            return statement
        }

        /// `rules:`: SUT name → rule id, or → `{PROFILE: rule id, …, default: rule id}` where one SUT
        /// rule serves several VitalSim rules by the patient's clinical profile.
        func ruleNames(_ node: Node) -> (rules: [String: String]?, byProfile: [String: [String: String]]) {
            guard let map = node.mapping else {
                reader.fail(node, "rules", "expected a mapping of names, got \(reader.kindName(node))")
                return (nil, [:])
            }
            var rules: [String: String] = [:]
            var byProfile: [String: [String: String]] = [:]
            let profiles = Profile.allCases.map(\.rawValue) + ["default"]
            for (k, v) in map {
                guard let name = k.scalar?.string, !name.isEmpty else {
                    reader.fail(k, "rules", "keys must be non-empty strings")
                    continue
                }
                if v.mapping != nil {
                    guard let perProfile = stringMap(v, "rules." + name) else { continue }
                    for (pk, pv) in v.mapping ?? [:] {
                        let key = pk.scalar?.string ?? ""
                        if !profiles.contains(key) {
                            reader.fail(
                                pk,
                                "rules.\(name).\(key)",
                                "'\(key)' is not a VitalSim profile; valid: \(profiles.joined(separator: ", "))"
                            )
                        }
                        checkRuleID(perProfile[key] ?? "", at: pv, "rules.\(name).\(key)")
                    }
                    byProfile[name] = perProfile
                } else if let id = v.scalar?.string, !id.isEmpty {
                    checkRuleID(id, at: v, "rules." + name)
                    rules[name] = id
                } else {
                    reader.fail(v, "rules." + name, "expected a rule id or a mapping of profiles to rule ids")
                }
            }
            return (rules, byProfile)
        }

        /// Fails unless `id` is a VitalSim rule id.
        func checkRuleID(_ id: String, at node: Node, _ field: String) {
            let known = AlertRuleIDs.all
            guard !known.contains(id) else { return }
            var message = "'\(id)' is not a VitalSim rule id"
            if let near = YAMLReader.nearest(id, in: known) { message += " (did you mean '\(near)'?)" }
            reader.fail(node, field, message + "; the ids are listed in docs/sut-profiles.md")
        }

        func severityNames(_ node: Node) -> [String: String]? {
            guard let map = stringMap(node, "severities") else { return nil }
            let valid = Severity.allCases.map(\.rawValue)
            for (k, v) in node.mapping ?? [:] {
                guard let name = k.scalar?.string, let mapped = map[name], !valid.contains(mapped) else { continue }
                reader.fail(
                    v,
                    "severities." + name,
                    "'\(mapped)' is not a VitalSim severity; valid: \(valid.joined(separator: ", "))"
                )
            }
            return map
        }
    }
}
