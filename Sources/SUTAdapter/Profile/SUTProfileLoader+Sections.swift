import Foundation
import Judge
import VitalSimCore
import Yams

extension SUTProfileLoader.Context {
    func tls(_ node: Node) -> SUTProfile.TLS {
        var tls = SUTProfile.TLS()
        guard let f = reader.mapping(node, "tls", allowed: ["ca", "insecure", "client-certificate", "client-key"])
        else { return tls }
        tls.caFile = existingFile(f, "ca")
        tls.clientCertificate = existingFile(f, "client-certificate")
        tls.clientKey = existingFile(f, "client-key")
        if f.has("client-certificate") != f.has("client-key") {
            fail(
                f,
                f.has("client-certificate") ? "client-certificate" : "client-key",
                "client-certificate and client-key go together"
            )
        }
        tls.insecure = bool(f, "insecure") ?? false
        if tls.insecure, tls.caFile != nil {
            fail(f, "insecure", "give either ca (verify with this CA) or insecure: true, not both")
        }
        return tls
    }

    func mqtt(_ node: Node) -> SUTProfile.MQTTSettings {
        var mqtt = SUTProfile.MQTTSettings()
        let keys = [
            "username", "password-env", "client-certificate", "client-key", "topic", "rejections", "confirmations",
            "device-credentials",
        ]
        guard let f = reader.mapping(node, "mqtt", allowed: keys) else { return mqtt }
        if let carriage = f.choice(
            "device-credentials",
            SUTProfile.DeviceCredentialCarriage.self,
            what: "device-credentials"
        ) {
            mqtt.deviceCredentials = carriage
        }
        if let r = f.value("rejections") { mqtt.rejections = rejections(r) }
        if let c = f.value("confirmations") { mqtt.confirmations = confirmations(c) }
        if let text = f.string("topic") {
            do throws(MQTTTopicTemplateError) { mqtt.topic = try MQTTTopicTemplate(text) } catch {
                fail(f, "topic", error.description)
            }
        }
        mqtt.username = f.string("username")
        if let variable = f.string("password-env") {
            if mqtt.username == nil { fail(f, "password-env", "a password goes with a username") }
            if let password = environment[variable] {
                mqtt.password = password
            } else {
                fail(f, "password-env", "the environment variable \(variable) (the MQTT password) is not set")
            }
        }
        mqtt.clientCertificate = existingFile(f, "client-certificate")
        mqtt.clientKey = existingFile(f, "client-key")
        if f.has("client-certificate") != f.has("client-key") {
            fail(
                f,
                f.has("client-certificate") ? "client-certificate" : "client-key",
                "client-certificate and client-key go together"
            )
        }
        return mqtt
    }

    /// `mqtt.rejections`: `none`, or where the SUT's refusals of MQTT readings are and what they say.
    func rejections(_ node: Node) -> SUTProfile.MQTTRejections? {
        if node.scalar?.string == "none" { return nil }
        var r = SUTProfile.MQTTRejections()
        let keys = ["topic", "reading-id", "status", "field"]
        guard let f = reader.mapping(node, "mqtt.rejections", allowed: keys) else { return r }
        if let topic = topicFilter(f) { r.topic = topic }
        if f.has("reading-id"), let p = pointer(f, "reading-id") { r.readingID = p }
        if f.has("status"), let p = pointer(f, "status") { r.status = p }
        if f.has("field"), let p = pointer(f, "field") { r.field = p }
        return r
    }

    /// `mqtt.confirmations`: `none`, or where the SUT confirms stored MQTT readings and where the ids are.
    func confirmations(_ node: Node) -> SUTProfile.MQTTConfirmations? {
        if node.scalar?.string == "none" { return nil }
        var c = SUTProfile.MQTTConfirmations()
        guard let f = reader.mapping(node, "mqtt.confirmations", allowed: ["topic", "reading-id"]) else { return c }
        if let topic = topicFilter(f) { c.topic = topic }
        guard let value = f.value("reading-id") else { return c }
        if let list = value.sequence {
            if list.isEmpty { fail(f, "reading-id", "give a JSON Pointer or a list of them") }
            c.readingIDs = list.enumerated().compactMap { i, node in parsePointer(node, f.path("reading-id") + "[\(i)]")
            }
        } else if let p = pointer(f, "reading-id") {
            c.readingIDs = [p]
        }
        return c
    }

    /// A section's `topic`: an MQTT topic filter.
    func topicFilter(_ f: Fields) -> String? {
        guard let topic = f.string("topic") else { return nil }
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        let badWildcard =
            levels.dropLast().contains("#")
            || levels.contains { $0 != "#" && $0 != "+" && ($0.contains("#") || $0.contains("+")) }
        if topic.isEmpty || badWildcard {
            fail(f, "topic", "expected an MQTT topic filter ('+' a whole level, '#' only as the last level)")
        }
        return topic
    }

    func auth(_ node: Node) -> SUTProfile.Auth {
        var auth = SUTProfile.Auth()
        guard let f = reader.mapping(node, "auth", allowed: ["headers", "reader", "devices", "oauth2"]) else {
            return auth
        }
        auth.headers = headers(f, "headers")
        auth.reader = headers(f, "reader")
        if let d = f.value("devices") { auth.devices = devices(d) }
        if let o = f.value("oauth2") { auth.oauth2 = oauth2(o) }
        return auth
    }

    func devices(_ node: Node) -> DeviceCredentials? {
        guard let f = reader.mapping(node, "auth.devices", allowed: ["file", "header"], required: ["file"]) else {
            return nil
        }
        let header = f.value("header").flatMap { self.header($0, f.path("header")) } ?? "Authorization: Bearer {token}"
        if !header.contains("{token}") {
            fail(f, "header", "the header must contain {token}, where each device's token goes")
        }
        guard let path = existingFile(f, "file") else { return nil }
        do throws(ScenarioLoadError) {
            return try DeviceCredentialsLoader.load(path: path, header: header)
        } catch {
            // The credentials file's own problems, with its own file and lines.
            reader.record(error.issues)
            return nil
        }
    }

    func oauth2(_ node: Node) -> OAuth2? {
        let keys = [
            "token-url", "client-id", "client-secret-env", "scope", "audience", "client-authentication",
            "refresh-before",
        ]
        guard
            let f = reader.mapping(
                node,
                "auth.oauth2",
                allowed: keys,
                required: ["token-url", "client-id", "client-secret-env"]
            ),
            let url = f.string("token-url"), let id = f.string("client-id"),
            let variable = f.string("client-secret-env")
        else { return nil }
        if !(url.hasPrefix("/") || isHTTPURL(url)) {
            fail(f, "token-url", "expected an http(s):// URL or a path on the SUT's base URL")
        }
        guard let secret = environment[variable], !secret.isEmpty else {
            fail(f, "client-secret-env", "the environment variable \(variable) (the client secret) is not set")
            return nil
        }
        var o = OAuth2(tokenURL: url, clientID: id, clientSecret: secret, secretVariable: variable)
        o.scope = f.string("scope")
        o.audience = f.string("audience")
        if f.has("client-authentication") {
            o.clientAuthentication =
                f.choice("client-authentication", OAuth2.ClientAuthentication.self, what: "client authentication")
                ?? .basic
        }
        if let d = f.duration("refresh-before", allowZero: true) { o.refreshBefore = Double(d.milliseconds) / 1000 }
        return o
    }

    func alerts(_ node: Node) -> AlertSource? {
        let keys = ["url", "list", "paging", "fields", "time-format", "clock", "push", "source"]
        guard let f = reader.mapping(node, "alerts", allowed: keys, required: ["fields"]) else { return nil }
        let pushOnly = pushSource(f)
        let url = f.string("url") ?? ""
        if pushOnly == nil, !f.has("url") {
            fail(
                f,
                "url",
                "required key 'url' is missing (where the alert list is polled; or source: sse, mqtt or webhook)"
            )
        } else if pushOnly == nil, !(url.hasPrefix("/") || isHTTPURL(url)) {
            fail(f, "url", "expected an http(s):// URL or a path on the SUT's base URL")
        }
        if let pushOnly {
            for key in ["url", "list", "paging"] where f.has(key) {
                fail(f, key, "alerts pushed on \(pushOnly.rawValue) (source) are not polled: remove \(key)")
            }
        }
        let list = f.has("list") ? pointer(f, "list") : JSONPointer.root
        guard let fieldsNode = f.value("fields"), var fields = alertFields(fieldsNode) else { return nil }
        if f.has("time-format") {
            fields.timeFormat = f.choice("time-format", AlertFields.TimeFormat.self, what: "time format") ?? .rfc3339
        }
        var source = AlertSource(url: url, list: list ?? JSONPointer.root, fields: fields)
        if let p = f.value("paging") { source.paging = paging(p) }
        if let p = f.value("push") { source.push = push(p) }
        if f.has("clock") { source.clock = f.choice("clock", AlertSource.Clock.self, what: "clock") ?? .device }
        source.pushOnly = pushOnly
        return source
    }

    /// `alerts.source`: `poll` (nil) or the push channel that is the only alert source.
    func pushSource(_ f: Fields) -> PushChannel? {
        guard let text = f.string("source"), text != "poll" else { return nil }
        if let channel = PushChannel(rawValue: text) { return channel }
        fail(
            f,
            "source",
            "unknown alert source '\(text)'; valid: poll, "
                + PushChannel.allCases.map(\.rawValue).joined(separator: ", ")
        )
        return nil
    }

    func push(_ node: Node) -> AlertSource.Push {
        var push = AlertSource.Push()
        guard let f = reader.mapping(node, "alerts.push", allowed: ["sse", "mqtt-topic", "item"]) else { return push }
        if let sse = f.string("sse") {
            if !(sse.hasPrefix("/") || isHTTPURL(sse)) {
                fail(f, "sse", "expected an http(s):// URL or a path on the SUT's base URL")
            }
            push.sse = sse
        }
        if let topic = f.string("mqtt-topic") {
            if topic.isEmpty || topic.contains("#") && !topic.hasSuffix("#") {
                fail(f, "mqtt-topic", "expected an MQTT topic filter ('#' only at the end)")
            }
            push.mqttTopic = topic
        }
        if f.has("item"), let p = pointer(f, "item") { push.item = p }
        return push
    }

    /// `paging:` of a list: `none`, `fhir-bundle`, `{next: POINTER}` (the next page's URL) or
    /// `{cursor: POINTER, parameter: NAME}` (a cursor passed back as a query parameter).
    func paging(_ node: Node, _ field: String = "alerts.paging") -> AlertSource.Paging {
        if node.scalar?.string == "fhir-bundle" { return .fhirBundle }
        if node.scalar?.string == "none" { return .none }
        let expected = "expected none, fhir-bundle, {next: POINTER} or {cursor: POINTER, parameter: NAME}"
        guard node.mapping != nil else {
            reader.fail(node, field, "\(expected), got \(reader.kindName(node))")
            return .none
        }
        guard let f = reader.mapping(node, field, allowed: ["next", "cursor", "parameter"]) else { return .none }
        if let p = f.has("next") ? pointer(f, "next") : nil {
            for key in ["cursor", "parameter"] where f.has(key) {
                fail(f, key, "next names the next page's URL: remove \(key)")
            }
            return .next(p)
        }
        guard f.has("cursor") else {
            if !f.has("next") { reader.fail(node, field, expected) }
            return .none
        }
        guard let p = pointer(f, "cursor") else { return .none }
        guard let parameter = f.string("parameter"), !parameter.isEmpty else {
            reader.fail(
                node,
                f.path("parameter"),
                "a cursor needs the query parameter it is passed back in (parameter: after)"
            )
            return .none
        }
        return .cursor(p, parameter: parameter)
    }

    func alertFields(_ node: Node) -> AlertFields? {
        let keys = ["id", "patient", "rule", "severity", "raised-at", "evidence"]
        guard let f = reader.mapping(node, "alerts.fields", allowed: keys, required: Array(keys.dropLast())) else {
            return nil
        }
        let specs = keys.map { key in f.value(key).flatMap { fieldSpec($0, f.path(key)) } }
        guard let id = specs[0], let patient = specs[1], let rule = specs[2], let severity = specs[3],
            let raised = specs[4]
        else {
            return nil
        }
        if let e = specs[5], e.values != nil {
            reader.fail(f.value("evidence"), f.path("evidence"), "evidence takes no map")
        }
        return AlertFields(
            id: id,
            patient: patient,
            rule: rule,
            severity: severity,
            raisedAt: raised,
            evidence: specs[5]
        )
    }

    /// A field: a pointer, or `{pointer, strip-prefix, map}`.
    func fieldSpec(_ node: Node, _ field: String) -> FieldSpec? {
        if node.scalar != nil { return parsePointer(node, field).map { FieldSpec($0) } }
        guard let f = reader.mapping(node, field, allowed: ["pointer", "strip-prefix", "map"], required: ["pointer"]),
            let p = pointer(f, "pointer")
        else { return nil }
        var spec = FieldSpec(p, stripPrefix: f.string("strip-prefix"))
        if let m = f.value("map") { spec.values = stringMap(m, f.path("map")) }
        return spec
    }

    func pointer(_ f: Fields, _ key: String) -> JSONPointer? {
        guard let node = f.value(key) else { return nil }
        return parsePointer(node, f.path(key))
    }

    func parsePointer(_ node: Node, _ field: String) -> JSONPointer? {
        guard let text = node.scalar?.string else {
            reader.fail(
                node,
                field,
                "expected a JSON Pointer such as /items or /subject/reference, got \(reader.kindName(node))"
            )
            return nil
        }
        do throws(JSONPointer.SyntaxError) { return try JSONPointer(text) } catch {
            reader.fail(node, field, error.message)
            return nil
        }
    }
}
