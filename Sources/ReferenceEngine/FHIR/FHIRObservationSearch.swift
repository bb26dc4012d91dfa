import VitalSimCore

/// Stored readings as FHIR R4 `Observation`s (`GET /fhir/Observation`, FHIR search): LOINC codes and
/// UCUM units as ``FHIRObservation`` accepts them, blood pressure as the 85354-9 panel with its
/// systolic and diastolic components, the reading id as an identifier, the device time as
/// `effectiveDateTime`; in a `searchset` Bundle with a cursor `next` link.
///
/// Battery levels (a device property, not an observation of the patient) and feeds (no LOINC code
/// here) are not listed; the JSON read-back (`/api/v1/patients/{id}/readings`) lists them.
package enum FHIRObservationSearch {
    /// The identifier system of reading ids (a URN: an identifier, not an address).
    package static let readingSystem = "urn:vitalsim:reading-id"
    /// The blood-pressure panel's code.
    package static let bloodPressurePanel = "85354-9"

    /// The LOINC code, display and UCUM unit of each signal listed (one code per signal: mg/dL
    /// glucose, not its mmol/L code).
    static let loinc: [Signal: (code: String, display: String)] = [
        .heartRate: ("8867-4", "Heart rate"), .glucose: ("2339-0", "Glucose [Mass/volume] in Blood"),
        .cgm: ("99504-3", "Glucose [Mass/volume] in Interstitial fluid"),
        .spo2: ("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry"),
        .temperature: ("8310-5", "Body temperature"),
        .weight: ("29463-7", "Body weight"), .respirationRate: ("9279-1", "Respiratory rate"),
        .steps: ("55423-8", "Number of steps in unspecified time Pedometer"),
        .systolic: ("8480-6", "Systolic blood pressure"),
        .diastolic: ("8462-4", "Diastolic blood pressure"),
    ]

    /// The signal a search's `code` names (`8867-4` or `http://loinc.org|8867-4`; the panel names
    /// blood pressure, i.e. `systolic`); nil for a code not listed.
    package static func signal(code: String) -> Signal? {
        let bare = code.hasPrefix("http://loinc.org|") ? String(code.dropFirst("http://loinc.org|".count)) : code
        if bare == bloodPressurePanel { return .systolic }
        return loinc.first { $0.value.code == bare && $0.key != .systolic && $0.key != .diastolic }?.key
    }

    static func concept(_ code: String, _ display: String) -> JSONValue {
        .object([
            (
                "coding",
                .array([
                    .object([
                        ("system", .string("http://loinc.org")), ("code", .string(code)), ("display", .string(display)),
                    ])
                ])
            ),
            ("text", .string(display)),
        ])
    }

    static func quantity(_ value: Double, _ signal: Signal) -> JSONValue {
        let unit = StoredReadingJSON.unit(signal)
        return .object([
            ("value", .double(value)), ("unit", .string(unit)), ("system", .string("http://unitsofmeasure.org")),
            ("code", .string(unit)),
        ])
    }

    /// One stored reading as an `Observation` (id `r` and its storage sequence); nil when it is
    /// not listed (a battery level, a feed).
    package static func resource(_ observation: Observation, seq: Int64) -> JSONValue? {
        var fields: [(String, JSONValue)] = [
            ("resourceType", .string("Observation")), ("id", .string("r\(seq)")),
            (
                "identifier",
                .array([.object([("system", .string(readingSystem)), ("value", .string(observation.readingID))])])
            ),
            ("status", .string("final")),
        ]
        let subject: [(String, JSONValue)] = [
            ("subject", .object([("reference", .string("Patient/" + observation.patientID))])),
            ("effectiveDateTime", .string(CivilTime(unixMilliseconds: observation.time).iso8601(fractional: true))),
            ("device", .object([("display", .string(observation.deviceID))])),
        ]
        if let systolic = observation.values[.systolic], let diastolic = observation.values[.diastolic] {
            fields.append(("code", concept(bloodPressurePanel, "Blood pressure panel with all children optional")))
            fields += subject
            let parts = [(Signal.systolic, systolic), (Signal.diastolic, diastolic)].map { signal, v -> JSONValue in
                let code = loinc[signal] ?? ("", "")
                return .object([("code", concept(code.code, code.display)), ("valueQuantity", quantity(v, signal))])
            }
            fields.append(("component", .array(parts)))
            return .object(fields)
        }
        guard let signal = StoredReadingJSON.precedence.first(where: { observation.values[$0] != nil }),
            let code = loinc[signal],
            let value = observation.values[signal]
        else { return nil }
        fields.append(("code", concept(code.code, code.display)))
        fields += subject
        fields.append(("valueQuantity", quantity(value, signal)))
        return .object(fields)
    }
}
