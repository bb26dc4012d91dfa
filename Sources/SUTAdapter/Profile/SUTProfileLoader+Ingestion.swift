import Foundation
import Traffic
import VitalSimCore
import Yams

extension SUTProfileLoader.Context {
    static let routeKeys = [
        "kinds", "device-types", "transport", "method", "path", "topic", "format", "template", "bundle-type",
        "content-type", "batch",
        "rejection-fields", "writes",
    ]
    static let formats = ["vitalsim-observation", "vitaledge", "fhir-observation", "fhir-bundle", "template", "gatt"]

    func ingestion(_ node: Node) -> SUTProfile.Ingestion {
        var ingestion = SUTProfile.Ingestion()
        guard
            let fields = reader.mapping(
                node,
                "ingestion",
                allowed: ["routes", "rejection-field", "rejection-status", "timeout"],
                required: ["routes"]
            )
        else {
            return ingestion
        }
        if fields.has("rejection-field") { ingestion.rejectionField = pointer(fields, "rejection-field") }
        if let timeout = fields.duration("timeout") { ingestion.timeout = Double(timeout.milliseconds) / 1000 }
        if let node = fields.value("rejection-status"), let statuses = statuses(node, fields.path("rejection-status")) {
            // Refused credentials or routes are misconfigurations, 429 an outage: never a judged refusal.
            for s in statuses.sorted() where !(400..<500).contains(s) || [401, 403, 404, 405, 429].contains(s) {
                reader.fail(
                    node,
                    fields.path("rejection-status"),
                    "\(s) cannot mean an invalid reading; give 4xx statuses other than 401, 403, 404, 405 and 429"
                )
            }
            ingestion.rejectionStatuses = statuses
        }
        guard let list = fields.list("routes") else { return ingestion }
        if list.isEmpty { fail(fields, "routes", "give at least one route") }
        let routes = list.enumerated().compactMap { i, node in route(node, "ingestion.routes[\(i)]") }
        ingestion.routes = IngestionRoutes(routes: routes)
        return ingestion
    }

    func route(_ node: Node, _ field: String) -> IngestionRoute? {
        guard let fields = reader.mapping(node, field, allowed: Self.routeKeys, required: ["format"]) else {
            return nil
        }
        var transport: RouteTransport?
        if let name = fields.string("transport") {
            transport = RouteTransport(rawValue: name)
            if transport == nil { fail(fields, "transport", "expected http or mqtt") }
        }
        guard let format = format(fields) else { return nil }
        var route: IngestionRoute
        if transport == .mqtt {
            route = mqttRoute(fields, format)
        } else {
            guard let path = httpPath(fields, format) else { return nil }
            route = IngestionRoute(path: path, format: format, contentType: defaultContentType(format))
            httpKeys(fields, format, into: &route)
        }
        route.transport = transport
        if fields.has("kinds") { route.kinds = names(fields, "kinds", VitalKind.self, what: "reading kind") }
        if fields.has("device-types") {
            route.deviceTypes = names(fields, "device-types", DeviceType.self, what: "device type")
        }
        if let mapNode = fields.value("rejection-fields") {
            route.fieldNames = fieldNames(mapNode, fields.path("rejection-fields"))
        }
        if let name = fields.string("writes") {
            if let writes = FHIRWrites(rawValue: name) {
                route.writes = writes
            } else {
                fail(fields, "writes", "expected conditional-create or create")
            }
            if !format.isFHIR || transport == .mqtt {
                fail(fields, "writes", "writes is only read for a FHIR format over HTTP")
            }
        }
        return route
    }

    /// An HTTP route's `path`: on the SUT's base URL or an http(s) URL, with known placeholders.
    func httpPath(_ fields: Fields, _ format: IngestionFormat) -> String? {
        if fields.has("topic") { fail(fields, "topic", "a topic is only read with transport: mqtt") }
        guard fields.has("path") else {
            fail(fields, "path", "an HTTP route needs a path (or give transport: mqtt and a topic)")
            return nil
        }
        guard let path = fields.string("path") else { return nil }
        if !path.hasPrefix("/"),
            !isHTTPURL(path.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: ""))
        {
            fail(
                fields,
                "path",
                "expected a path on the SUT's base URL, starting with /, or an http(s):// URL of another endpoint"
            )
        }
        for name in placeholders(path) where !["patient", "device", "kind"].contains(name) {
            fail(fields, "path", "unknown placeholder {\(name)}; valid: {patient}, {device}, {kind}")
        }
        if case .gatt = format { fail(fields, "format", "format gatt is only sent over MQTT (transport: mqtt)") }
        return path
    }

    /// `method`, `content-type` and `batch` of an HTTP route.
    func httpKeys(_ fields: Fields, _ format: IngestionFormat, into route: inout IngestionRoute) {
        if let method = fields.string("method") {
            if ["POST", "PUT", "PATCH"].contains(method) {
                route.method = method
            } else {
                fail(fields, "method", "expected POST, PUT or PATCH")
            }
        }
        if let type = fields.string("content-type") { route.contentType = type }
        if fields.has("batch") {
            let count = fields.integer("batch", in: 1...1000).map(Int.init) ?? 1
            if count > 1, !format.batches {
                fail(
                    fields,
                    "batch",
                    "format \(format.name) sends one reading per request; batch with vitalsim-observation or fhir-bundle"
                )
            }
            route.batch = count
        } else if format.batches {
            route.batch = TrafficPlan.maxBatch
        }
    }

    /// An MQTT route: its `topic` (default: `mqtt.topic`), one reading per message.
    func mqttRoute(_ fields: Fields, _ format: IngestionFormat) -> IngestionRoute {
        for key in ["path", "method", "content-type"] where fields.has(key) {
            fail(fields, key, "\(key) is only read with transport: http (an MQTT route has a topic)")
        }
        if fields.has("batch") { fail(fields, "batch", "an MQTT route sends one reading per message") }
        var route = IngestionRoute(path: "", format: format, batch: 1)
        if let text = fields.string("topic") {
            do throws(MQTTTopicTemplateError) { route.topic = try MQTTTopicTemplate(text) } catch {
                fail(fields, "topic", error.description)
            }
        }
        return route
    }

    func format(_ fields: Fields) -> IngestionFormat? {
        guard let name = fields.string("format") else { return nil }
        if name != "template", fields.has("template") {
            fail(fields, "template", "a template is only read with format: template")
        }
        if name != "fhir-bundle", fields.has("bundle-type") {
            fail(fields, "bundle-type", "bundle-type is only read with format: fhir-bundle")
        }
        switch name {
        case "vitalsim-observation": return .vitalsimObservation
        case "gatt": return .gatt
        case "vitaledge": return .vitaledge
        case "fhir-observation": return .fhirObservation
        case "fhir-bundle":
            let type = fields.string("bundle-type") ?? "transaction"
            if !["transaction", "batch"].contains(type) {
                fail(fields, "bundle-type", "expected transaction or batch")
            }
            return .fhirBundle(type: type)
        case "template":
            guard fields.has("template") else {
                fail(
                    fields,
                    "format",
                    "format: template needs template: FILE (a Mustache template, relative to the profile's folder)"
                )
                return nil
            }
            guard let path = existingFile(fields, "template") else { return nil }
            let source: String
            do { source = try FileText.read(path) } catch {
                fail(fields, "template", "cannot read \(path): \(error)")
                return nil
            }
            do throws(TemplatePayloadError) { return .template(try TemplatePayload(source: source)) } catch {
                let issue = ScenarioIssue(
                    file: path,
                    line: error.line,
                    column: error.column,
                    field: "",
                    message: "template: \(error.message)"
                )
                reader.record([issue])
                return nil
            }
        default:
            var message = "unknown format '\(name)'; valid: \(Self.formats.joined(separator: ", "))"
            if let near = YAMLReader.nearest(name, in: Self.formats) { message += " (did you mean '\(near)'?)" }
            fail(fields, "format", message)
            return nil
        }
    }

    func defaultContentType(_ format: IngestionFormat) -> String {
        switch format {
        case .fhirObservation, .fhirBundle: "application/fhir+json"
        default: "application/json"
        }
    }

    /// `{name}` placeholders of a path template.
    func placeholders(_ path: String) -> [String] {
        var out: [String] = []
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return out
    }

    /// A list of enum names (`[heart-rate, spo2]`).
    func names<E: RawRepresentable & CaseIterable & Hashable>(
        _ fields: Fields,
        _ key: String,
        _ type: E.Type,
        what: String
    ) -> Set<E>?
    where E.RawValue == String {
        guard let list = fields.list(key) else { return nil }
        var out: Set<E> = []
        let valid = E.allCases.map(\.rawValue)
        for (i, node) in list.enumerated() {
            guard let name = node.scalar?.string, let value = E(rawValue: name) else {
                var message = "expected a \(what), got \(node.scalar.map { "'\($0.string)'" } ?? reader.kindName(node))"
                if let name = node.scalar?.string, let near = YAMLReader.nearest(name, in: valid) {
                    message += " (did you mean '\(near)'?)"
                }
                reader.fail(node, fields.path(key) + "[\(i)]", message + "; valid: " + valid.joined(separator: ", "))
                continue
            }
            out.insert(value)
        }
        if list.isEmpty { fail(fields, key, "give at least one \(what), or leave the key out to match any") }
        return out
    }

    /// `{value: heartRate, timestamp: [ts, time]}`: golden-file field names → the SUT's names.
    func fieldNames(_ node: Node, _ field: String) -> [String: [String]] {
        guard let map = node.mapping else {
            reader.fail(node, field, "expected a mapping of field names, got \(reader.kindName(node))")
            return [:]
        }
        let canonical = ["value", "systolic", "timestamp", "unit", JSONCorruption.unknownKey, "heartRate", "stepCount"]
        var out: [String: [String]] = [:]
        for (k, v) in map {
            guard let key = k.scalar?.string, canonical.contains(key) else {
                reader.fail(
                    k,
                    field,
                    "expected one of \(canonical.joined(separator: ", ")), got \(k.scalar.map { "'\($0.string)'" } ?? reader.kindName(k))"
                )
                continue
            }
            if let one = v.scalar?.string, !one.isEmpty {
                out[key] = [one]
            } else if let seq = v.sequence, seq.allSatisfy({ $0.scalar?.string.isEmpty == false }), !seq.isEmpty {
                out[key] = seq.compactMap { $0.scalar?.string }
            } else {
                reader.fail(v, field + "." + key, "expected a name or a list of names, got \(reader.kindName(v))")
            }
        }
        return out
    }
}
