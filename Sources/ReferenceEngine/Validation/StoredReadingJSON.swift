import VitalSimCore

/// A stored observation as the read-back API renders it: `{readingId, patientId, deviceId, kind,
/// timestamp, values: {signal: value}, units: {signal: UCUM unit}, rrIntervals?}` — every value the
/// SUT holds, with the device time it was stamped with (ISO-8601 UTC, milliseconds).
package enum StoredReadingJSON {
    /// The UCUM unit each signal is stored in (VitalSim's).
    package static func unit(_ signal: Signal) -> String { signal.ucum }

    /// Which signal names an observation's kind, first match wins: blood pressure before the pulse
    /// it may carry, a daily summary's steps before its calories, the battery last.
    static let precedence: [Signal] = [
        .systolic, .spo2, .glucose, .cgm, .temperature, .respirationRate, .weight, .feeding, .breastfeeding, .steps,
        .heartRate,
        .calories, .palpitations, .dizziness, .chestPain, .shortnessOfBreath, .fainting, .ecgHeartRate, .ecgAF,
        .oxygenFlow, .ngTubeSize,
        .feedingPumpRate, .battery,
    ]

    /// The kind of an observation, as `POST /api/v1/observations` names it (`blood-pressure`,
    /// `heart-rate`, `steps`, …).
    package static func kind(_ observation: Observation) -> String {
        guard let primary = precedence.first(where: { observation.values[$0] != nil }) else { return "unknown" }
        if primary.isSymptom { return "symptom" }
        if primary == .ecgHeartRate || primary == .ecgAF { return "ecg" }
        if EquipmentItem(signal: primary) != nil { return "equipment" }
        return primary == .systolic ? "blood-pressure" : primary == .breastfeeding ? "feeding" : primary.rawValue
    }

    /// The reading kind of an observation (`steps` and `calories` are a daily summary's), nil for
    /// one that carries no known signal.
    package static func vitalKind(_ observation: Observation) -> VitalKind? {
        switch kind(observation) {
        case "steps", "calories": .dailySummary
        case let other: VitalKind(rawValue: other)
        }
    }

    package static func json(_ observation: Observation) -> JSONValue {
        let signals = Signal.allCases.filter { observation.values[$0] != nil }
        var fields: [(String, JSONValue)] = [
            ("readingId", .string(observation.readingID)), ("patientId", .string(observation.patientID)),
            ("deviceId", .string(observation.deviceID)),
            ("kind", .string(kind(observation))),
            ("timestamp", .string(CivilTime(unixMilliseconds: observation.time).iso8601(fractional: true))),
            ("values", .object(signals.map { ($0.rawValue, .double(observation.values[$0] ?? 0)) })),
            ("units", .object(signals.map { ($0.rawValue, .string(unit($0))) })),
        ]
        if !observation.rrIntervals.isEmpty {
            fields.append(("rrIntervals", .array(observation.rrIntervals.map { .double($0) })))
        }
        return .object(fields)
    }
}
