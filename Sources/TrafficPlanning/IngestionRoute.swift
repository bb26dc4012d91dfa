import Foundation
import Payloads
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

    /// The name a profile gives the format.
    package var name: String {
        switch self {
        case .vitalsimObservation: "vitalsim-observation"
        case .vitaledge: "vitaledge"
        case .fhirObservation: "fhir-observation"
        case .fhirBundle: "fhir-bundle"
        case .template: "template"
        }
    }

    /// Whether the format can put several readings in one request.
    package var batches: Bool {
        switch self {
        case .vitalsimObservation, .fhirBundle: true
        case .vitaledge, .fhirObservation, .template: false
        }
    }
}

/// One ingestion route of a SUT profile: which HTTP readings it carries and how.
package struct IngestionRoute: Sendable {
    /// The reading kinds it carries (nil: any).
    package var kinds: Set<VitalKind>?
    /// The device types it carries (nil: any).
    package var deviceTypes: Set<DeviceType>?
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

    /// Whether the route carries reading `r`.
    package func matches(_ r: Reading) -> Bool {
        (kinds?.contains(r.kind) ?? true) && (deviceTypes?.contains(r.deviceType) ?? true)
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

    /// The reference contract.
    package static let vitalsim = IngestionRoutes(routes: [])

    package init(routes: [IngestionRoute]) { self.routes = routes }

    /// True for the reference contract, whose traffic (and digest) is the golden files'.
    package var isBuiltIn: Bool { routes.isEmpty }

    /// The first route carrying `r`, with its index.
    package func route(for r: Reading) -> (index: Int, route: IngestionRoute)? {
        for (i, route) in routes.enumerated() where route.matches(r) { return (i, route) }
        return nil
    }
}
