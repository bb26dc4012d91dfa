import Foundation
import RunRecord
import Transports
import VitalSimCore

/// Where a SUT's alerts are read (`alerts:` of a profile) and how an alert's fields map to
/// VitalSim's: polled from ``url`` (a path on the SUT's base URL, or an absolute URL), the list at
/// ``list`` in each answer, later pages followed as ``paging`` says.
package struct AlertSource: Sendable, Equatable {
    /// The alert list's URL: a path on the SUT's base URL or an absolute URL.
    package var url: String
    /// Where the list of alerts is in an answer (the empty pointer: the answer is the list).
    package var list: JSONPointer
    /// How further pages are found.
    package var paging = Paging.none
    /// Where each field of an alert is.
    package var fields: AlertFields
    /// Where the SUT pushes alerts (`--observe sse|mqtt|webhook`), read with the same fields.
    package var push = Push()
    /// How the harness's webhook receiver knows a POST is the SUT's (`alerts.webhook`).
    package var webhook = Webhook()
    /// Whose clock an alert's time is on.
    package var clock = Clock.device
    /// The push channel that is the SUT's only alert source (`alerts.source: sse|mqtt|webhook`):
    /// nothing is polled, the run reads alerts as they are pushed. Nil: the list at ``url`` is polled.
    package var pushOnly: PushChannel?
    /// True for a SUT with no alert API at all (`alerts: none`): nothing is polled or pushed, and
    /// every check about alerts is not-applicable.
    package var absent = false
    /// Alerts read from FHIR Subscription notifications (`alerts.source: fhir-subscription`): the
    /// webhook receiver takes them, and the harness creates the Subscriptions at enrolment.
    package var subscriptions: FHIRSubscriptions?

    /// Whether the run polls the alert list at ``url``.
    package var polls: Bool { pushOnly == nil && !absent }

    /// The source of a SUT that has no alert API (`alerts: none`).
    package static var none: AlertSource {
        var source = AlertSource(url: "", list: .root, fields: AlertFields.vitalsim)
        source.absent = true
        return source
    }

    /// Whose clock an alert's `raised-at` is on (`alerts.clock` of a profile).
    package enum Clock: String, Sendable, CaseIterable {
        /// The device time of the reading that raised it (what the golden files' windows are in).
        case device
        /// The SUT's own clock when it raised the alert: the harness takes the device time of the
        /// patient's last request sent before that moment (the SUT's clock must agree with the
        /// harness's; on one machine it does).
        case server
    }

    /// The push channels of `alerts.push`: the SSE stream's URL, the MQTT topic filter, and where
    /// the alert is in a pushed message.
    package struct Push: Sendable, Equatable {
        /// The SSE stream: a path on the base URL or an absolute URL.
        package var sse = "/api/v1/alerts/stream"
        /// The MQTT topic filter alerts are published under.
        package var mqttTopic = "alerts/+"
        /// The alert within one SSE event's data, MQTT message or webhook body (empty: the whole).
        package var item = JSONPointer.root

        package init() {}
    }

    /// What proves a POST to the harness's webhook receiver is the SUT's: the secret key in the
    /// receiver's URL (random per receiver unless `key-env` fixes it) and, where the profile says,
    /// a signature of each body.
    package struct Webhook: Sendable, Equatable {
        /// The key the receiver's URL ends with (`key-env`); nil: a random one per receiver.
        package var key: String?
        /// The signature every POST must carry (`signature:`); nil: the key alone.
        package var signature: WebhookSignature?

        package init() {}
    }

    /// The alert of a pushed message (an SSE event's data, an MQTT payload, a webhook body), read
    /// with ``fields`` and `mapping`; nil when it is not a readable alert.
    package func pushed(_ bytes: [UInt8], mapping: SUTProfile.NameMapping) -> ObservedAlert? {
        try? read(pushed: bytes, mapping: mapping).get()
    }

    /// The alert of a pushed message, or why it is none (for the reports and misconfigurations).
    package func read(pushed bytes: [UInt8], mapping: SUTProfile.NameMapping) -> Result<ObservedAlert, UnreadableAlert>
    {
        let excerpt = String(decoding: bytes.prefix(200), as: UTF8.self)
        let document: Any
        do throws(SUTJSON.Problem) { document = try SUTJSON.document(bytes) } catch {
            return .failure(UnreadableAlert(reason: "\(error): \(excerpt)"))
        }
        guard let item = push.item.value(in: document) else {
            return .failure(UnreadableAlert(reason: "nothing at \(push.item) (alerts.push.item): \(excerpt)"))
        }
        return fields.read(item, mapping: mapping).mapError { UnreadableAlert(reason: "\($0.reason): \(excerpt)") }
    }

    package init(url: String, list: JSONPointer, paging: Paging = .none, fields: AlertFields) {
        self.url = url
        self.list = list
        self.paging = paging
        self.fields = fields
    }

    /// The reference SUT's alert API: `GET /api/v1/alerts`, a bare JSON array.
    package static let vitalsim = AlertSource(url: "/api/v1/alerts", list: JSONPointer.root, fields: .vitalsim)

    /// The absolute URL of the alert list for a SUT at `base` (the first of ``urls``).
    package func absoluteURL(base: String) -> String { SUTProfile.resolve(urls.first ?? url, base: base) }

    /// The variables an alert URL may hold: `{patient}` (the list is read once per patient of the
    /// run, by its id at the SUT), `{since}` (the scenario's start, RFC 3339 UTC with milliseconds)
    /// and `{run}` (the run id). Any other `{…}` is an error when the profile is loaded.
    package static let urlVariables = ["patient", "since", "run"]

    /// The URLs read on each poll: ``url`` with its variables substituted (see ``expanded``); just
    /// ``url`` until then.
    package var urls: [String] { expandedURLs ?? [url] }
    private var expandedURLs: [String]?

    /// This source with ``url``'s variables substituted for a run: one URL per patient (`patients`,
    /// ids at the SUT, in order) when it names `{patient}`, else one.
    package func expanded(patients: [String], since: Int64, run: String) -> AlertSource {
        var out = self
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        func encoded(_ value: String) -> String { value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value }
        let common = url.replacingOccurrences(of: "{run}", with: encoded(run))
            .replacingOccurrences(
                of: "{since}",
                with: encoded(CivilTime(unixMilliseconds: since).iso8601(fractional: true))
            )
        out.expandedURLs =
            common.contains("{patient}")
            ? patients.map { common.replacingOccurrences(of: "{patient}", with: encoded($0)) } : [common]
        return out
    }

    /// The `{…}` names of `template` that are not ``urlVariables``.
    package static func unknownVariables(in template: String) -> [String] {
        var unknown: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            if !urlVariables.contains(name) { unknown.append(name) }
            rest = rest[rest.index(after: close)...]
        }
        return unknown
    }

    /// How the pages of an alert list are followed.
    package enum Paging: Sendable, Equatable {
        /// One answer holds the whole list.
        case none
        /// A FHIR Bundle: the `link` whose `relation` is `next`.
        case fhirBundle
        /// The URL at this pointer (absent or null on the last page).
        case next(JSONPointer)
        /// A cursor at this pointer (absent or null on the last page), passed back as the query
        /// parameter `parameter` of the same URL.
        case cursor(JSONPointer, parameter: String)

        /// The URL of the page after `document` (read from `current`), relative URLs resolved against `base`.
        package func next(_ document: Any, current: String, base: String) -> String? {
            let next: Any?
            switch self {
            case .none: return nil
            case .fhirBundle:
                let links = (document as? [String: Any])?["link"] as? [[String: Any]] ?? []
                next = links.first { ($0["relation"] as? String) == "next" }?["url"]
            case .next(let pointer): next = pointer.value(in: document)
            case .cursor(let pointer, let parameter):
                guard let cursor = pointer.value(in: document).flatMap(FieldSpec.scalarText), !cursor.isEmpty else {
                    return nil
                }
                return Self.replacing(parameter, with: cursor, in: current)
            }
            guard let url = next as? String, !url.isEmpty else { return nil }
            return SUTProfile.resolve(url, base: base)
        }

        /// `url` with the query parameter `name` set to `value` (replaced when present).
        static func replacing(_ name: String, with value: String, in url: String) -> String {
            guard var parts = URLComponents(string: url) else { return url }
            var items = (parts.queryItems ?? []).filter { $0.name != name }
            items.append(URLQueryItem(name: name, value: value))
            parts.queryItems = items
            return parts.string ?? url
        }
    }

    /// The items of the alert list in an answer, nil when there is no list where ``list`` points. A
    /// pointer with `*` (e.g. `/entry/*/resource` of a FHIR Bundle) collects its values; the part
    /// before its first `*` must be present, except `entry` of a FHIR Bundle, absent when it is empty.
    package func items(in document: Any) -> [Any]? { list.items(in: document) }

    /// The URL of the page after `document`, read from `current`, if any (relative URLs resolved against `base`).
    package func nextPage(_ document: Any, current: String = "", base: String) -> String? {
        paging.next(document, current: current, base: base)
    }
}

extension JSONPointer {
    /// The empty pointer: the whole document.
    package static let root = JSONPointer(tokens: [])

    /// The list this pointer selects in `document`, nil when there is none. A pointer with `*`
    /// (e.g. `/entry/*/resource` of a FHIR Bundle) collects its values; the part before its first
    /// `*` must be present, except `entry` of a FHIR Bundle, absent when it is empty.
    package func items(in document: Any) -> [Any]? {
        guard selectsMany else { return value(in: document) as? [Any] }
        let prefix = Array(tokens.prefix { $0 != "*" })
        guard let container = JSONPointer(tokens: prefix).value(in: document) else {
            let bundle = (document as? [String: Any])?["resourceType"] as? String == "Bundle"
            return bundle && prefix == ["entry"] ? [] : nil
        }
        guard container is [Any] || container is [String: Any] else { return nil }
        return values(in: document)
    }
}

extension SUTProfile {
    /// `url` if absolute (`http://`, `https://`), else `url` as a path on `base`.
    package static func resolve(_ url: String, base: String) -> String {
        if url.hasPrefix("http://") || url.hasPrefix("https://") { return url }
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        return trimmed + (url.hasPrefix("/") ? url : "/" + url)
    }
}
