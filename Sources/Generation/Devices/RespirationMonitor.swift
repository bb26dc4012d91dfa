import VitalSimCore

/// Wearable respiration sensor (a chest patch counting breaths by impedance or motion), relayed by
/// its companion app: whole breaths/min at each cadence tick, Gaussian error with SD 1.5 /min, so
/// about 95 % of readings lie within ±3 /min of the truth (the accuracy wearable respiration
/// sensors usually claim against a capnograph). It keeps its readings while the phone is away.
struct RespirationMonitor: DeviceSensor {
    var noiseScale = 1.0
    let physiology: PatientPhysiology
    var rng: SeededRandom
    var primaryKind: VitalKind { .respirationRate }
    var storesRecords: Bool { true }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        let truth = physiology.respirationRate(at: t)
        let perMinute = Int(Math.clamp(truth + rng.normal(mean: 0, sd: 1.5 * noiseScale), 2, 100).rounded())
        samples.append(Sample(offset: 0, measurement: .respirationRate(perMinute: perMinute), truth: truth, at: t))
    }
}
