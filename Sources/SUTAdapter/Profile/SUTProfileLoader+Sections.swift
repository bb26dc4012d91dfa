import Foundation
import RunRecord
import Transports
import VitalSimCore
import Yams

extension SUTProfileLoader.Context {
    func tls(_ node: Node) -> SUTProfile.TLS {
        var tls = SUTProfile.TLS()
        guard let fields = reader.mapping(node, "tls", allowed: ["ca", "insecure", "client-certificate", "client-key"])
        else { return tls }
        tls.caFile = existingFile(fields, "ca")
        tls.clientCertificate = existingFile(fields, "client-certificate")
        tls.clientKey = existingFile(fields, "client-key")
        if fields.has("client-certificate") != fields.has("client-key") {
            fail(
                fields,
                fields.has("client-certificate") ? "client-certificate" : "client-key",
                "client-certificate and client-key go together"
            )
        }
        tls.insecure = bool(fields, "insecure") ?? false
        if tls.insecure, tls.caFile != nil {
            fail(fields, "insecure", "give either ca (verify with this CA) or insecure: true, not both")
        }
        return tls
    }

    func mqtt(_ node: Node) -> SUTProfile.MQTTSettings {
        var mqtt = SUTProfile.MQTTSettings()
        let keys = [
            "username", "password-env", "client-certificate", "client-key", "topic", "rejections", "confirmations",
            "device-credentials",
        ]
        guard let fields = reader.mapping(node, "mqtt", allowed: keys) else { return mqtt }
        if let carriage = fields.choice(
            "device-credentials",
            SUTProfile.DeviceCredentialCarriage.self,
            what: "device-credentials"
        ) {
            mqtt.deviceCredentials = carriage
        }
        if let rejectionsNode = fields.value("rejections") { mqtt.rejections = rejections(rejectionsNode) }
        if let confirmationsNode = fields.value("confirmations") {
            mqtt.confirmations = confirmations(confirmationsNode)
        }
        if let text = fields.string("topic") {
            do throws(MQTTTopicTemplateError) { mqtt.topic = try MQTTTopicTemplate(text) } catch {
                fail(fields, "topic", error.description)
            }
        }
        mqtt.username = fields.string("username")
        if let variable = fields.string("password-env") {
            if mqtt.username == nil { fail(fields, "password-env", "a password goes with a username") }
            if let password = environment[variable] {
                mqtt.password = password
            } else {
                fail(fields, "password-env", "the environment variable \(variable) (the MQTT password) is not set")
            }
        }
        mqtt.clientCertificate = existingFile(fields, "client-certificate")
        mqtt.clientKey = existingFile(fields, "client-key")
        if fields.has("client-certificate") != fields.has("client-key") {
            fail(
                fields,
                fields.has("client-certificate") ? "client-certificate" : "client-key",
                "client-certificate and client-key go together"
            )
        }
        return mqtt
    }

    /// `mqtt.rejections`: `none`, or where the SUT's refusals of MQTT readings are and what they say.
    func rejections(_ node: Node) -> SUTProfile.MQTTRejections? {
        if node.scalar?.string == "none" { return nil }
        var rejections = SUTProfile.MQTTRejections()
        let keys = ["topic", "reading-id", "status", "field"]
        guard let fields = reader.mapping(node, "mqtt.rejections", allowed: keys) else { return rejections }
        if let topic = topicFilter(fields) { rejections.topic = topic }
        if fields.has("reading-id"), let parsed = pointer(fields, "reading-id") { rejections.readingID = parsed }
        if fields.has("status"), let parsed = pointer(fields, "status") { rejections.status = parsed }
        if fields.has("field"), let parsed = pointer(fields, "field") { rejections.field = parsed }
        return rejections
    }

    /// `mqtt.confirmations`: `none`, or where the SUT confirms stored MQTT readings and where the ids are.
    func confirmations(_ node: Node) -> SUTProfile.MQTTConfirmations? {
        if node.scalar?.string == "none" { return nil }
        var confirmations = SUTProfile.MQTTConfirmations()
        guard let fields = reader.mapping(node, "mqtt.confirmations", allowed: ["topic", "reading-id"]) else {
            return confirmations
        }
        if let topic = topicFilter(fields) { confirmations.topic = topic }
        guard let value = fields.value("reading-id") else { return confirmations }
        if let list = value.sequence {
            if list.isEmpty { fail(fields, "reading-id", "give a JSON Pointer or a list of them") }
            confirmations.readingIDs = list.enumerated().compactMap { i, node in
                parsePointer(node, fields.path("reading-id") + "[\(i)]")
            }
        } else if let parsed = pointer(fields, "reading-id") {
            confirmations.readingIDs = [parsed]
        }
        return confirmations
    }

    /// A section's `topic`: an MQTT topic filter.
    func topicFilter(_ fields: Fields) -> String? {
        guard let topic = fields.string("topic") else { return nil }
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        let badWildcard =
            levels.dropLast().contains("#")
            || levels.contains { $0 != "#" && $0 != "+" && ($0.contains("#") || $0.contains("+")) }
        if topic.isEmpty || badWildcard {
            fail(fields, "topic", "expected an MQTT topic filter ('+' a whole level, '#' only as the last level)")
        }
        return topic
    }

    func auth(_ node: Node) -> SUTProfile.Auth {
        var auth = SUTProfile.Auth()
        guard let fields = reader.mapping(node, "auth", allowed: ["headers", "reader", "devices", "oauth2"]) else {
            return auth
        }
        auth.headers = headers(fields, "headers")
        auth.reader = headers(fields, "reader")
        if let devicesNode = fields.value("devices") { auth.devices = devices(devicesNode) }
        if let oauth2Node = fields.value("oauth2") { auth.oauth2 = oauth2(oauth2Node) }
        return auth
    }

    func devices(_ node: Node) -> DeviceCredentials? {
        guard
            let fields = reader.mapping(
                node,
                "auth.devices",
                allowed: ["file", "header", "people-header"],
                required: ["file"]
            )
        else {
            return nil
        }
        let header =
            fields.value("header").flatMap { self.header($0, fields.path("header")) } ?? "Authorization: Bearer {token}"
        if !header.contains("{token}") {
            fail(fields, "header", "the header must contain {token}, where each device's token goes")
        }
        let peopleHeader = fields.value("people-header").flatMap { self.header($0, fields.path("people-header")) }
        if let peopleHeader, !peopleHeader.contains("{token}") {
            fail(fields, "people-header", "the header must contain {token}, where each person's token goes")
        }
        guard let path = existingFile(fields, "file") else { return nil }
        do throws(ScenarioLoadError) {
            var credentials = try DeviceCredentialsLoader.load(path: path, header: header)
            credentials.peopleHeader = peopleHeader
            return credentials
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
            let fields = reader.mapping(
                node,
                "auth.oauth2",
                allowed: keys,
                required: ["token-url", "client-id", "client-secret-env"]
            ),
            let url = fields.string("token-url"), let id = fields.string("client-id"),
            let variable = fields.string("client-secret-env")
        else { return nil }
        if !(url.hasPrefix("/") || isHTTPURL(url)) {
            fail(fields, "token-url", "expected an http(s):// URL or a path on the SUT's base URL")
        }
        guard let secret = environment[variable], !secret.isEmpty else {
            fail(fields, "client-secret-env", "the environment variable \(variable) (the client secret) is not set")
            return nil
        }
        var members = OAuth2(tokenURL: url, clientID: id, clientSecret: secret, secretVariable: variable)
        members.scope = fields.string("scope")
        members.audience = fields.string("audience")
        if fields.has("client-authentication") {
            members.clientAuthentication =
                fields.choice("client-authentication", OAuth2.ClientAuthentication.self, what: "client authentication")
                ?? .basic
        }
        if let refreshBefore = fields.duration("refresh-before", allowZero: true) {
            members.refreshBefore = Double(refreshBefore.milliseconds) / 1000
        }
        return members
    }

    func alerts(_ node: Node) -> AlertSource? {
        if node["source"]?.string == AlertSource.subscriptionSource {
            return subscriptionAlerts(node)
        }
        let keys = ["url", "list", "paging", "fields", "time-format", "clock", "push", "source", "webhook"]
        guard let section = reader.mapping(node, "alerts", allowed: keys, required: ["fields"]) else { return nil }
        let pushOnly = pushSource(section)
        let url = section.string("url") ?? ""
        if pushOnly == nil, !section.has("url") {
            fail(
                section,
                "url",
                "required key 'url' is missing (where the alert list is polled; or source: sse, mqtt or webhook)"
            )
        } else if pushOnly == nil, !(url.hasPrefix("/") || isHTTPURL(url)) {
            fail(section, "url", "expected an http(s):// URL or a path on the SUT's base URL")
        } else if let unknown = AlertSource.unknownVariables(in: url).first {
            fail(
                section,
                "url",
                "unknown variable {\(unknown)}: an alert URL may hold "
                    + AlertSource.urlVariables.map { "{\($0)}" }.joined(separator: ", ")
                    + " (docs/sut-profiles.md); anything else would be sent literally"
            )
        }
        if let pushOnly {
            for key in ["url", "list", "paging"] where section.has(key) {
                fail(section, key, "alerts pushed on \(pushOnly.rawValue) (source) are not polled: remove \(key)")
            }
        }
        let list = section.has("list") ? pointer(section, "list") : JSONPointer.root
        guard let fieldsNode = section.value("fields"), var fields = alertFields(fieldsNode) else { return nil }
        if section.has("time-format") {
            fields.timeFormat =
                section.choice("time-format", AlertFields.TimeFormat.self, what: "time format") ?? .rfc3339
        }
        var source = AlertSource(url: url, list: list ?? JSONPointer.root, fields: fields)
        if let pagingNode = section.value("paging") { source.paging = paging(pagingNode) }
        if let pushNode = section.value("push") { source.push = push(pushNode) }
        if let webhookNode = section.value("webhook") { source.webhook = webhook(webhookNode) }
        if section.has("clock") {
            source.clock = section.choice("clock", AlertSource.Clock.self, what: "clock") ?? .device
        }
        source.pushOnly = pushOnly
        return source
    }

    /// `alerts.source`: `poll` (nil) or the push channel that is the only alert source.
    func pushSource(_ fields: Fields) -> PushChannel? {
        guard let text = fields.string("source"), text != "poll" else { return nil }
        if let channel = PushChannel(rawValue: text) { return channel }
        fail(
            fields,
            "source",
            "unknown alert source '\(text)'; valid: poll, "
                + PushChannel.allCases.map(\.rawValue).joined(separator: ", ") + ", " + AlertSource.subscriptionSource
        )
        return nil
    }

    /// `alerts.webhook`: the receiver's fixed key (`key-env`) and the signature it checks.
    func webhook(_ node: Node) -> AlertSource.Webhook {
        var webhook = AlertSource.Webhook()
        guard let fields = reader.mapping(node, "alerts.webhook", allowed: ["key-env", "signature"]) else {
            return webhook
        }
        if let variable = fields.string("key-env") {
            if let key = environment[variable], key.count >= 16, key.allSatisfy({ $0.isLetter || $0.isNumber }) {
                webhook.key = key
            } else {
                fail(
                    fields,
                    "key-env",
                    "the environment variable \(variable) (the webhook receiver's key) is not set to 16 or more letters and digits"
                )
            }
        }
        if let signatureNode = fields.value("signature") { webhook.signature = signature(signatureNode) }
        return webhook
    }

    /// `alerts.webhook.signature`: `{scheme: hub-sha256|standard-webhooks, secret-env: NAME, header: NAME}`.
    func signature(_ node: Node) -> WebhookSignature? {
        guard
            let fields = reader.mapping(
                node,
                "alerts.webhook.signature",
                allowed: ["scheme", "secret-env", "header"],
                required: ["scheme", "secret-env"]
            ),
            let scheme = fields.choice("scheme", WebhookSignature.Scheme.self, what: "signature scheme"),
            let variable = fields.string("secret-env")
        else { return nil }
        guard let secret = environment[variable], !secret.isEmpty else {
            fail(fields, "secret-env", "the environment variable \(variable) (the webhook signing secret) is not set")
            return nil
        }
        if fields.has("header"), scheme != .hubSHA256 {
            fail(fields, "header", "only hub-sha256 names its header; standard-webhooks uses webhook-signature")
        }
        var signature = WebhookSignature(scheme: scheme, secret: secret)
        signature.secretVariable = variable
        if let header = fields.string("header") { signature.header = header }
        return signature
    }

    func push(_ node: Node) -> AlertSource.Push {
        var push = AlertSource.Push()
        guard let fields = reader.mapping(node, "alerts.push", allowed: ["sse", "mqtt-topic", "item"]) else {
            return push
        }
        if let sse = fields.string("sse") {
            if !(sse.hasPrefix("/") || isHTTPURL(sse)) {
                fail(fields, "sse", "expected an http(s):// URL or a path on the SUT's base URL")
            }
            push.sse = sse
        }
        if let topic = fields.string("mqtt-topic") {
            if topic.isEmpty || topic.contains("#") && !topic.hasSuffix("#") {
                fail(fields, "mqtt-topic", "expected an MQTT topic filter ('#' only at the end)")
            }
            push.mqttTopic = topic
        }
        if fields.has("item"), let p = pointer(fields, "item") { push.item = p }
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
        guard let fields = reader.mapping(node, field, allowed: ["next", "cursor", "parameter"]) else { return .none }
        if let parsed = fields.has("next") ? pointer(fields, "next") : nil {
            for key in ["cursor", "parameter"] where fields.has(key) {
                fail(fields, key, "next names the next page's URL: remove \(key)")
            }
            return .next(parsed)
        }
        guard fields.has("cursor") else {
            if !fields.has("next") { reader.fail(node, field, expected) }
            return .none
        }
        guard let cursor = pointer(fields, "cursor") else { return .none }
        guard let parameter = fields.string("parameter"), !parameter.isEmpty else {
            reader.fail(
                node,
                fields.path("parameter"),
                "a cursor needs the query parameter it is passed back in (parameter: after)"
            )
            return .none
        }
        return .cursor(cursor, parameter: parameter)
    }

    func alertFields(_ node: Node) -> AlertFields? {
        let keys = ["id", "patient", "rule", "severity", "raised-at", "evidence"]
        guard let fields = reader.mapping(node, "alerts.fields", allowed: keys, required: Array(keys.dropLast())) else {
            return nil
        }
        let specs = keys.map { key in fields.value(key).flatMap { fieldSpec($0, fields.path(key)) } }
        guard let id = specs[0], let patient = specs[1], let rule = specs[2], let severity = specs[3],
            let raised = specs[4]
        else {
            return nil
        }
        if let evidence = specs[5], evidence.values != nil {
            reader.fail(fields.value("evidence"), fields.path("evidence"), "evidence takes no map")
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
        guard
            let fields = reader.mapping(
                node,
                field,
                allowed: ["pointer", "strip-prefix", "map"],
                required: ["pointer"]
            ),
            let parsed = pointer(fields, "pointer")
        else { return nil }
        var spec = FieldSpec(parsed, stripPrefix: fields.string("strip-prefix"))
        if let mapNode = fields.value("map") { spec.values = stringMap(mapNode, fields.path("map")) }
        return spec
    }

    func pointer(_ fields: Fields, _ key: String) -> JSONPointer? {
        guard let node = fields.value(key) else { return nil }
        return parsePointer(node, fields.path(key))
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
