import Foundation
import VitalSimCore

/// How the readings a route matches are written (`format:` of a SUT profile route).
package enum IngestionFormat: Sendable {
    /// The reference contract's observation JSON (`[{readingId, patientId, …}]`).
    case vitalsimObservation
    /// The VitalEdge phone-bridge payloads of the source documents (heart rate, daily summary).
    case vitaledge
    /// One FHIR R4 Observation per request.
    case fhirObservation
    /// FHIR R4 Observations in a Bundle of `type` (`transaction` or `batch`).
    case fhirBundle(type: String)
    /// A Mustache template, one reading per request.
    case template(TemplatePayload)
    /// A Bluetooth device's raw GATT value, its characteristic in the MQTT 5 user property
    /// `characteristic` (MQTT routes only).
    case gatt

    /// The name a profile gives the format.
    package var name: String {
        switch self {
        case .vitalsimObservation: "vitalsim-observation"
        case .vitaledge: "vitaledge"
        case .fhirObservation: "fhir-observation"
        case .fhirBundle: "fhir-bundle"
        case .template: "template"
        case .gatt: "gatt"
        }
    }

    /// True for the FHIR formats (an Observation, a Bundle of them).
    package var isFHIR: Bool {
        switch self {
        case .fhirObservation, .fhirBundle: true
        default: false
        }
    }

    /// Whether the format can put several readings in one request.
    package var batches: Bool {
        switch self {
        case .vitalsimObservation, .fhirBundle: true
        case .vitaledge, .fhirObservation, .template, .gatt: false
        }
    }
}

/// How a FHIR route writes each Observation (`writes:` of a route).
package enum FHIRWrites: String, Sendable {
    /// A conditional create on the reading's identifier (`If-None-Exist`, a Bundle entry's
    /// `request.ifNoneExist`): a reading sent again is kept once by any conforming server.
    case conditionalCreate = "conditional-create"
    /// A plain create: in FHIR every create makes a new resource, so a reading sent again is
    /// stored again, as the standard says; the read-back does not judge it held once.
    case create

    /// The search that finds a stored copy of the reading `id`:
    /// `identifier=urn:vitalsim:reading|ID`, the id percent-encoded where a query needs it.
    package static func condition(readingID id: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#|")
        let value = id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
        return "identifier=urn:vitalsim:reading|" + value
    }
}

/// The transport a route sends its readings over (`transport:` of a route).
package enum RouteTransport: String, Sendable {
    case http, mqtt
}

/// One ingestion route of a SUT profile: which readings it carries and how.
///
/// A route without a ``transport`` carries the readings of devices the scenario sends over HTTPS
/// (or relays from Bluetooth) and sends them over HTTP. A route with one carries any device's
/// readings, whatever the scenario's `transport`, over the transport it names: this is how a
/// profile moves a device to another transport (a BLE gateway publishing over MQTT, an MQTT device
/// relayed over HTTPS).
package struct IngestionRoute: Sendable {
    /// The reading kinds it carries (nil: any).
    package var kinds: Set<VitalKind>?
    /// The device types it carries (nil: any).
    package var deviceTypes: Set<DeviceType>?
    /// The transport named by the route (nil: HTTP, for the devices the scenario sends over HTTP).
    package var transport: RouteTransport?
    /// The topic of an MQTT route (nil: the profile's `mqtt.topic`).
    package var topic: MQTTTopicTemplate?
    /// The HTTP method (`POST`, `PUT`).
    package var method: String
    /// The path, with `{patient}`, `{device}` and `{kind}` filled in per request.
    package var path: String
    package var format: IngestionFormat
    package var contentType: String
    /// Readings per request at most (1: no batching).
    package var batch: Int
    /// The names the SUT gives the fields of a refusal (`value` → `["heartRate"]`), besides the format's own.
    package var fieldNames: [String: [String]]
    /// How a FHIR route over HTTP writes each Observation (ignored by the other formats and MQTT).
    package var writes = FHIRWrites.conditionalCreate

    /// A route with every field given.
    package init(
        kinds: Set<VitalKind>? = nil,
        deviceTypes: Set<DeviceType>? = nil,
        method: String = "POST",
        path: String,
        format: IngestionFormat,
        contentType: String = "application/json",
        batch: Int = 1,
        fieldNames: [String: [String]] = [:]
    ) {
        self.kinds = kinds
        self.deviceTypes = deviceTypes
        self.method = method
        self.path = path
        self.format = format
        self.contentType = contentType
        self.batch = batch
        self.fieldNames = fieldNames
    }

    /// How error messages name the route: `POST /fhir/Observation`, `MQTT vitals/{patient}/{kind}`.
    package var summary: String {
        overMQTT ? "MQTT " + (topic?.description ?? "mqtt.topic") : "\(method) \(path)"
    }

    /// Whether the route sends over MQTT.
    package var overMQTT: Bool { transport == .mqtt }

    /// Whether a reading this route sends again is, by the wire form's own rules, kept once: not for
    /// a FHIR route over HTTP whose writes are plain creates.
    package var isIdempotent: Bool { !format.isFHIR || overMQTT || writes != .create }

    /// Whether each Observation is written as a conditional create on its identifier.
    var createsConditionally: Bool { format.isFHIR && !overMQTT && writes == .conditionalCreate }

    /// Whether the route carries reading `r` of a device the scenario sends over MQTT (`fromMQTT`) or not.
    package func matches(_ reading: Reading, fromMQTT: Bool = false) -> Bool {
        (kinds?.contains(reading.kind) ?? true) && (deviceTypes?.contains(reading.deviceType) ?? true)
            && (transport != nil || !fromMQTT)
    }

    /// Whether the route may carry readings of a device of `type` that the scenario sends over MQTT
    /// (`fromMQTT`) or not (whatever their kinds).
    package func mayCarry(_ type: DeviceType, fromMQTT: Bool) -> Bool {
        (deviceTypes?.contains(type) ?? true) && (transport != nil || !fromMQTT)
            && (kinds.map { !$0.isDisjoint(with: type.kinds) } ?? true)
    }

    /// The path of a request carrying readings of `r`'s patient, device and kind.
    package func path(for r: Reading) -> String {
        guard path.contains("{") else { return path }
        return path.replacingOccurrences(of: "{patient}", with: r.patientID)
            .replacingOccurrences(of: "{device}", with: r.deviceID)
            .replacingOccurrences(of: "{kind}", with: r.kind.rawValue)
    }
}

/// The ingestion routes of a SUT profile, first match wins; empty for the reference contract
/// (observation JSON, the VitalEdge paths for the phone bridge).
package struct IngestionRoutes: Sendable {
    package var routes: [IngestionRoute]
    /// Kinds whose readings are not sent at all: the SUT's conformance statement claims none of them.
    package var withheld: Set<VitalKind> = []

    /// The reference contract.
    package static let vitalsim = IngestionRoutes(routes: [])

    package init(routes: [IngestionRoute]) { self.routes = routes }

    /// True for the reference contract, whose traffic (and digest) is the golden files'.
    package var isBuiltIn: Bool { routes.isEmpty }

    /// The first route carrying `r` (of a device the scenario sends over MQTT: `fromMQTT`), with its index.
    package func route(for r: Reading, fromMQTT: Bool = false) -> (index: Int, route: IngestionRoute)? {
        for (i, route) in routes.enumerated() where route.matches(r, fromMQTT: fromMQTT) { return (i, route) }
        return nil
    }

    /// Whether some of the readings of a device of `type` (sent by the scenario over `transport`)
    /// go over MQTT: an MQTT route may carry them, or the scenario sends it over MQTT and not every
    /// kind it reads has a route to HTTP.
    package func sendsOverMQTT(_ type: DeviceType, scenarioTransport transport: Transport) -> Bool {
        let fromMQTT = transport == .mqtt
        var left = type.kinds
        for route in routes where route.mayCarry(type, fromMQTT: fromMQTT) {
            let taken = route.kinds.map { left.intersection($0) } ?? left
            if route.overMQTT, !taken.isEmpty { return true }
            left.subtract(taken)
        }
        return fromMQTT && !left.isEmpty
    }
}

extension Scenario {
    /// Whether some of the scenario's readings go over MQTT under `routes` (a device the scenario
    /// sends over MQTT that no route moves to HTTP, or a device an MQTT route carries).
    package func sendsOverMQTT(_ routes: IngestionRoutes = .vitalsim) -> Bool {
        patients.contains { p in
            p.devices.contains { d in
                routes.isBuiltIn ? d.transport == .mqtt : routes.sendsOverMQTT(d.type, scenarioTransport: d.transport)
            }
        }
    }
}
