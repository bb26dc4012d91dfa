import VitalSimCore

extension FHIRObservationJSON {
    /// The SNOMED CT system.
    package static let snomed = "http://snomed.info/sct"

    /// A symptom report as an Observation: category `survey` (patient-reported), `code` the
    /// symptom's SNOMED CT finding, `valueCodeableConcept` its SNOMED CT severity (mild 255604002,
    /// moderate 6736007, severe 24484000), `effectiveDateTime` its onset.
    static func symptom(_ reading: Reading, _ kind: SymptomKind, _ severity: SymptomSeverity, start: Int64) -> JSONValue
    {
        .object([
            ("resourceType", .string("Observation")),
            ("identifier", .array([.object([("system", .string(identifierSystem)), ("value", .string(reading.id))])])),
            ("status", .string("final")),
            (
                "category",
                .array([
                    concept("http://terminology.hl7.org/CodeSystem/observation-category", "survey", "Survey")
                ])
            ),
            ("code", concept(snomed, kind.snomed.code, kind.snomed.display)),
            ("subject", .object([("reference", .string("Patient/" + reading.patientID))])),
            ("device", .object([("reference", .string("Device/" + reading.deviceID))])),
            (
                "effectiveDateTime",
                .string(CivilTime(unixMilliseconds: start + reading.deviceTime).iso8601(fractional: true))
            ),
            ("valueCodeableConcept", concept(snomed, severity.snomed.code, severity.snomed.display)),
        ])
    }

    /// A corrupted symptom Observation (its value is a CodeableConcept, not a Quantity): a wrong
    /// type is the severity as a string, out of range (and a bad CRC or bad flags, which have no
    /// counterpart here) a severity code that is not one, a missing field no value at all.
    static func corruptSymptom(
        _ fields: [(String, JSONValue)],
        _ corruption: Corruption
    ) -> ([UInt8], ExpectedRejection)? {
        var fields = fields
        guard !fields.contains(where: { $0.0 == "component" }),
            let position = fields.firstIndex(where: { $0.0 == "valueCodeableConcept" })
        else {
            return nil
        }
        let spellings = ["valueCodeableConcept", "valueCodeableConcept.coding", "valueCodeableConcept.coding[0].code"]
        switch corruption {
        case .wrongType:
            fields[position].1 = .string("moderate")
        case .outOfRange, .badCRC, .badFlags:
            fields[position].1 = concept(snomed, "404684003", "Clinical finding")
        case .missingField:
            fields.remove(at: position)
        default:
            return nil
        }
        var rejection = ExpectedRejection(status: 400, field: "value", spellings: spellings)
        // A finding coded as a plain clinical finding is valid SNOMED CT: implausible, not mis-coded.
        rejection.level = corruption == .wrongType ? .structure : .plausibility
        return (Array(JSONValue.object(fields).serialized().utf8), rejection)
    }
}
