import VitalSimCore

extension FHIRObservationJSON {
    /// The LOINC code of an ECG study.
    package static let ecgCode = "11524-6"
    /// The IEEE 11073-10101 code of the lead I potential (`MDC_ECG_ELEC_POTL_I`), the lead a
    /// watch's crown-to-wrist recording resembles.
    package static let leadICode = "131329"
    /// The code system of the ECG app's classifications (HealthKit's case names).
    package static let classificationSystem = "urn:vitalsim:ecg-classification"

    /// An ECG recording as an Observation: category `procedure`, code LOINC 11524-6 (EKG study),
    /// `effectiveDateTime` its start, `valueCodeableConcept` the app's classification (its HealthKit
    /// name, and SNOMED CT 64730000 or 49436004 when it names a rhythm), components: the average
    /// heart rate (LOINC 8867-4, `/min`) and the waveform as `valueSampledData` (lead I, origin 0 µV,
    /// period in ms, one dimension, the µV values space-separated).
    static func ecg(_ reading: Reading, _ recording: ECGRecording, start: Int64) -> JSONValue {
        var codings: [JSONValue] = [
            .object([
                ("system", .string(classificationSystem)), ("code", .string(recording.classification.rawValue)),
            ])
        ]
        if let (code, display) = recording.classification.snomed {
            codings.append(
                .object([("system", .string(snomed)), ("code", .string(code)), ("display", .string(display))])
            )
        }
        let sampled: JSONValue = .object([
            ("origin", quantity(.int(0), "uV")),
            ("period", .double(1000 / Double(recording.samplingFrequency))),
            ("dimensions", .int(1)),
            ("data", .string(recording.microvolts.map { String($0) }.joined(separator: " "))),
        ])
        return .object([
            ("resourceType", .string("Observation")),
            ("identifier", .array([.object([("system", .string(identifierSystem)), ("value", .string(reading.id))])])),
            ("status", .string("final")),
            (
                "category",
                .array([concept("http://terminology.hl7.org/CodeSystem/observation-category", "procedure", "Procedure")]
                )
            ),
            ("code", concept("http://loinc.org", ecgCode, "EKG study")),
            ("subject", .object([("reference", .string("Patient/" + reading.patientID))])),
            ("device", .object([("reference", .string("Device/" + reading.deviceID))])),
            (
                "effectiveDateTime",
                .string(CivilTime(unixMilliseconds: start + reading.deviceTime).iso8601(fractional: true))
            ),
            ("valueCodeableConcept", .object([("coding", .array(codings))])),
            (
                "component",
                .array([
                    component("8867-4", "Heart rate", quantity(.int(Int64(recording.averageHeartRate)), "/min")),
                    .object([
                        ("code", concept(rrSystem, leadICode, "MDC_ECG_ELEC_POTL_I")), ("valueSampledData", sampled),
                    ]),
                ])
            ),
        ])
    }

    /// The IEEE 11073-10101 code system.
    static let rrSystem = "urn:iso:std:iso:11073:10101"
}
