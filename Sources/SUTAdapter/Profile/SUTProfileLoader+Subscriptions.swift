import Foundation
import RunRecord
import VitalSimCore
import Yams

extension AlertSource {
    /// `alerts.source` of alerts read from FHIR Subscription notifications.
    package static let subscriptionSource = "fhir-subscription"
}

extension SUTProfileLoader.Context {
    /// `alerts: {source: fhir-subscription, subscription: {style, fhir-base, payload, heartbeat, episode-gap,
    /// handshake-timeout, endpoint-base, rules: [{rule, severity, criteria, filters}]}}`.
    func subscriptionAlerts(_ node: Node) -> AlertSource? {
        guard
            let section = reader.mapping(
                node,
                "alerts",
                allowed: ["source", "subscription"],
                required: ["subscription"]
            ),
            let subscriptionNode = section.value("subscription")
        else { return nil }
        let keys = [
            "style", "fhir-base", "payload", "heartbeat", "episode-gap", "handshake-timeout", "endpoint-base", "rules",
        ]
        guard
            let fields = reader.mapping(
                subscriptionNode,
                section.path("subscription"),
                allowed: keys,
                required: ["style", "rules"]
            ),
            let style = fields.choice("style", FHIRSubscriptions.Style.self, what: "Subscription style")
        else { return nil }
        var settings = FHIRSubscriptions(style: style, rules: subscriptionRules(fields, style: style))
        if let fhirBase = fields.string("fhir-base") {
            if fhirBase.hasPrefix("/") {
                settings.fhirBase = fhirBase.hasSuffix("/") ? String(fhirBase.dropLast()) : fhirBase
            } else {
                fail(fields, "fhir-base", "expected a path on the SUT's base URL, such as /fhir")
            }
        }
        if fields.has("payload") {
            settings.payload =
                fields.choice("payload", FHIRSubscriptions.Payload.self, what: "payload") ?? .fullResource
        }
        if settings.payload == .idOnly, style == .restHook {
            fail(
                fields,
                "payload",
                "an R4 rest-hook notification carries the whole resource: id-only is for style backport"
            )
        }
        if let heartbeat = fields.integer("heartbeat", in: 1...86_400) {
            if style == .restHook {
                fail(fields, "heartbeat", "R4 rest-hook Subscriptions have no heartbeat (style backport does)")
            }
            settings.heartbeatSeconds = Int(heartbeat)
        }
        if let gap = fields.duration("episode-gap") { settings.episodeGap = gap }
        if let timeout = fields.number("handshake-timeout", in: 0.1...300, unit: "s") {
            settings.handshakeTimeout = timeout
        }
        if let base = fields.string("endpoint-base") {
            if base.hasPrefix("http://") || base.hasPrefix("https://") {
                settings.endpointBase = base.hasSuffix("/") ? base : base + "/"
            } else {
                fail(fields, "endpoint-base", "expected the http(s) URL the server calls the receiver at")
            }
        }
        var source = AlertSource(url: "", list: .root, fields: AlertFields.vitalsim)
        source.pushOnly = .webhook
        source.subscriptions = settings
        return source
    }

    /// `alerts.subscription.rules`: each entry's rule, severity, criteria and (Backport) filters.
    func subscriptionRules(_ fields: Fields, style: FHIRSubscriptions.Style) -> [FHIRSubscriptions.Rule] {
        guard let nodes = fields.list("rules") else { return [] }
        if nodes.isEmpty { fail(fields, "rules", "at least one rule: each is one Subscription per patient") }
        return nodes.enumerated().compactMap { index, node in
            let path = fields.path("rules") + "[\(index)]"
            let keys = ["rule", "severity", "criteria", "filters"]
            guard let entry = reader.mapping(node, path, allowed: keys, required: ["rule", "severity", "criteria"]),
                let rule = entry.string("rule"),
                let severity = entry.choice("severity", Severity.self, what: "severity"),
                let criteria = entry.string("criteria")
            else { return nil }
            if !AlertRuleIDs.all.contains(rule) {
                let hint = YAMLReader.nearest(rule, in: AlertRuleIDs.all).map { " (did you mean \($0)?)" } ?? ""
                fail(entry, "rule", "unknown rule '\(rule)'\(hint): VitalSim's rule ids are in docs/alert-rules.md")
            }
            switch style {
            case .restHook:
                if !criteria.contains("?") || criteria.hasPrefix("http") {
                    fail(entry, "criteria", "expected a search such as Observation?patient=Patient/{patient}&code=…")
                }
                if entry.has("filters") {
                    fail(entry, "filters", "filters are for style backport; put them in criteria")
                }
            case .backport:
                if !isHTTPURL(criteria) && !criteria.hasPrefix("urn:") {
                    fail(entry, "criteria", "expected the topic's canonical URL (style backport)")
                }
            }
            let filters = (entry.list("filters") ?? []).compactMap(\.string)
            return FHIRSubscriptions.Rule(rule: rule, severity: severity.rawValue, criteria: criteria, filters: filters)
        }
    }
}
