import VitalSimCore

/// A caregiver's equipment log (the Health Hearts SRS's "record the equipment the caregiver is using"): the
/// settings of an infant's home-care equipment, entered by hand (exact, no measurement error):
/// - each item in use at its starting setting, logged in the first minute, and home oxygen and a
///   feeding pump again at the daily check (08:00);
/// - an NG tube replaced every 7 days (the usual change of a PVC tube), at the same size;
/// - home oxygen turned up 0.5 L/min 10–30 min into each desaturation (the child's oxygen plan),
///   and back down 10–60 min after it ends.
/// The app sends each entry at its next sync (the device's cadence).
struct EquipmentLog: DeviceSensor {
    var noiseScale = 1.0
    var entries: [(time: Int64, item: EquipmentItem, setting: Double, action: EquipmentAction)] = []
    var next = 0
    var primaryKind: VitalKind { .equipment }
    var storesRecords: Bool { true }
    static let day: Int64 = 86_400_000

    init(spec: DeviceSpec, physiology: PatientPhysiology, rng: SeededRandom, horizon: Int64) {
        var rng = rng
        var raised: [(from: Int64, to: Int64)] = []
        for e in physiology.events where e.kind == .desaturation {
            let up = e.start + Int64(rng.uniform(10, 30) * 60_000)
            let down = e.end + Int64(rng.uniform(10, 60) * 60_000)
            if up < e.end { raised.append((up, down)) }
        }
        let first = physiology.clock.startUnixMilliseconds
        let midnight = first - ((first % Self.day) + Self.day) % Self.day - first
        for s in spec.equipment {
            let base = s.setting
            let oxygen = { (time: Int64) in base + (raised.contains { time >= $0.from && time < $0.to } ? 0.5 : 0) }
            entries.append((30_000, s.item, base, .inUse))
            switch s.item {
            case .ngTube:
                var time = 7 * Self.day
                while time < horizon {
                    entries.append((time + Int64(rng.uniform(9, 12) * 3_600_000), s.item, base, .replaced))
                    time += 7 * Self.day
                }
            case .oxygen, .feedingPump:
                var day = midnight + 8 * 3_600_000
                while day < horizon {
                    if day > 60_000 { entries.append((day, s.item, s.item == .oxygen ? oxygen(day) : base, .inUse)) }
                    day += Self.day
                }
                if s.item == .oxygen {
                    for r in raised {
                        entries.append((r.from, s.item, base + 0.5, .adjusted))
                        entries.append((r.to, s.item, base, .adjusted))
                    }
                }
            }
        }
        entries = entries.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(
            \.element
        )
        entries.removeAll { $0.time >= horizon }
    }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        while next < entries.count, entries[next].time <= t {
            let entry = entries[next]
            next += 1
            samples.append(
                Sample(
                    offset: entry.time - t,
                    measurement: .equipment(entry.item, setting: entry.setting, action: entry.action),
                    truth: entry.setting,
                    at: t,
                    emitOffset: 0
                )
            )
        }
    }
}
