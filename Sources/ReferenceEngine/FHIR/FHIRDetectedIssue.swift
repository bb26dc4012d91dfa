import VitalSimCore

/// The reference SUT's alerts as FHIR R4 resources (`GET /fhir/DetectedIssue`): one
/// `DetectedIssue` per alert — the rule as its code, the severity as `high | moderate | low`, the
/// patient as a reference, the reading time as `identifiedDateTime`, and the readings it rests on as
/// `evidence.detail` references to `Observation`s — in a `searchset` Bundle with paging links.
package enum FHIRDetectedIssue {
    /// The code system of VitalSim's rule ids (a URN: an identifier, not an address).
    package static let ruleSystem = "urn:vitalsim:alert-rule"

    /// FHIR's `DetectedIssue.severity` of a VitalSim severity.
    package static func severity(_ s: Severity) -> String {
        switch s {
        case .high: "high"
        case .medium: "moderate"
        case .low: "low"
        }
    }

    /// One alert as a `DetectedIssue`; `identified: false` leaves out `identifiedDateTime` (the
    /// unreadable-alerts fault).
    package static func resource(_ alert: Alert, identified: Bool = true) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("resourceType", .string("DetectedIssue")), ("id", .string(alert.alertID)), ("status", .string("final")),
            (
                "code",
                .object([
                    ("coding", .array([.object([("system", .string(ruleSystem)), ("code", .string(alert.rule))])]))
                ])
            ),
            ("severity", .string(severity(alert.severity))),
            ("patient", .object([("reference", .string("Patient/" + alert.patientID))])),
        ]
        if identified {
            fields.append(
                ("identifiedDateTime", .string(CivilTime(unixMilliseconds: alert.raisedAt).iso8601(fractional: true)))
            )
        }
        if !alert.evidence.isEmpty {
            let details = alert.evidence.map { JSONValue.object([("reference", .string("Observation/" + $0))]) }
            fields.append(("evidence", .array([.object([("detail", .array(details))])])))
        }
        return .object(fields)
    }

    /// A `searchset` Bundle of one page of `alerts` (`offset`, at most `count`), with `self` and,
    /// unless it is the last page, `next` links (relative to the server: `query` is the request's
    /// other parameters, kept on every link).
    package static func bundle(
        _ alerts: [Alert],
        offset: Int,
        count: Int,
        query: String,
        identified: Bool = true
    ) -> JSONValue {
        let page = alerts.dropFirst(offset).prefix(count)
        func link(_ relation: String, _ at: Int) -> JSONValue {
            .object([
                ("relation", .string(relation)),
                (
                    "url",
                    .string(
                        "/fhir/DetectedIssue?" + (query.isEmpty ? "" : query + "&") + "_count=\(count)&_offset=\(at)"
                    )
                ),
            ])
        }
        var links = [link("self", offset)]
        if offset + count < alerts.count { links.append(link("next", offset + count)) }
        var fields: [(String, JSONValue)] = [
            ("resourceType", .string("Bundle")), ("type", .string("searchset")), ("total", .int(Int64(alerts.count))),
            ("link", .array(links)),
        ]
        if !page.isEmpty {
            fields.append(
                (
                    "entry",
                    .array(
                        page.map { a in
                            .object([
                                ("fullUrl", .string("DetectedIssue/" + a.alertID)),
                                ("resource", resource(a, identified: identified)),
                                ("search", .object([("mode", .string("match"))])),
                            ])
                        }
                    )
                )
            )
        }
        return .object(fields)
    }
}
