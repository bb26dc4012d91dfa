import Foundation
import VitalSimCore

/// Alerts read from a FHIR R4 server's Subscription notifications (`alerts.source:
/// fhir-subscription`): at enrolment the harness creates one Subscription per patient and entry of
/// ``rules`` on the server, each telling its own endpoint on the harness's receiver; every
/// notification of one is an alert of that entry's constant rule and severity, and the
/// notifications of one episode are one alert: those of readings that follow one another in their
/// device's stream (no reading missed the criteria between them), or, for ids VitalSim did not
/// number, those no further apart than ``episodeGap`` in device time.
/// The Subscriptions are deleted at the patient's reset.
package struct FHIRSubscriptions: Sendable, Equatable {
    /// Which kind of Subscription is created.
    package enum Style: String, Sendable, CaseIterable {
        /// R4's own, criteria-based Subscription: `criteria` is a search, and a notification is the
        /// matching resource itself, `PUT {endpoint}/{type}/{id}` or `POST {endpoint}`.
        case restHook = "rest-hook"
        /// The R4 Subscriptions Backport IG's topic-based Subscription: `criteria` is a topic's
        /// canonical URL, `filters` narrow it; notifications are history Bundles whose first entry is
        /// the subscription's status (handshake, heartbeat, event-notification), with an event count
        /// that shows lost notifications.
        case backport
    }

    /// What a notification carries.
    package enum Payload: String, Sendable, CaseIterable {
        /// The resource that triggered it: its reading id and device time are read from it.
        case fullResource = "full-resource"
        /// Only the triggering resource's reference (Backport only): the alert's time is when the
        /// notification arrived, placed on device time as `alerts.clock: server` does.
        case idOnly = "id-only"
    }

    /// One kind of alert: its rule and severity, constant for each of its Subscriptions.
    package struct Rule: Sendable, Equatable {
        /// VitalSim's rule id (`temp.fever`).
        package var rule: String
        /// VitalSim's severity name.
        package var severity: String
        /// `rest-hook`: the search a resource must match (`Observation?patient=Patient/{patient}&…`);
        /// `backport`: the topic's canonical URL. `{patient}` is the patient's id at the server.
        package var criteria: String
        /// `backport`: the topic's filters (`Observation?patient=Patient/{patient}`), ANDed.
        package var filters: [String] = []

        package init(rule: String, severity: String, criteria: String, filters: [String] = []) {
            self.rule = rule
            self.severity = severity
            self.criteria = criteria
            self.filters = filters
        }
    }

    package var style: Style
    /// The server's FHIR base, a path on the SUT's base URL (`/fhir`; empty: the base URL itself).
    package var fhirBase = ""
    package var payload = Payload.fullResource
    /// `backport`: the heartbeat period asked for, in seconds (nil: none asked).
    package var heartbeatSeconds: Int?
    /// The longest device-time gap between two notifications of one rule and patient within one
    /// episode, for readings whose ids carry no sequence number.
    package var episodeGap = VirtualDuration.minutes(30)
    /// How long the harness waits at enrolment for a Backport handshake.
    package var handshakeTimeout = 10.0
    /// The receiver's base URL as the server calls it (through a proxy, say), ending in `/`; each
    /// Subscription's endpoint is it and its key. Nil: the receiver's own, `http://127.0.0.1:PORT/fhir/`.
    package var endpointBase: String?
    package var rules: [Rule]

    package init(style: Style, rules: [Rule]) {
        self.style = style
        self.rules = rules
    }

    /// The canonical URLs of the Backport IG's structure definitions and extensions.
    package static let backportBase = "http://hl7.org/fhir/uv/subscriptions-backport/StructureDefinition/"

    /// The Subscription resource for entry `rule` of the patient whose id at the server is
    /// `patient`, notifying `endpoint`.
    package func resource(for rule: Rule, patient: String, endpoint: String) -> JSONValue {
        func filled(_ text: String) -> String { text.replacingOccurrences(of: "{patient}", with: patient) }
        let reason = JSONValue.string("VitalSim alert source: \(rule.rule) of patient \(patient)")
        switch style {
        case .restHook:
            let channel: JSONValue = .object([
                ("type", .string("rest-hook")), ("endpoint", .string(endpoint)),
                ("payload", .string("application/fhir+json")),
            ])
            return .object([
                ("resourceType", .string("Subscription")), ("status", .string("requested")), ("reason", reason),
                ("criteria", .string(filled(rule.criteria))), ("channel", channel),
            ])
        case .backport:
            var channel: [(String, JSONValue)] = [
                ("type", .string("rest-hook")), ("endpoint", .string(endpoint)),
                ("payload", .string("application/fhir+json")),
                ("_payload", Self.extensions([("backport-payload-content", "valueCode", .string(payload.rawValue))])),
            ]
            if let heartbeatSeconds {
                channel.insert(
                    (
                        "extension",
                        Self.extensionList([
                            ("backport-heartbeat-period", "valueUnsignedInt", .int(Int64(heartbeatSeconds)))
                        ])
                    ),
                    at: 0
                )
            }
            var members: [(String, JSONValue)] = [
                ("resourceType", .string("Subscription")),
                ("meta", .object([("profile", .array([.string(Self.backportBase + "backport-subscription")]))])),
                ("status", .string("requested")), ("reason", reason), ("criteria", .string(rule.criteria)),
            ]
            if !rule.filters.isEmpty {
                members.append(
                    (
                        "_criteria",
                        Self.extensions(
                            rule.filters.map { ("backport-filter-criteria", "valueString", .string(filled($0))) }
                        )
                    )
                )
            }
            members.append(("channel", .object(channel)))
            return .object(members)
        }
    }

    /// `{"extension": [...]}` of Backport extensions, each `(name, value key, value)`.
    static func extensions(_ items: [(String, String, JSONValue)]) -> JSONValue {
        .object([("extension", extensionList(items))])
    }

    static func extensionList(_ items: [(String, String, JSONValue)]) -> JSONValue {
        .array(items.map { .object([("url", .string(backportBase + $0.0)), ($0.1, $0.2)]) })
    }
}
