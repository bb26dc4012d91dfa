import VitalSimCore

/// What a device measures at one scheduled time, including its own error model.
package protocol DeviceSensor {
    /// The kind of the device's main readings (others, like battery, get a kind prefix in their ids).
    var primaryKind: VitalKind { get }
    /// True when the device stores records and sends them after a reconnect (backfill).
    var storesRecords: Bool { get }
    /// How much of its measurement error the device adds: 1, or 0 for `noise: off` (the physiology
    /// exactly, at the device's resolution; the random draws are made all the same, so the rest of
    /// the scenario does not change).
    var noiseScale: Double { get set }
    /// Appends the samples taken at scheduled time `t` to `samples`.
    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample])
}

/// Builds the sensor model of a device type.
package enum SensorFactory {
    package static func make(
        _ spec: DeviceSpec,
        physiology: PatientPhysiology,
        rng: SeededRandom,
        horizon: Int64
    ) -> any DeviceSensor {
        var sensor = model(spec, physiology: physiology, rng: rng, horizon: horizon)
        sensor.noiseScale = spec.noise ? 1 : 0
        return sensor
    }

    static func model(
        _ spec: DeviceSpec,
        physiology: PatientPhysiology,
        rng: SeededRandom,
        horizon: Int64
    ) -> any DeviceSensor {
        switch spec.type {
        case .heartRateStrap: HeartRateStrap(physiology: physiology, rng: rng, cadence: spec.cadence.milliseconds)
        case .bpCuff: BloodPressureCuff(physiology: physiology, rng: rng)
        case .glucometer: Glucometer(physiology: physiology, rng: rng)
        case .cgm: ContinuousGlucoseMonitor(physiology: physiology, rng: rng, cadence: spec.cadence.milliseconds)
        case .pulseOximeter: PulseOximeter(physiology: physiology, rng: rng, continuous: spec.continuous)
        case .thermometer: Thermometer(physiology: physiology, rng: rng)
        case .weightScale: WeightScale(physiology: physiology, rng: rng)
        case .phoneBridge: PhoneBridge(spec: spec, physiology: physiology, rng: rng)
        case .feedingLog: FeedingLog(physiology: physiology, rng: rng, method: spec.feedingMethod)
        case .respirationMonitor: RespirationMonitor(physiology: physiology, rng: rng)
        case .symptomDiary:
            SymptomDiary(physiology: physiology, spontaneousPerDay: spec.spontaneousSymptomsPerDay, horizon: horizon)
        case .ecgWatch: ECGWatch(spec: spec, physiology: physiology, rng: rng, horizon: horizon)
        case .equipmentLog: EquipmentLog(spec: spec, physiology: physiology, rng: rng, horizon: horizon)
        }
    }
}

/// Heart-rate strap: 1 s notifications with the RR intervals of the beats completed since the last one,
/// cumulative energy expended every 10th notification, sensor contact detected.
struct HeartRateStrap: DeviceSensor {
    var noiseScale = 1.0
    let physiology: PatientPhysiology
    var rng: SeededRandom
    let cadence: Int64
    var beats: HeartBeatGenerator
    var recent: [Double] = []
    var energyKJ = 0.0
    var count = 0
    var primaryKind: VitalKind { .heartRate }
    var storesRecords: Bool { false }

    init(physiology: PatientPhysiology, rng: SeededRandom, cadence: Int64) {
        self.physiology = physiology
        self.rng = rng
        self.cadence = cadence
        beats = physiology.beats(from: 0)
    }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        var rrs: [UInt16] = []
        while true {
            if upcoming == nil {
                let rr = beats.next()
                upcoming = (beats.time, rr)
            }
            guard let (time, rr) = upcoming, time <= Double(t) else { break }
            rrs.append(UInt16(min(65535, (rr * 1024).rounded())))
            recent.append(rr)
            upcoming = nil
        }
        if recent.count > 5 { recent.removeFirst(recent.count - 5) }
        // At most 7 intervals fit the default 20-byte value with energy expended; the oldest are dropped (HRS).
        if rrs.count > 7 { rrs.removeFirst(rrs.count - 7) }
        let meanRR = recent.isEmpty ? 60 / physiology.meanHeartRate(at: t) : recent.reduce(0, +) / Double(recent.count)
        let bpm = Int((60 / meanRR).rounded())
        energyKJ += Double(cadence) / 60_000 * (4 + 0.15 * max(0, Double(bpm) - 60))
        count += 1
        let ee: UInt16? = count % 10 == 0 ? UInt16(min(65535, energyKJ)) : nil
        samples.append(
            Sample(
                offset: 0,
                measurement: .heartRate(bpm: bpm, rrIntervals: rrs, energyExpended: ee, contact: .detected),
                truth: physiology.ventricularRate(at: t),
                at: t
            )
        )
    }
    var upcoming: (Double, Double)?
}
