import VitalSimCore

/// FHIR R4 `transaction` and `batch` Bundles of Observations (`POST /fhir`): each entry a
/// resource with `request: {method: POST, url: Observation}`. The reference SUT processes both
/// types all or nothing: an entry that fails refuses the whole Bundle, its OperationOutcome naming
/// the element as `Bundle.entry[i].resource.…`.
package enum FHIRBundle {
    /// Entries per Bundle at most.
    static let maxEntries = 100

    /// Validates a Bundle into its Observations, in entry order.
    package static func parse(_ body: JSONInput, now: Int64) throws(ValidationFailure) -> [Observation] {
        guard case let .object(o) = body else {
            throw ValidationFailure(field: "", message: "the body must be a FHIR Bundle (JSON object)")
        }
        guard case .string("Bundle")? = o["resourceType"] else {
            throw ValidationFailure(field: "Bundle.resourceType", message: "resourceType must be Bundle")
        }
        guard case let .string(type)? = o["type"], type == "transaction" || type == "batch" else {
            throw ValidationFailure(field: "Bundle.type", message: "type must be transaction or batch")
        }
        guard case let .array(entries)? = o["entry"], !entries.isEmpty, entries.count <= maxEntries else {
            throw ValidationFailure(
                field: "Bundle.entry",
                message: "entry must be an array of 1 to \(maxEntries) entries"
            )
        }
        var out: [Observation] = []
        for (i, entry) in entries.enumerated() {
            let at = "Bundle.entry[\(i)]"
            guard case let .object(e) = entry else {
                throw ValidationFailure(field: at, message: "\(at) must be an object")
            }
            guard case let .object(request)? = e["request"], case .string("POST")? = request["method"],
                case .string("Observation")? = request["url"]
            else {
                throw ValidationFailure(
                    field: at + ".request",
                    message: "\(at).request must be {method: POST, url: Observation}"
                )
            }
            guard let resource = e["resource"] else {
                throw ValidationFailure(field: at + ".resource", message: "\(at).resource is required (an Observation)")
            }
            do throws(ValidationFailure) {
                out.append(try FHIRObservation.parse(resource, now: now))
            } catch {
                let field = error.field.isEmpty ? at + ".resource" : at + ".resource." + error.field
                throw ValidationFailure(field: field, message: "\(at): \(error.message)", status: error.status)
            }
        }
        return out
    }

    /// The `transaction-response` (or `batch-response`) Bundle: one entry per Observation, 201 for a
    /// new one, 200 for one already stored.
    package static func response(type: String, _ observations: [Observation], fresh: [Bool]) -> JSONValue {
        let entries = zip(observations, fresh).map { o, isNew -> JSONValue in
            .object([
                (
                    "response",
                    .object([
                        ("status", .string(isNew ? "201 Created" : "200 OK")),
                        ("location", .string("Observation/" + o.readingID)),
                    ])
                )
            ])
        }
        return .object([
            ("resourceType", .string("Bundle")), ("type", .string(type + "-response")), ("entry", .array(entries)),
        ])
    }
}
