import VitalSimCore

/// The VitalEdge phone-bridge payloads of the source documents: `POST /api/iot-heart-rate`
/// `{userId, timestamp, heartRate}` (the VitalEdge SDS §9.1) and `POST /api/healthkit`
/// `{userId, timestamp, stepCount, caloriesBurned}` (the VitalEdge RSD §6.1), time stamps without fractions.
package enum VitalEdgeJSON {
    /// The VitalEdge payload of a reading: a phone bridge's heart rate or a daily summary; nil for
    /// any other reading.
    package static func encode(_ r: Reading, start: Int64) -> JSONValue? {
        // The time stamp is formatted only for the readings that have a VitalEdge form: this runs
        // first for every non-GATT reading (``ReadingEncoder/json(_:)``).
        func timestamp() -> JSONValue { .string(CivilTime(unixMilliseconds: start + r.deviceTime).iso8601()) }
        switch r.measurement {
        case let .heartRate(bpm, _, _, _) where r.deviceType == .phoneBridge:
            return .object([
                ("userId", .string(r.patientID)), ("timestamp", timestamp()), ("heartRate", .int(Int64(bpm))),
            ])
        case let .dailySummary(steps, calories):
            return .object([
                ("userId", .string(r.patientID)), ("timestamp", timestamp()), ("stepCount", .int(Int64(steps))),
                ("caloriesBurned", .int(Int64(calories))),
            ])
        default:
            return nil
        }
    }

    /// A corrupted VitalEdge payload (one of ``Corruption/jsonForms``) and the field a SUT must name
    /// rejecting it (`heartRate` or `stepCount` for the measurement).
    package static func corrupt(_ json: JSONValue, _ corruption: Corruption) -> ([UInt8], ExpectedRejection) {
        guard case let .object(fields) = json else {
            return (Array(json.serialized().utf8), ExpectedRejection(status: 400, field: ""))
        }
        let measurement = fields.first { $0.0 == "heartRate" || $0.0 == "stepCount" }?.0 ?? "heartRate"
        if let out = JSONCorruption.apply(fields, corruption, measurement: measurement) { return out }
        // A GATT form has no VitalEdge counterpart (the loader refuses it on a phone bridge): cut the body short.
        return JSONCorruption.apply(fields, .truncation, measurement: measurement) ?? (
            [], ExpectedRejection(status: 400, field: "")
        )
    }
}
