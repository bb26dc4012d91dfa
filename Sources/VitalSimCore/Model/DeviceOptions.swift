import Yams

/// The device keys that belong to one device type: a feeding log's `method`, a symptom diary's
/// `spontaneous`, an ECG watch's `recordings` and `triggers`, an equipment log's `equipment`, a phone
/// bridge's `real-time` and `daily-summary` switches. Given on another type, each is an error naming
/// the type it belongs to. Also `noise` and `phase`, which every measuring device has.
struct DeviceOptions {
    let reader: YAMLReader

    /// The keys, for the device mapping's allowed keys.
    static let keys = [
        "method", "spontaneous", "recordings", "triggers", "equipment", "noise", "phase", "real-time", "daily-summary",
    ]

    /// A `noise:` switch (`on` or `off`), nil when not given.
    static func noise(_ fields: Fields, _ reader: YAMLReader) -> Bool? { onOff("noise", fields, reader) }

    /// A switch `key` (`on` or `off`), nil when not given.
    static func onOff(_ key: String, _ fields: Fields, _ reader: YAMLReader) -> Bool? {
        guard let word = fields.string(key) else { return nil }
        guard word == "on" || word == "off" else {
            reader.fail(fields.value(key), fields.path(key), "\(key) is on or off, got '\(word)'")
            return nil
        }
        return word == "on"
    }

    /// A `phase:` below the device's cadence, or for a scheduled device below an hour; a traced
    /// device sends its recording's times and has none.
    func phase(_ phase: VirtualDuration, _ fields: Fields, _ spec: DeviceSpec) -> VirtualDuration {
        let (limit, what) =
            spec.schedule.isEmpty
            ? (spec.cadence, "its cadence (\(spec.cadence))") : (.hours(1), "an hour (it has a schedule)")
        if fields.has("trace") {
            reader.fail(
                fields.value("phase"),
                fields.path("phase"),
                "a traced device sends its recording's times; phase applies to measuring devices"
            )
        } else if !(phase < limit) {
            reader.fail(fields.value("phase"), fields.path("phase"), "phase must be less than \(what), got \(phase)")
        } else {
            return phase
        }
        return .zero
    }

    func read(_ fields: Fields, into spec: inout DeviceSpec) {
        let type = spec.type
        if let noise = Self.noise(fields, reader) { spec.noise = noise }
        if let phase = fields.duration("phase", allowZero: true) { spec.phase = self.phase(phase, fields, spec) }
        func only(_ key: String, _ owner: DeviceType) -> Bool {
            guard fields.has(key) else { return false }
            if type == owner { return true }
            reader.fail(fields.value(key), fields.path(key), "\(key) applies only to \(owner.rawValue)")
            return false
        }
        if only("method", .feedingLog), let method = fields.choice("method", FeedingMethod.self, what: "feeding method")
        {
            spec.feedingMethod = method
        }
        if only("spontaneous", .symptomDiary),
            let rate = fields.number("spontaneous", in: 0...24, unit: "reports per day")
        {
            spec.spontaneousSymptomsPerDay = rate
        }
        if only("recordings", .ecgWatch), let list = fields.list("recordings") {
            spec.ecgRecordings = list.enumerated().compactMap {
                fields.timeOfDay($0.element, fields.path("recordings") + "[\($0.offset)]")
            }.sorted()
        }
        if only("triggers", .ecgWatch), let list = fields.list("triggers") {
            var triggers: Set<ECGTrigger> = []
            for (i, item) in list.enumerated() {
                let name = item.scalar?.string ?? ""
                guard let trigger = ECGTrigger(rawValue: name) else {
                    let valid = ECGTrigger.allCases.map(\.rawValue).joined(separator: ", ")
                    reader.fail(item, fields.path("triggers") + "[\(i)]", "unknown trigger '\(name)'; valid: \(valid)")
                    continue
                }
                triggers.insert(trigger)
            }
            spec.ecgTriggers = ECGTrigger.allCases.filter { triggers.contains($0) }
        }
        if only("real-time", .phoneBridge), let on = Self.onOff("real-time", fields, reader) {
            spec.realTimeMonitoring = on
        }
        if only("daily-summary", .phoneBridge), let on = Self.onOff("daily-summary", fields, reader) {
            spec.dailySummaries = on
        }
        if type == .equipmentLog, !fields.has("equipment") {
            reader.fail(
                fields.node,
                fields.field,
                "an equipment-log needs 'equipment': the items and their settings, e.g. {oxygen: 0.5}"
            )
        }
        if only("equipment", .equipmentLog), let node = fields.value("equipment") {
            let names = EquipmentItem.allCases.map(\.rawValue)
            guard let group = reader.mapping(node, fields.path("equipment"), allowed: names) else { return }
            spec.equipment = EquipmentItem.allCases.compactMap { item in
                let unit = item.signal.ucum
                return group.number(item.rawValue, in: item.range, unit: unit).map { EquipmentSetting(item, $0) }
            }
        }
    }
}
