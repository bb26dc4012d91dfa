import VitalSimCore

/// Validation of the VitalEdge payloads (the VitalEdge SDS and RSD) and of generic observations.
package enum PayloadValidation {
    /// How far in the future (server clock) a timestamp may be.
    package static let futureSkew: Int64 = 5 * 60_000

    static func object(_ body: JSONInput) throws(ValidationFailure) -> [String: JSONInput] {
        guard case let .object(members) = body else {
            throw ValidationFailure(field: "", message: "the body must be a JSON object, got \(body.typeName)")
        }
        return members
    }

    static func string(_ members: [String: JSONInput], _ key: String) throws(ValidationFailure) -> String {
        guard let member = members[key] else { throw ValidationFailure(field: key, message: "\(key) is required") }
        guard case let .string(s) = member, !s.isEmpty else {
            throw ValidationFailure(field: key, message: "\(key) must be a non-empty string, got \(member.typeName)")
        }
        return s
    }

    /// Longest id accepted (reading, patient and device ids), in characters.
    package static let maxIdentifierLength = 128

    /// An id as sent (`field` names it in the failure): 1 to ``maxIdentifierLength`` characters,
    /// none of them a control character (NUL, line breaks, …), which would let one id pass for
    /// another in logs and queries.
    package static func identifier(_ text: String, field: String) throws(ValidationFailure) -> String {
        let scalars = text.unicodeScalars
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
        return text
    }

    /// A patient id as sent (`field` names it in the failure): an id (``identifier(_:field:)``) the
    /// API can also serve back, 1 to 64 characters without `/` (``PatientIdentifier``); an id it
    /// could store but never read back, search or delete is refused when it arrives.
    package static func patientIdentifier(_ text: String, field: String) throws(ValidationFailure) -> String {
        let id = try identifier(text, field: field)
        if let problem = PatientIdentifier.problem(id) { throw ValidationFailure(field: field, message: problem) }
        return id
    }

    /// A required patient id member of `o` (see ``patientIdentifier(_:field:)``).
    static func patientIdentifier(_ members: [String: JSONInput], _ key: String) throws(ValidationFailure) -> String {
        try patientIdentifier(try string(members, key), field: key)
    }

    /// A required id member of `o` (see ``identifier(_:field:)``).
    static func identifier(_ members: [String: JSONInput], _ key: String) throws(ValidationFailure) -> String {
        try identifier(try string(members, key), field: key)
    }

    static func integer(
        _ members: [String: JSONInput],
        _ key: String,
        _ range: ClosedRange<Int64>
    ) throws(ValidationFailure) -> Int64 {
        guard let member = members[key] else { throw ValidationFailure(field: key, message: "\(key) is required") }
        guard case let .integer(i) = member else {
            throw ValidationFailure(field: key, message: "\(key) must be an integer, got \(member.typeName)")
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
        _ members: [String: JSONInput],
        _ key: String,
        _ range: ClosedRange<Double>
    ) throws(ValidationFailure) -> Double {
        guard let member = members[key] else { throw ValidationFailure(field: key, message: "\(key) is required") }
        let parsed: Double
        switch member {
        case let .integer(whole): parsed = Double(whole)
        case let .number(real): parsed = real
        default: throw ValidationFailure(field: key, message: "\(key) must be a number, got \(member.typeName)")
        }
        guard range.contains(parsed) else {
            throw ValidationFailure(
                field: key,
                message: "\(key) \(parsed) is outside \(range.lowerBound)...\(range.upperBound)"
            )
        }
        return parsed
    }

    /// ISO-8601 UTC (`2024-11-07T12:34:58Z`, the seeds' format; a fraction of a second and `+00:00`
    /// are accepted too); with `offsets`, any RFC 3339 offset (FHIR `dateTime`).
    static func timestamp(
        _ members: [String: JSONInput],
        _ key: String,
        now: Int64,
        offsets: Bool = false
    ) throws(ValidationFailure) -> Int64 {
        let text = try string(members, key)
        guard let measuredAt = offsets ? CivilTime.unixMilliseconds(rfc3339: text) : utcMilliseconds(text) else {
            throw ValidationFailure(
                field: key,
                message: offsets
                    ? "\(key) must be a FHIR dateTime with time zone such as 2024-11-07T14:34:58+02:00, got '\(text)'"
                    : "\(key) must be ISO-8601 UTC such as 2024-11-07T12:34:58Z, got '\(text)'"
            )
        }
        guard measuredAt <= now + futureSkew else {
            throw ValidationFailure(field: key, message: "\(key) \(text) is more than 5 minutes in the future")
        }
        guard measuredAt >= 0 else {
            throw ValidationFailure(
                field: key,
                message: "\(key) \(text) is before 1970-01-01, no device clock reads that"
            )
        }
        return measuredAt
    }

    /// Unix ms of ISO-8601 UTC text (`T` separator; `Z` or `+00:00`; optional fraction), or nil.
    package static func utcMilliseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count > 10, bytes[10] == UInt8(ascii: "T"), text.hasSuffix("Z") || text.hasSuffix("+00:00") else {
            return nil
        }
        return CivilTime.unixMilliseconds(rfc3339: text)
    }

    static func noExtraKeys(_ members: [String: JSONInput], _ allowed: [String]) throws(ValidationFailure) {
        if let extra = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ValidationFailure(
                field: extra,
                message: "unknown field \(extra); valid: \(allowed.joined(separator: ", "))"
            )
        }
    }

    /// `POST /api/iot-heart-rate`: `{userId, timestamp, heartRate}` (the VitalEdge SDS §3.3.1, the VitalEdge RSD §2.2.2).
    package static func iotHeartRate(_ body: JSONInput, now: Int64) throws(ValidationFailure) -> Observation {
        let members = try object(body)
        try noExtraKeys(members, ["userId", "timestamp", "heartRate"])
        let user = try patientIdentifier(members, "userId")
        let measuredAt = try timestamp(members, "timestamp", now: now)
        let hr = try integer(members, "heartRate", 20...300)
        return Observation(
            readingID: "\(user)/iot-heart-rate/\(measuredAt)",
            patientID: user,
            deviceID: "vitaledge-\(user)",
            time: measuredAt,
            values: [.heartRate: Double(hr)]
        )
    }

    /// `POST /api/healthkit`: `{userId, timestamp, stepCount, caloriesBurned}` (the VitalEdge SDS §3.3.1, the VitalEdge RSD §2.2.1).
    /// The summary is stored as an observation with id `USER/healthkit/TIME` (steps and calories; no alert rule uses
    /// them).
    package static func healthKitSummary(_ body: JSONInput, now: Int64) throws(ValidationFailure) -> Observation {
        let members = try object(body)
        try noExtraKeys(members, ["userId", "timestamp", "stepCount", "caloriesBurned"])
        let user = try patientIdentifier(members, "userId")
        let measuredAt = try timestamp(members, "timestamp", now: now)
        let steps = try integer(members, "stepCount", 0...200_000)
        let calories = try integer(members, "caloriesBurned", 0...20_000)
        return Observation(
            readingID: "\(user)/healthkit/\(measuredAt)",
            patientID: user,
            deviceID: "vitaledge-\(user)",
            time: measuredAt,
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
        let members = try object(body)
        let id = try identifier(members, "readingId")
        let patient = try patientIdentifier(members, "patientId")
        let device = try identifier(members, "deviceId")
        let kind = try string(members, "kind")
        let unit = try string(members, "unit")
        let measuredAt = try timestamp(members, "timestamp", now: now)
        if members["sequence"] != nil { _ = try integer(members, "sequence", 0...Int64(UInt32.max)) }
        if kind == "ecg" { return try ecg(members, identity: (id, patient, device), time: measuredAt) }
        if kind == "blood-pressure" {
            try noExtraKeys(
                members,
                [
                    "readingId", "patientId", "deviceId", "kind", "systolic", "diastolic", "unit", "timestamp",
                    "sequence",
                ]
            )
            guard unit == "mm[Hg]" else {
                throw ValidationFailure(field: "unit", message: "blood-pressure unit must be mm[Hg], got \(unit)")
            }
            let systolic = try number(members, "systolic", 40...300)
            let diastolic = try number(members, "diastolic", 20...200)
            guard diastolic < systolic else {
                throw ValidationFailure(
                    field: "diastolic",
                    message: "diastolic \(diastolic) must be below systolic \(systolic)"
                )
            }
            return Observation(
                readingID: id,
                patientID: patient,
                deviceID: device,
                time: measuredAt,
                values: [.systolic: systolic, .diastolic: diastolic]
            )
        }
        try noExtraKeys(
            members,
            ["readingId", "patientId", "deviceId", "kind", "value", "unit", "timestamp", "sequence"]
                + (kind == "heart-rate" ? ["rrIntervals"] : []) + (kind == "feeding" ? ["method"] : [])
                + (kind == "symptom" ? ["symptom"] : []) + (kind == "equipment" ? ["item", "action"] : [])
        )
        let feed = try feedingMethod(members, kind: kind)
        let symptom = try symptom(members, kind: kind)
        let equipment = try equipment(members, kind: kind)
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
        let value = try number(members, "value", range)
        return Observation(
            readingID: id,
            patientID: patient,
            deviceID: device,
            time: measuredAt,
            values: [signal: value],
            rrIntervals: try rrIntervals(members)
        )
    }

    /// A feed's `method` (the Health Hearts SRS's "breast/bottle"): `bottle` (the default) is a volume in mL,
    /// `breast` the minutes at the breast; nil for other kinds.
    static func feedingMethod(
        _ members: [String: JSONInput],
        kind: String
    ) throws(ValidationFailure) -> (Signal, String, ClosedRange<Double>)? {
        guard kind == "feeding", let method = members["method"] else { return nil }
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
        _ members: [String: JSONInput],
        kind: String
    ) throws(ValidationFailure) -> (Signal, String, ClosedRange<Double>)? {
        guard kind == "symptom" else { return nil }
        let name = try string(members, "symptom")
        guard let symptom = SymptomKind(rawValue: name) else {
            let valid = SymptomKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationFailure(field: "symptom", message: "unknown symptom \(name); valid: \(valid)")
        }
        if case let .number(x)? = members["value"], x != x.rounded() {
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
        _ members: [String: JSONInput],
        kind: String
    ) throws(ValidationFailure) -> (Signal, String, ClosedRange<Double>)? {
        guard kind == "equipment" else { return nil }
        let name = try string(members, "item")
        guard let item = EquipmentItem(rawValue: name) else {
            let valid = EquipmentItem.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationFailure(field: "item", message: "unknown item \(name); valid: \(valid)")
        }
        let action = try string(members, "action")
        guard EquipmentAction(rawValue: action) != nil else {
            let valid = EquipmentAction.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationFailure(field: "action", message: "unknown action \(action); valid: \(valid)")
        }
        return (item.signal, item.signal.ucum, item.range)
    }

    /// Optional `rrIntervals` of a heart-rate observation: up to 64 beat-to-beat intervals in ms
    /// (200...3000), returned in seconds.
    static func rrIntervals(_ members: [String: JSONInput]) throws(ValidationFailure) -> [Double] {
        guard let member = members["rrIntervals"] else { return [] }
        guard case let .array(items) = member, items.count <= 64 else {
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
