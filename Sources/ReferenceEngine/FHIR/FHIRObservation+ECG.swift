import VitalSimCore

extension FHIRObservation {
    /// The LOINC code of an ECG study, and the lead I potential's IEEE 11073-10101 code.
    static let ecgCode = "11524-6"
    static let leadICode = "131329"

    /// An ECG Observation (LOINC 11524-6): the average heart rate as a component (LOINC 8867-4,
    /// `/min`), the waveform as a component's `valueSampledData` (checked: a positive `period` in ms,
    /// one dimension, 1 to 60 s of numbers in `data`), and the classification as
    /// `valueCodeableConcept`: a HealthKit case name (system `urn:vitalsim:ecg-classification`) or
    /// SNOMED CT 64730000 (sinus rhythm) / 49436004 (atrial fibrillation).
    static func ecg(_ o: [String: JSONInput]) throws(ValidationFailure) -> [Signal: Double] {
        guard case let .array(parts)? = o["component"] else {
            throw ValidationFailure(
                field: "component",
                message: "an ECG needs components: its heart rate (8867-4) and its waveform (SampledData)"
            )
        }
        var values: [Signal: Double] = [:]
        var waveform = false
        for (i, part) in parts.enumerated() {
            if let data = member(part, "valueSampledData") {
                try sampledData(data, field: "component[\(i)].valueSampledData")
                waveform = true
                continue
            }
            guard (try? loinc(member(part, "code"), field: "")) == "8867-4" else { continue }
            values[.ecgHeartRate] = try quantity(
                member(part, "valueQuantity"),
                field: "component[\(i)].valueQuantity",
                units: ["/min": 1],
                range: 20...300
            )
        }
        guard values[.ecgHeartRate] != nil else {
            throw ValidationFailure(
                field: "component",
                message: "an ECG needs its average heart rate as a component coded LOINC 8867-4"
            )
        }
        guard waveform else {
            throw ValidationFailure(
                field: "component",
                message: "an ECG needs its waveform as a component's valueSampledData"
            )
        }
        values[.ecgAF] = try classification(o["valueCodeableConcept"]).afValue
        return values
    }

    /// A waveform: `period` > 0 ms, `dimensions` 1, `data` of 1 to 60 s of decimal numbers.
    static func sampledData(_ jsonInput: JSONInput, field: String) throws(ValidationFailure) {
        let period: Double
        switch member(jsonInput, "period") {
        case let .integer(n)?: period = Double(n)
        case let .number(x)?: period = x
        default:
            throw ValidationFailure(field: field + ".period", message: "\(field).period must be the ms between samples")
        }
        guard period > 0.1, period <= 100 else {
            throw ValidationFailure(
                field: field + ".period",
                message: "\(field).period \(period) ms is outside 0.1...100"
            )
        }
        guard member(jsonInput, "dimensions") == .integer(1) else {
            throw ValidationFailure(field: field + ".dimensions", message: "a single-lead ECG has dimensions 1")
        }
        guard case let .string(text)? = member(jsonInput, "data") else {
            throw ValidationFailure(
                field: field + ".data",
                message: "\(field).data must be the samples, space-separated"
            )
        }
        let samples = text.split(separator: " ")
        guard samples.allSatisfy({ Double($0) != nil }) else {
            throw ValidationFailure(
                field: field + ".data",
                message: "\(field).data holds something that is not a number"
            )
        }
        try PayloadValidation.waveform(samples.count, hz: Int64((1000 / period).rounded()), field: field + ".data")
    }

    /// The ECG app's classification from a CodeableConcept.
    static func classification(_ concept: JSONInput?) throws(ValidationFailure) -> ECGClassification {
        if case let .array(codings)? = member(concept, "coding") {
            for c in codings {
                guard case let .string(code)? = member(c, "code") else { continue }
                if member(c, "system") == .string("urn:vitalsim:ecg-classification"),
                    let classification = ECGClassification(rawValue: code)
                {
                    return classification
                }
                if member(c, "system") == .string(snomed),
                    let classification = ECGClassification.allCases.first(where: { $0.snomed?.code == code })
                {
                    return classification
                }
            }
        }
        throw ValidationFailure(
            field: "valueCodeableConcept",
            message:
                "an ECG's valueCodeableConcept must name its classification (urn:vitalsim:ecg-classification, or SNOMED CT 64730000 / 49436004)"
        )
    }
}
