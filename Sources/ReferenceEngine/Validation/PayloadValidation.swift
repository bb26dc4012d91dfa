import VitalSimCore

/// Validation of the VitalEdge payloads (seeds 001/002) and of generic observations.
package enum PayloadValidation {
    /// How far in the future (server clock) a timestamp may be.
    package static let futureSkew: Int64 = 5 * 60_000

    static func object(_ body: JSONInput) throws(ValidationFailure) -> [String: JSONInput] {
        guard case let .object(o) = body else {
            throw ValidationFailure(field: "", message: "the body must be a JSON object, got \(body.typeName)")
        }
        return o
    }

    static func string(_ o: [String: JSONInput], _ key: String) throws(ValidationFailure) -> String {
        guard let v = o[key] else { throw ValidationFailure(field: key, message: "\(key) is required") }
        guard case let .string(s) = v, !s.isEmpty else {
            throw ValidationFailure(field: key, message: "\(key) must be a non-empty string, got \(v.typeName)")
        }
        return s
    }

    /// Longest id accepted (reading, patient and device ids), in characters.
    package static let maxIdentifierLength = 128

    /// An id as sent (`field` names it in the failure): 1 to ``maxIdentifierLength`` characters,
    /// none of them a control character (NUL, line breaks, …), which would let one id pass for
    /// another in logs and queries.
    package static func identifier(_ s: String, field: String) throws(ValidationFailure) -> String {
        let scalars = s.unicodeScalars
        guard !scalars.isEmpty, scalars.count <= maxIdentifierLength else {
            throw ValidationFailure(
                field: field,
                message: "\(field) must be 1 to \(maxIdentifierLength) characters, got \(scalars.count)"
            )
        }
        if let bad = scalars.first(where: { $0.properties.generalCategory == .control }) {
            throw ValidationFailure(
                field: field,
                message:
                    "\(field) holds the control character U+\(String(bad.value, radix: 16, uppercase: true)); ids are printable text"
            )
        }
        return s
    }

    /// A required id member of `o` (see ``identifier(_:field:)``).
    static func identifier(_ o: [String: JSONInput], _ key: String) throws(ValidationFailure) -> String {
        try identifier(try string(o, key), field: key)
    }

    static func integer(
        _ o: [String: JSONInput],
        _ key: String,
        _ range: ClosedRange<Int64>
    ) throws(ValidationFailure) -> Int64 {
        guard let v = o[key] else { throw ValidationFailure(field: key, message: "\(key) is required") }
        guard case let .integer(i) = v else {
            throw ValidationFailure(field: key, message: "\(key) must be an integer, got \(v.typeName)")
        }
        guard range.contains(i) else {
            throw ValidationFailure(
                field: key,
                message: "\(key) \(i) is outside \(range.lowerBound)...\(range.upperBound)"
            )
        }
        return i
    }

    static func number(
        _ o: [String: JSONInput],
        _ key: String,
        _ range: ClosedRange<Double>
    ) throws(ValidationFailure) -> Double {
        guard let v = o[key] else { throw ValidationFailure(field: key, message: "\(key) is required") }
        let d: Double
        switch v {
        case let .integer(i): d = Double(i)
        case let .number(x): d = x
        default: throw ValidationFailure(field: key, message: "\(key) must be a number, got \(v.typeName)")
        }
        guard range.contains(d) else {
            throw ValidationFailure(
                field: key,
                message: "\(key) \(d) is outside \(range.lowerBound)...\(range.upperBound)"
            )
        }
        return d
    }

    /// ISO-8601 UTC (`2024-11-07T12:34:58Z`, the seeds' format; a fraction of a second and `+00:00`
    /// are accepted too); with `offsets`, any RFC 3339 offset (FHIR `dateTime`).
    static func timestamp(
        _ o: [String: JSONInput],
        _ key: String,
        now: Int64,
        offsets: Bool = false
    ) throws(ValidationFailure) -> Int64 {
        let s = try string(o, key)
        guard let t = offsets ? CivilTime.unixMilliseconds(rfc3339: s) : utcMilliseconds(s) else {
            throw ValidationFailure(
                field: key,
                message: offsets
                    ? "\(key) must be a FHIR dateTime with time zone such as 2024-11-07T14:34:58+02:00, got '\(s)'"
                    : "\(key) must be ISO-8601 UTC such as 2024-11-07T12:34:58Z, got '\(s)'"
            )
        }
        guard t <= now + futureSkew else {
            throw ValidationFailure(field: key, message: "\(key) \(s) is more than 5 minutes in the future")
        }
        guard t >= 0 else {
            throw ValidationFailure(field: key, message: "\(key) \(s) is before 1970-01-01, no device clock reads that")
        }
        return t
    }

    /// Unix ms of ISO-8601 UTC text (`T` separator; `Z` or `+00:00`; optional fraction), or nil.
    package static func utcMilliseconds(_ s: String) -> Int64? {
        let b = Array(s.utf8)
        guard b.count > 10, b[10] == UInt8(ascii: "T"), s.hasSuffix("Z") || s.hasSuffix("+00:00") else { return nil }
        return CivilTime.unixMilliseconds(rfc3339: s)
    }

    static func noExtraKeys(_ o: [String: JSONInput], _ allowed: [String]) throws(ValidationFailure) {
        if let extra = o.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ValidationFailure(
                field: extra,
                message: "unknown field \(extra); valid: \(allowed.joined(separator: ", "))"
            )
        }
    }

    /// `POST /api/iot-heart-rate`: `{userId, timestamp, heartRate}` (seed 001 §3.3.1, seed 002 §2.2.2).
    package static func iotHeartRate(_ body: JSONInput, now: Int64) throws(ValidationFailure) -> Observation {
        let o = try object(body)
        try noExtraKeys(o, ["userId", "timestamp", "heartRate"])
        let user = try identifier(o, "userId")
        let t = try timestamp(o, "timestamp", now: now)
        let hr = try integer(o, "heartRate", 20...300)
        return Observation(
            readingID: "\(user)/iot-heart-rate/\(t)",
            patientID: user,
            deviceID: "vitaledge-\(user)",
            time: t,
            values: [.heartRate: Double(hr)]
        )
    }

    /// `POST /api/healthkit`: `{userId, timestamp, stepCount, caloriesBurned}` (seed 001 §3.3.1, seed 002 §2.2.1).
    /// The summary is stored as an observation with id `USER/healthkit/TIME` (steps and calories; no alert rule uses
    /// them).
    package static func healthKitSummary(_ body: JSONInput, now: Int64) throws(ValidationFailure) -> Observation {
        let o = try object(body)
        try noExtraKeys(o, ["userId", "timestamp", "stepCount", "caloriesBurned"])
        let user = try identifier(o, "userId")
        let t = try timestamp(o, "timestamp", now: now)
        let steps = try integer(o, "stepCount", 0...200_000)
        let calories = try integer(o, "caloriesBurned", 0...20_000)
        return Observation(
            readingID: "\(user)/healthkit/\(t)",
            patientID: user,
            deviceID: "vitaledge-\(user)",
            time: t,
            values: [.steps: Double(steps), .calories: Double(calories)]
        )
    }

    /// Physiologically possible ranges and units of generic observations.
    static let kinds: [String: (Signal, String, ClosedRange<Double>)] = [
        "heart-rate": (.heartRate, "/min", 20...300), "glucose": (.glucose, "mg/dL", 10...1000),
        "cgm": (.cgm, "mg/dL", 20...600),
        "spo2": (.spo2, "%", 30...100), "temperature": (.temperature, "Cel", 25...45),
        "respiration-rate": (.respirationRate, "/min", 2...100),
        "weight": (.weight, "kg", 0.3...400), "feeding": (.feeding, "mL", 0...2000),
        "battery": (.battery, "%", 0...100),
        "steps": (.steps, "/d", 0...200_000),
    ]

    /// `POST /api/v1/observations` item: `{readingId, patientId, deviceId, kind, value, unit, timestamp}`, or for
    /// blood pressure `{…, kind: "blood-pressure", systolic, diastolic, unit: "mm[Hg]"}`.
    package static func observation(_ body: JSONInput, now: Int64) throws(ValidationFailure) -> Observation {
        let o = try object(body)
        let id = try identifier(o, "readingId")
        let patient = try identifier(o, "patientId")
        let device = try identifier(o, "deviceId")
        let kind = try string(o, "kind")
        let unit = try string(o, "unit")
        let t = try timestamp(o, "timestamp", now: now)
        if o["sequence"] != nil { _ = try integer(o, "sequence", 0...Int64(UInt32.max)) }
        if kind == "ecg" { return try ecg(o, identity: (id, patient, device), time: t) }
        if kind == "blood-pressure" {
            try noExtraKeys(
                o,
                [
                    "readingId", "patientId", "deviceId", "kind", "systolic", "diastolic", "unit", "timestamp",
                    "sequence",
                ]
            )
            guard unit == "mm[Hg]" else {
                throw ValidationFailure(field: "unit", message: "blood-pressure unit must be mm[Hg], got \(unit)")
            }
            let s = try number(o, "systolic", 40...300)
            let d = try number(o, "diastolic", 20...200)
            guard d < s else {
                throw ValidationFailure(field: "diastolic", message: "diastolic \(d) must be below systolic \(s)")
            }
            return Observation(
                readingID: id,
                patientID: patient,
                deviceID: device,
                time: t,
                values: [.systolic: s, .diastolic: d]
            )
        }
        try noExtraKeys(
            o,
            ["readingId", "patientId", "deviceId", "kind", "value", "unit", "timestamp", "sequence"]
                + (kind == "heart-rate" ? ["rrIntervals"] : []) + (kind == "feeding" ? ["method"] : [])
                + (kind == "symptom" ? ["symptom"] : []) + (kind == "equipment" ? ["item", "action"] : [])
        )
        let feed = try feedingMethod(o, kind: kind)
        let symptom = try symptom(o, kind: kind)
        let equipment = try equipment(o, kind: kind)
        guard let (signal, expectedUnit, range) = feed ?? symptom ?? equipment ?? kinds[kind] else {
            throw ValidationFailure(
                field: "kind",
                message:
                    "unknown kind \(kind); valid: blood-pressure, \((kinds.keys + ["symptom", "ecg", "equipment"]).sorted().joined(separator: ", "))"
            )
        }
        guard unit == expectedUnit else {
            throw ValidationFailure(field: "unit", message: "\(kind) unit must be \(expectedUnit) (UCUM), got \(unit)")
        }
        let value = try number(o, "value", range)
        return Observation(
            readingID: id,
            patientID: patient,
            deviceID: device,
            time: t,
            values: [signal: value],
            rrIntervals: try rrIntervals(o)
        )
    }

    /// A feed's `method` (seed 004's "breast/bottle"): `bottle` (the default) is a volume in mL,
    /// `breast` the minutes at the breast; nil for other kinds.
    static func feedingMethod(
        _ o: [String: JSONInput],
        kind: String
    ) throws(ValidationFailure) -> (Signal, String, ClosedRange<Double>)? {
        guard kind == "feeding", let method = o["method"] else { return nil }
        switch method {
        case .string("bottle"): return kinds["feeding"]
        case .string("breast"): return (.breastfeeding, "min", 1...180)
        default:
            throw ValidationFailure(
                field: "method",
                message: "method must be bottle (value in mL) or breast (value in min)"
            )
        }
    }

    /// A symptom report's `symptom` (palpitations, dizziness, chest-pain, shortness-of-breath,
    /// fainting): its signal, whose value is the severity 1 (mild) ... 3 (severe), unit
    /// `{severity}`; nil for other kinds.
    static func symptom(
        _ o: [String: JSONInput],
        kind: String
    ) throws(ValidationFailure) -> (Signal, String, ClosedRange<Double>)? {
        guard kind == "symptom" else { return nil }
        let name = try string(o, "symptom")
        guard let symptom = SymptomKind(rawValue: name) else {
            let valid = SymptomKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationFailure(field: "symptom", message: "unknown symptom \(name); valid: \(valid)")
        }
        if case let .number(x)? = o["value"], x != x.rounded() {
            throw ValidationFailure(
                field: "value",
                message: "a symptom's value is its severity: 1 mild, 2 moderate or 3 severe"
            )
        }
        return (symptom.signal, "{severity}", 1...3)
    }

    /// An equipment log entry's `item` (oxygen: flow L/min; ng-tube: size [Ch]; feeding-pump: rate
    /// mL/h) and `action` (in-use, replaced, adjusted): the item's signal, unit and range; nil for
    /// other kinds.
    static func equipment(
        _ o: [String: JSONInput],
        kind: String
    ) throws(ValidationFailure) -> (Signal, String, ClosedRange<Double>)? {
        guard kind == "equipment" else { return nil }
        let name = try string(o, "item")
        guard let item = EquipmentItem(rawValue: name) else {
            let valid = EquipmentItem.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationFailure(field: "item", message: "unknown item \(name); valid: \(valid)")
        }
        let action = try string(o, "action")
        guard EquipmentAction(rawValue: action) != nil else {
            let valid = EquipmentAction.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationFailure(field: "action", message: "unknown action \(action); valid: \(valid)")
        }
        return (item.signal, item.signal.ucum, item.range)
    }

    /// Optional `rrIntervals` of a heart-rate observation: up to 64 beat-to-beat intervals in ms
    /// (200...3000), returned in seconds.
    static func rrIntervals(_ o: [String: JSONInput]) throws(ValidationFailure) -> [Double] {
        guard let v = o["rrIntervals"] else { return [] }
        guard case let .array(items) = v, items.count <= 64 else {
            throw ValidationFailure(
                field: "rrIntervals",
                message: "rrIntervals must be an array of at most 64 intervals in ms"
            )
        }
        var out: [Double] = []
        for (i, item) in items.enumerated() {
            let ms: Double
            switch item {
            case let .integer(n): ms = Double(n)
            case let .number(x): ms = x
            default:
                throw ValidationFailure(field: "rrIntervals[\(i)]", message: "rrIntervals[\(i)] must be a number of ms")
            }
            guard (200...3000).contains(ms) else {
                throw ValidationFailure(
                    field: "rrIntervals[\(i)]",
                    message: "rrIntervals[\(i)] \(ms) ms is outside 200...3000"
                )
            }
            out.append(ms / 1000)
        }
        return out
    }
}
