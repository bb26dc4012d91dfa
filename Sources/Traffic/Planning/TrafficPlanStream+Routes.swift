import Foundation
import VitalSimCore

extension TrafficPlanStream {
    /// A reading sent under the SUT profile's ingestion route that takes it (``IngestionRoutes/route(for:fromMQTT:)``),
    /// in its format and over its transport; corrupted and duplicated readings travel alone, the
    /// others in batches where an HTTP route batches. A reading whose route's format has no form for
    /// it becomes an unroutable request (the run stops as misconfigured, naming it).
    func route(_ reading: Reading, key: String, via found: (index: Int, route: IngestionRoute)) {
        let (index, route) = found
        func noForm() -> PlannedRequest {
            unroutable(
                reading,
                "ingestion route \(index + 1) of the SUT profile (\(route.summary)) carries \(what(reading)), "
                    + "but format \(route.format.name) has no form for them"
            )
        }
        if route.overMQTT {
            push(message(reading, route) ?? noForm())
            return
        }
        let path = route.path(for: reading)
        if case .template(let template) = route.format {
            guard let (body, rejection) = template.render(reading, start: start) else { return }
            push(
                routed(
                    single(reading, path: path, body: body, rejection: rejection.map { named($0, reading, route) }),
                    route
                )
            )
            return
        }
        guard let json = json(reading, route.format) else {
            push(noForm())
            return
        }
        let batchKey = "\(key)#\(index)"
        if let corruption = reading.delivery.corruption {
            close(batchKey)
            let (body, rejection) = corrupted(json, corruption, route)
            push(
                routed(
                    single(reading, path: path, body: body, rejection: named(rejection, reading, route)),
                    route,
                    reading
                )
            )
        } else if reading.delivery.duplicate || !route.format.batches || route.batch <= 1 {
            close(batchKey)
            push(
                routed(
                    single(reading, path: path, body: TrafficPlanStream.whole(json, route), rejection: nil),
                    route,
                    reading
                )
            )
        } else {
            let item = TrafficPlanStream.item(json, route)
            addToBatch(reading, key: batchKey, item: item) { item in
                let (prefix, suffix) = TrafficPlanStream.enclosure(route.format)
                return (
                    self.routed(self.single(reading, path: path, body: prefix + item, rejection: nil), route), suffix,
                    route.batch
                )
            }
        }
    }

    /// The JSON form of `r` in a JSON `format` (nil when the format has none for it).
    func json(_ reading: Reading, _ format: IngestionFormat) -> JSONValue? {
        switch format {
        case .vitaledge: VitalEdgeJSON.encode(reading, start: start)
        case .vitalsimObservation: ObservationJSON.encode(reading, start: start)
        case .fhirObservation, .fhirBundle: FHIRObservationJSON.encode(reading, start: start)
        case .template, .gatt: nil
        }
    }

    /// `r` as one MQTT message of an MQTT route: on the route's topic (else `mqtt.topic`), with the
    /// user properties of every VitalSim message, the payload in the route's format; nil when the
    /// format has no form for `r`.
    func message(_ reading: Reading, _ route: IngestionRoute) -> PlannedRequest? {
        var properties = TrafficPlan.properties(reading, start: start)
        let body: [UInt8]
        var rejection: ExpectedRejection?
        switch route.format {
        case .gatt:
            guard reading.deviceType.isBluetooth, let gatt = encoder.encode(reading).first,
                let uuid = gatt.characteristic
            else {
                return nil
            }
            properties.append(("characteristic", String(format: "%04X", uuid)))
            body = gatt.bytes
            if let corruption = reading.delivery.corruption {
                // A raw value has no fields: its refusal is judged by status, whatever field the SUT names.
                let golden = ObservationJSON.encode(reading, start: start).map {
                    ObservationJSON.corrupt($0, corruption).1.named(for: reading).field
                }
                rejection = ExpectedRejection(status: 400, field: golden ?? "payload", spellings: ["*"])
                // A raw value's fault (a flag, its length, its CRC) breaks the GATT layout itself.
                rejection?.level = .structure
            }
        case .template(let template):
            guard let (rendered, refusal) = template.render(reading, start: start) else { return nil }
            (body, rejection) = (rendered, refusal.map { named($0, reading, route) })
        default:
            guard let json = json(reading, route.format) else { return nil }
            if let corruption = reading.delivery.corruption {
                let (corrupt, refusal) = corrupted(json, corruption, route)
                (body, rejection) = (corrupt, named(refusal, reading, route))
            } else {
                body = TrafficPlanStream.whole(json, route)
            }
        }
        var request = single(reading, path: "", body: body, rejection: rejection)
        request.topic = (route.topic ?? mqttTopic).topic(
            patient: reading.patientID,
            device: reading.deviceID,
            kind: reading.kind.rawValue
        )
        request.userProperties = properties
        return request
    }

    /// How an unroutable reason names `r`: "battery readings of bp-cuff devices (device cuff-507 of patient 507)".
    func what(_ reading: Reading) -> String {
        let patient = naming.scenarioPatient(reading.patientID) ?? reading.patientID
        let device = naming.scenarioDevice(reading.deviceID, of: patient)
        return
            "\(reading.kind.rawValue) readings of \(reading.deviceType.rawValue) devices (device \(device) of patient \(patient))"
    }

    /// `rejection` with its field named as golden files name it, and the SUT's names of it that the
    /// route gives (`rejection-fields:`).
    func named(_ rejection: ExpectedRejection, _ reading: Reading, _ route: IngestionRoute) -> ExpectedRejection {
        var out = rejection.named(for: reading)
        out.spellings += route.fieldNames[out.field] ?? []
        return out
    }

    /// `request` with its route's method and content type; one Observation of `reading` written as a
    /// conditional create also asks for it with `If-None-Exist`.
    func routed(_ request: PlannedRequest, _ route: IngestionRoute, _ reading: Reading? = nil) -> PlannedRequest {
        var request = request
        request.method = route.method
        request.contentType = route.contentType
        if let reading, case .fhirObservation = route.format, route.createsConditionally {
            request.headers.append("If-None-Exist: " + FHIRWrites.condition(readingID: reading.id))
        }
        return request
    }

    /// A request that cannot be made (its reason in ``PlannedRequest/unroutable``).
    func unroutable(_ reading: Reading, _ reason: String) -> PlannedRequest {
        var request = single(reading, path: "", body: [], rejection: nil)
        request.unroutable = reason
        return request
    }

    /// A corrupted body in `route`'s format, and the rejection a SUT must answer with.
    func corrupted(
        _ json: JSONValue,
        _ corruption: Corruption,
        _ route: IngestionRoute
    ) -> ([UInt8], ExpectedRejection) {
        let format = route.format
        switch format {
        case .vitaledge: return VitalEdgeJSON.corrupt(json, corruption)
        case .vitalsimObservation, .template, .gatt: return ObservationJSON.corrupt(json, corruption)
        case .fhirObservation: return FHIRObservationJSON.corrupt(json, corruption)
        case .fhirBundle:
            var (resource, rejection) = FHIRObservationJSON.corrupt(json, corruption)
            guard corruption != .truncation, corruption != .mixed else {
                let whole = TrafficPlanStream.whole(json, route)
                return (Array(whole.prefix(whole.count / 2)), rejection)
            }
            let (prefix, suffix) = TrafficPlanStream.enclosure(format)
            // The element as a server names it within the Bundle: `Bundle.entry[0].resource.valueQuantity`.
            let inBundle = rejection.spellings.map { spelling in
                "Bundle.entry[0].resource."
                    + (spelling.hasPrefix("Observation.") ? String(spelling.dropFirst("Observation.".count)) : spelling)
            }
            rejection.spellings += inBundle.filter { !rejection.spellings.contains($0) }
            let condition = route.createsConditionally ? TrafficPlanStream.readingID(of: json) : nil
            return (prefix + TrafficPlanStream.entry(resource, ifNoneExist: condition) + suffix, rejection)
        }
    }

    /// One reading's whole body in `route`'s format (a bundle of one for `fhir-bundle`).
    static func whole(_ json: JSONValue, _ route: IngestionRoute) -> [UInt8] {
        guard case .fhirBundle = route.format else { return Array(json.serialized().utf8) }
        let (prefix, suffix) = enclosure(route.format)
        return prefix + item(json, route) + suffix
    }

    /// One reading as an item of a batch in `route`'s format.
    static func item(_ json: JSONValue, _ route: IngestionRoute) -> [UInt8] {
        guard case .fhirBundle = route.format else { return Array(json.serialized().utf8) }
        let condition = route.createsConditionally ? readingID(of: json) : nil
        return entry(Array(json.serialized().utf8), ifNoneExist: condition)
    }

    /// A Bundle entry creating `resource` (serialized); with `ifNoneExist`, the reading id whose
    /// stored copy makes the create a no-op (a conditional create).
    static func entry(_ resource: [UInt8], ifNoneExist readingID: String? = nil) -> [UInt8] {
        var request = #"{"method":"POST","url":"Observation""#
        if let readingID {
            request += #","ifNoneExist":"# + JSONValue.string(FHIRWrites.condition(readingID: readingID)).serialized()
        }
        return Array(#"{"resource":"#.utf8) + resource + Array((#","request":"# + request + "}}").utf8)
    }

    /// The reading id of an Observation VitalSim wrote: its first identifier's value.
    static func readingID(of observation: JSONValue) -> String? {
        guard case .object(let fields) = observation,
            case .array(let identifiers)? = fields.first(where: { $0.0 == "identifier" })?.1,
            case .object(let identifier)? = identifiers.first,
            case .string(let value)? = identifier.first(where: { $0.0 == "value" })?.1
        else {
            return nil
        }
        return value
    }

    /// What opens and closes a batch in `format`.
    static func enclosure(_ format: IngestionFormat) -> (prefix: [UInt8], suffix: [UInt8]) {
        switch format {
        case .fhirBundle(let type):
            (
                Array(#"{"resourceType":"Bundle","type":""#.utf8) + Array(type.utf8) + Array(#"","entry":["#.utf8),
                Array("]}".utf8)
            )
        default: ([UInt8(ascii: "[")], [UInt8(ascii: "]")])
        }
    }
}
