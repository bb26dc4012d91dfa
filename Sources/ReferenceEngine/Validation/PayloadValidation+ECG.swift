import VitalSimCore

extension PayloadValidation {
    /// The keys of an ECG observation beyond the common ones.
    static let ecgKeys = ["classification", "samplingFrequency", "symptomsStatus", "voltageMeasurements"]

    /// An ECG observation (`kind: ecg`): its average heart rate as `value` (`/min`, 20...300), and
    /// HealthKit's fields: `classification` (an `HKElectrocardiogram.Classification` case name),
    /// `samplingFrequency` (Hz, 100...2000), `voltageMeasurements` (µV, −10,000...10,000, at least
    /// 1 s and at most 60 s of samples), optional `symptomsStatus` (`present`, `none` or
    /// `notSet`). Stored: the heart rate (`ecg-heart-rate`) and, for a conclusive classification,
    /// the rhythm (`ecg-af` 1 or 0); the waveform is checked, not kept.
    static func ecg(
        _ o: [String: JSONInput],
        identity: (String, String, String),
        time: Int64
    ) throws(ValidationFailure) -> Observation {
        try noExtraKeys(
            o,
            ["readingId", "patientId", "deviceId", "kind", "value", "unit", "timestamp", "sequence"] + ecgKeys
        )
        let unit = try string(o, "unit")
        guard unit == "/min" else {
            throw ValidationFailure(
                field: "unit",
                message: "ecg unit must be /min (its average heart rate), got \(unit)"
            )
        }
        let hr = try number(o, "value", 20...300)
        let name = try string(o, "classification")
        guard let classification = ECGClassification(rawValue: name) else {
            let valid = ECGClassification.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationFailure(field: "classification", message: "unknown classification \(name); valid: \(valid)")
        }
        let hz = try integer(o, "samplingFrequency", 100...2000)
        if let status = o["symptomsStatus"], ![.string("present"), .string("none"), .string("notSet")].contains(status)
        {
            throw ValidationFailure(field: "symptomsStatus", message: "symptomsStatus must be present, none or notSet")
        }
        guard case let .array(samples)? = o["voltageMeasurements"] else {
            throw ValidationFailure(
                field: "voltageMeasurements",
                message: "voltageMeasurements must be an array of µV values"
            )
        }
        try waveform(samples.count, hz: hz, field: "voltageMeasurements")
        for (i, v) in samples.enumerated() {
            let value: Double
            switch v {
            case let .integer(n): value = Double(n)
            case let .number(d): value = d
            default:
                throw ValidationFailure(
                    field: "voltageMeasurements[\(i)]",
                    message: "voltageMeasurements[\(i)] must be a number of µV"
                )
            }
            guard abs(value) <= 10_000 else {
                throw ValidationFailure(
                    field: "voltageMeasurements[\(i)]",
                    message: "voltageMeasurements[\(i)] \(value) µV is outside ±10,000"
                )
            }
        }
        var values: [Signal: Double] = [.ecgHeartRate: hr]
        values[.ecgAF] = classification.afValue
        return Observation(
            readingID: identity.0,
            patientID: identity.1,
            deviceID: identity.2,
            time: time,
            values: values
        )
    }

    /// A waveform of `count` samples at `hz` lasts 1 to 60 s.
    static func waveform(_ count: Int, hz: Int64, field: String) throws(ValidationFailure) {
        guard Int64(count) >= hz, Int64(count) <= 60 * hz else {
            throw ValidationFailure(
                field: field,
                message: "\(field) holds \(count) samples; at \(hz) Hz a recording is 1 to 60 s"
            )
        }
    }
}
