import VitalSimCore

/// The field a SUT must name when it rejects a deliberately corrupted payload.
package struct ExpectedRejection: Sendable, Equatable {
    package var status: Int
    package var field: String

    /// The rejection with `status` naming `field` (empty when no field can be named, e.g. a truncated body).
    package init(status: Int, field: String) {
        self.status = status
        self.field = field
    }
}

/// The observation JSON of the SUT contract (`POST /api/v1/observations` items, and MQTT messages of
/// non-GATT devices): `{readingId, patientId, deviceId, kind, value | systolic+diastolic, unit,
/// timestamp, sequence}`, heart rate with its RR intervals in ms. `readings.jsonl` and live traffic
/// both use this one encoder.
package enum ObservationJSON {
    /// A reading as a `POST /api/v1/observations` item (nil for intermediate cuff pressures, which are
    /// progress indications rather than readings).
    package static func encode(_ r: Reading, start: Int64) -> JSONValue? {
        var f: [(String, JSONValue)] = [
            ("readingId", .string(r.id)), ("patientId", .string(r.patientID)), ("deviceId", .string(r.deviceID)),
        ]
        switch r.measurement {
        case .cuffPressure, .dailySummary:
            return nil
        case let .bloodPressure(s, d, _, _, _):
            f += [("kind", .string("blood-pressure")), ("systolic", .int(Int64(s))), ("diastolic", .int(Int64(d)))]
        case let .heartRate(bpm, rr, _, _):
            f += [("kind", .string("heart-rate")), ("value", .int(Int64(bpm)))]
            if !rr.isEmpty { f.append(("rrIntervals", .array(rr.map { .double((Double($0) * 1000 / 1024 * 10).rounded() / 10) }))) }
        default:
            f += [("kind", .string(r.kind.rawValue)), ("value", .double(r.measurement.primaryValue))]
        }
        let ts = CivilTime(unixMilliseconds: start + r.deviceTime).iso8601(fractional: true)
        f += [("unit", .string(r.measurement.unit)), ("timestamp", .string(ts)), ("sequence", .int(Int64(r.seq)))]
        return .object(f)
    }

    /// A corrupted observation and the field a SUT must name rejecting it: the JSON forms
    /// (``JSONCorruption``), and for a Bluetooth reading relayed as JSON the counterparts of the GATT
    /// forms (bad flags: an unknown unit; a bad CRC: a negative measurement).
    package static func corrupt(_ json: JSONValue, _ c: Corruption) -> ([UInt8], ExpectedRejection) {
        guard case var .object(fields) = json else { return (Array(json.serialized().utf8), ExpectedRejection(status: 400, field: "")) }
        let measurement = fields.first { $0.0 == "value" || $0.0 == "systolic" }?.0 ?? "value"
        switch c {
        case .badFlags:
            if let i = fields.firstIndex(where: { $0.0 == "unit" }) { fields[i].1 = .string("bogus-unit") }
            return (Array(JSONValue.object(fields).serialized().utf8), ExpectedRejection(status: 400, field: "unit"))
        case .badCRC:
            return corrupt(json, .outOfRange)
        default:
            return JSONCorruption.apply(fields, c, measurement: measurement)
                ?? corrupt(json, .truncation)
        }
    }
}
