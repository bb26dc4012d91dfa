import Yams

struct TimelineContext {
    var patients: [PatientSpec]
    /// Each device's type and the index of its patient in ``patients``, by device id.
    var devices: [String: (type: DeviceType, patient: Int)]
    var duration: Int64
    /// Each patient's index in ``patients``, by id (a ward's timeline names its patients thousands of times).
    private var patientIndex: [String: Int] = [:]

    init(patients: [PatientSpec], devices: [String: (type: DeviceType, patient: Int)], duration: Int64) {
        self.patients = patients
        self.devices = devices
        self.duration = duration
        for (i, p) in patients.enumerated() where patientIndex[p.id] == nil { patientIndex[p.id] = i }
    }

    /// The patient with id `id`.
    func patient(_ id: String) -> PatientSpec? { patientIndex[id].map { patients[$0] } }

    /// The type of the device with id `id`.
    func deviceType(_ id: String) -> DeviceType? { devices[id]?.type }

    /// Every device id, sorted (for a message naming the valid ones).
    var deviceIDs: [String] { devices.keys.sorted() }
}

/// Reads one `timeline:` entry: a clinical event on a patient or a fault on a device.
struct TimelineBuilder {
    let reader: YAMLReader
    let context: TimelineContext

    func entry(_ node: Node, _ field: String) -> TimelineEntry? {
        guard let mapping = node.mapping else {
            reader.fail(
                node,
                field,
                "expected a mapping with 'at' and 'event' + 'patient', 'fault' + 'device', 'reading' + 'device' or 'action' + 'person', got \(reader.kindName(node))"
            )
            return nil
        }
        let keys = mapping.keys.compactMap { $0.scalar?.string }
        if keys.contains("event") { return event(node, field) }
        if keys.contains("fault") { return fault(node, field) }
        if keys.contains("reading") { return scripted(node, field) }
        reader.fail(
            node,
            field,
            "each timeline entry needs 'event' (with 'patient'), 'fault' (with 'device'), 'reading' (with 'device') or 'action' (with 'person' and 'patient')"
        )
        return nil
    }

    private static let eventKeys: [ClinicalEventKind: [String]] = [
        .tachycardia: ["target", "onset", "offset"], .bradycardia: ["target", "onset", "offset"],
        .atrialFibrillation: ["target", "onset", "offset"], .hypoglycemia: ["cause", "insulin", "carbs"],
        .hyperglycemia: ["cause", "carbs"], .meal: ["carbs", "insulin"], .desaturation: ["target", "onset", "offset"],
        .hypertensiveCrisis: ["target", "diastolic", "onset", "offset"], .fever: ["target", "onset", "offset"],
        .weightLoss: ["target"], .fluidGain: ["target"], .feedingReduction: ["target"],
        .exercise: ["target", "onset", "offset"],
    ]

    private func event(_ node: Node, _ field: String) -> TimelineEntry? {
        let kindName = node.mapping?["event"]?.scalar?.string ?? ""
        let kind = ClinicalEventKind(rawValue: kindName)
        var allowed = ["at", "event", "patient"] + (kind.map { TimelineBuilder.eventKeys[$0] ?? [] } ?? [])
        if kind?.hasDuration ?? true { allowed.append("duration") }
        allowed.append("symptoms")
        let required = ["at", "patient"] + ((kind?.hasDuration ?? false) ? ["duration"] : [])
        guard let fields = reader.mapping(node, field, allowed: allowed, required: required) else { return nil }
        guard let kind = fields.choice("event", ClinicalEventKind.self, what: "event") else { return nil }
        let at = fields.duration("at", allowZero: true)?.milliseconds ?? 0
        let patientID = fields.string("patient") ?? ""
        let patient = context.patient(patientID)
        if fields.has("patient"), patient == nil {
            let valid = context.patients.map(\.id).joined(separator: ", ")
            reader.fail(
                fields.value("patient"),
                fields.path("patient"),
                "no patient '\(patientID)' in this scenario; "
                    + (valid.isEmpty ? "it has no valid patients" : "valid: \(valid)")
            )
        }
        checkStart(at, fields)
        let duration = kind.hasDuration ? (fields.duration("duration")?.milliseconds ?? 60_000) : 0
        let defaults = EventDefaults.of(kind, profile: patient?.profile ?? .adult)
        let (onset, offset) = ramps(kind, duration: duration, defaults: defaults, fields)
        var clinicalEvent = ClinicalEvent(
            kind: kind,
            patientID: patientID,
            start: at,
            duration: duration,
            onset: onset,
            offset: offset,
            line: fields.line
        )
        clinicalEvent.target =
            fields.number("target", in: defaults.targetRange, unit: defaults.targetUnit) ?? defaults.target
        clinicalEvent.target2 =
            fields.number("diastolic", in: 40...200, unit: "mmHg") ?? (kind == .hypertensiveCrisis ? 124 : nil)
        clinicalEvent.carbs = fields.number("carbs", in: 0...300, unit: "g") ?? defaults.carbs
        clinicalEvent.insulin = fields.number("insulin", in: 0...100, unit: "U") ?? defaults.insulin
        cause(of: &clinicalEvent, fields)
        if let node = fields.value("symptoms") { clinicalEvent.symptoms = symptoms(node, fields.path("symptoms")) }
        return .clinical(clinicalEvent)
    }

    /// An event's `symptoms:`: a mapping of symptom to the probability (0...1) that the patient
    /// reports it; symptoms not named are not reported.
    private func symptoms(_ node: Node, _ field: String) -> [SymptomChance] {
        let names = SymptomKind.allCases.map(\.rawValue)
        guard let fields = reader.mapping(node, field, allowed: names, required: []) else { return [] }
        return SymptomKind.allCases.compactMap { kind in
            fields.number(kind.rawValue, in: 0...1, unit: "probability").map { SymptomChance(kind, $0) }
        }
    }

    /// Fails an entry that starts at or after the end of the scenario.
    func checkStart(_ at: Int64, _ fields: Fields) {
        guard fields.has("at"), at >= context.duration else { return }
        reader.fail(
            fields.value("at"),
            fields.path("at"),
            "starts at or after the end of the scenario (duration \(VirtualDuration(milliseconds: context.duration)))"
        )
    }

    /// The event's onset and offset ramps: given, or the defaults shrunk to fit a short event
    /// (half of it at most); given ramps longer than the event are an error.
    private func ramps(
        _ kind: ClinicalEventKind,
        duration: Int64,
        defaults eventDefaults: EventDefaults,
        _ fields: Fields
    ) -> (Int64, Int64) {
        var onset = fields.duration("onset", allowZero: true)?.milliseconds ?? eventDefaults.onset
        var offset = fields.duration("offset", allowZero: true)?.milliseconds ?? eventDefaults.offset
        if !fields.has("onset"), !fields.has("offset"), onset + offset > duration / 2 {
            let scale = Double(duration / 2) / Double(onset + offset)
            onset = Int64(Double(onset) * scale)
            offset = Int64(Double(offset) * scale)
        }
        if onset + offset > duration, kind.hasDuration {
            let ramps = VirtualDuration(milliseconds: onset + offset)
            reader.fail(
                fields.value("onset") ?? fields.value("duration"),
                fields.path("onset"),
                "onset + offset (\(ramps)) exceed the duration (\(VirtualDuration(milliseconds: duration)))"
            )
        }
        return (onset, offset)
    }

    /// The cause of a glucose event (and the insulin of a skipped meal).
    private func cause(of clinicalEvent: inout ClinicalEvent, _ fields: Fields) {
        let kind = clinicalEvent.kind
        if let cause = fields.string("cause") {
            let valid = kind == .hypoglycemia ? ["insulin-overdose", "skipped-meal"] : ["missed-bolus"]
            if valid.contains(cause) {
                clinicalEvent.cause = cause
            } else {
                reader.fail(
                    fields.value("cause"),
                    fields.path("cause"),
                    "unknown cause '\(cause)' for \(kind.rawValue); valid: \(valid.joined(separator: ", "))"
                )
            }
        } else if kind == .hypoglycemia {
            clinicalEvent.cause = "insulin-overdose"
        } else if kind == .hyperglycemia {
            clinicalEvent.cause = "missed-bolus"
        }
        if kind == .hypoglycemia, clinicalEvent.cause == "skipped-meal", fields.has("insulin") == false,
            let carbs = clinicalEvent.carbs
        {
            clinicalEvent.insulin = (carbs / 10 * 20).rounded() / 20
        }
    }

    private func fault(_ node: Node, _ field: String) -> TimelineEntry? {
        let kindName = node.mapping?["fault"]?.scalar?.string ?? ""
        let kind = FaultKind(rawValue: kindName)
        var allowed = ["at", "fault", "device", "duration"]
        switch kind {
        case .duplicates?, .outOfOrder?: allowed.append("probability")
        case .corrupt?: allowed += ["probability", "corruption"]
        case .clockSkew?: allowed.append("skew")
        case .lowBattery?: allowed.append("level")
        default: break
        }
        guard let fields = reader.mapping(node, field, allowed: allowed, required: ["at", "device", "duration"]) else {
            return nil
        }
        guard let kind = fields.choice("fault", FaultKind.self, what: "fault") else { return nil }
        let at = fields.duration("at", allowZero: true)?.milliseconds ?? 0
        let deviceID = fields.string("device") ?? ""
        let type = context.deviceType(deviceID)
        if fields.has("device"), type == nil {
            reader.fail(
                fields.value("device"),
                fields.path("device"),
                "no device '\(deviceID)' in this scenario; valid: \(context.deviceIDs.joined(separator: ", "))"
            )
        }
        checkStart(at, fields)
        let duration = fields.duration("duration")?.milliseconds ?? 60_000
        if kind == .disconnect, let type, type == .cgm || type == .glucometer, duration > 48 * 3_600_000 {
            reader.fail(
                fields.value("duration"),
                fields.path("duration"),
                "a \(type.rawValue) keeps 48 h of glucose history for backfill; a disconnect may last at most 48h"
            )
        }
        var fault = DeviceFault(kind: kind, deviceID: deviceID, start: at, duration: duration, line: fields.line)
        let defaultP: Double = kind == .duplicates || kind == .outOfOrder ? 0.2 : (kind == .corrupt ? 0.1 : 1)
        fault.probability = fields.number("probability", in: 0...1, unit: "") ?? defaultP
        if kind == .corrupt { corruption(of: &fault, type, fields) }
        if kind == .clockSkew { fault.skew = skew(fields) }
        fault.level = fields.number("level", in: 0...100, unit: "%") ?? 8
        return .fault(fault)
    }

    /// A corrupt fault's corruption. A device whose payloads are GATT bytes (a Bluetooth device over
    /// BLE or MQTT) takes the GATT forms, bad-crc only with an E2E-CRC (cgm); one whose payloads are
    /// JSON (a phone bridge or feeding log, or any device over HTTPS) takes the JSON forms, and a
    /// Bluetooth device relayed over HTTPS the GATT forms' JSON counterparts too.
    private func corruption(of fault: inout DeviceFault, _ type: DeviceType?, _ fields: Fields) {
        let deviceID = fault.deviceID
        let transport = context.devices[deviceID].flatMap {
            context.patients[$0.patient].devices.first { $0.id == deviceID }?.transport
        }
        let json = type.map { !$0.isBluetooth } ?? false || transport == .https
        let gatt = type?.isBluetooth ?? false
        let valid =
            (gatt ? Corruption.gattForms.filter { $0 != .badCRC || type == .cgm } : [])
            + (json ? Corruption.jsonForms + [.mixed] : []) + (type == .phoneBridge ? Corruption.phoneForms : [])
        let fallback: Corruption = !gatt ? .mixed : (type == .cgm ? .badCRC : .truncation)
        fault.corruption = fields.choice("corruption", Corruption.self, what: "corruption") ?? fallback
        guard let corruption = fault.corruption, let type, !valid.contains(corruption) else { return }
        let form =
            json ? "JSON over \(transport?.rawValue ?? "https")" : "GATT bytes over \(transport?.rawValue ?? "ble")"
        reader.fail(
            fields.value("corruption"),
            fields.path("corruption"),
            "\(corruption.rawValue) does not apply to \(deviceID), a \(type.rawValue) sending \(form); valid: \(Array(Set(valid.map(\.rawValue))).sorted().joined(separator: ", "))"
        )
    }

    /// A clock-skew fault's signed skew (default 5 minutes ahead).
    private func skew(_ fields: Fields) -> Int64 {
        guard let value = fields.value("skew"), let text = value.scalar?.string else { return 300_000 }
        let negative = text.hasPrefix("-")
        if let virtualDuration = VirtualDuration(parsing: negative ? String(text.dropFirst()) : text),
            virtualDuration.milliseconds > 0,
            virtualDuration.milliseconds <= 365 * 86_400_000
        {
            return negative ? -virtualDuration.milliseconds : virtualDuration.milliseconds
        }
        reader.fail(
            value,
            fields.path("skew"),
            "expected a non-zero signed duration up to 365d such as 5m or -90s, got '\(text)'"
        )
        return 0
    }
}

/// Defaults and valid ranges for clinical event parameters.
struct EventDefaults {
    var target: Double?
    var targetRange: ClosedRange<Double> = 0...1000
    var targetUnit = ""
    var onset: Int64 = 0
    var offset: Int64 = 0
    var carbs: Double?
    var insulin: Double?

    static func of(_ kind: ClinicalEventKind, profile: Profile) -> EventDefaults {
        let minute: Int64 = 60_000
        switch kind {
        case .tachycardia:
            return EventDefaults(
                target: profile == .chdInfant ? 200 : 140,
                targetRange: 60...260,
                targetUnit: "bpm",
                onset: 2 * minute,
                offset: 3 * minute
            )
        case .bradycardia:
            return EventDefaults(
                target: profile == .chdInfant ? 80 : 42,
                targetRange: 20...100,
                targetUnit: "bpm",
                onset: 2 * minute,
                offset: 2 * minute
            )
        case .atrialFibrillation:
            return EventDefaults(target: 110, targetRange: 50...200, targetUnit: "bpm (mean ventricular rate)")
        case .hypoglycemia: return EventDefaults(carbs: 60, insulin: 8)
        case .hyperglycemia: return EventDefaults(carbs: 90)
        case .meal: return EventDefaults(carbs: 50)
        case .desaturation:
            return EventDefaults(
                target: profile == .chdInfant ? 68 : 84,
                targetRange: 50...100,
                targetUnit: "%",
                onset: minute,
                offset: 2 * minute
            )
        case .hypertensiveCrisis:
            return EventDefaults(
                target: 192,
                targetRange: 100...260,
                targetUnit: "mmHg systolic",
                onset: 10 * minute,
                offset: 20 * minute
            )
        case .fever:
            return EventDefaults(
                target: 38.9,
                targetRange: 36...42,
                targetUnit: "°C",
                onset: 60 * minute,
                offset: 120 * minute
            )
        case .weightLoss:
            return EventDefaults(target: profile == .chdInfant ? 40 : 300, targetRange: 0...5000, targetUnit: "g/day")
        case .fluidGain: return EventDefaults(target: 2.5, targetRange: 0...20, targetUnit: "kg over the event")
        case .feedingReduction: return EventDefaults(target: 80, targetRange: 0...300, targetUnit: "mL/kg/day")
        case .exercise:
            return EventDefaults(
                target: 110,
                targetRange: 40...200,
                targetUnit: "steps/min",
                onset: 2 * minute,
                offset: 3 * minute
            )
        }
    }
}
