import VitalSimCore

/// Upper-arm cuff: a home burst of two readings one minute apart (ACC/AHA home protocol), each
/// preceded by Intermediate Cuff Pressure notifications while the cuff inflates. Oscillometric: the
/// cuff finds the mean arterial pressure (the pressure of largest oscillation; true MAP ≈ DBP +
/// 0.412·(SBP − DBP), Meaney et al. 2000) with an error of SD 3 mmHg, and estimates systolic and
/// diastolic from the envelope with larger, correlated errors (SD 5 and 4 mmHg, correlation 0.5,
/// both sharing the MAP error), so the reported MAP is measured, not computed from the other two.
struct BloodPressureCuff: DeviceSensor {
    var noiseScale = 1.0
    let physiology: PatientPhysiology
    var rng: SeededRandom
    var primaryKind: VitalKind { .bloodPressure }
    var storesRecords: Bool { true }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        for burst in 0..<2 {
            let start = Int64(burst) * 60_000
            let truth = physiology.bloodPressure(at: t + start)
            let trueMAP = truth.diastolic + 0.412 * (truth.systolic - truth.diastolic)
            let mapError = rng.normal(mean: 0, sd: 3 * noiseScale)
            let envelope = rng.normal()
            let sysError = 0.6 * mapError + noiseScale * 4 * envelope
            let diaError = 0.6 * mapError + noiseScale * 3 * (0.4 * envelope + 0.92 * rng.normal())
            let sys = Int((truth.systolic + sysError).rounded())
            let dia = Int((truth.diastolic + diaError).rounded())
            let diastolic = max(20, min(dia, sys - 5))
            let map = max(diastolic, min(Int((trueMAP + mapError).rounded()), sys))
            let target = sys + 30
            for k in 0..<20 {
                samples.append(
                    Sample(
                        offset: start + Int64(k) * 1000,
                        measurement: .cuffPressure(mmHg: target * (k + 1) / 20),
                        truth: Double(target * (k + 1) / 20),
                        at: t
                    )
                )
            }
            let pulse = Int(
                (physiology.ventricularRate(at: t + start) + rng.normal(mean: 0, sd: 2 * noiseScale)).rounded()
            )
            let irregular: UInt16 = physiology.atrialFibrillation(at: t + start) != nil ? 0x0004 : 0
            samples.append(
                Sample(
                    offset: start + 35_000,
                    measurement: .bloodPressure(
                        systolic: sys,
                        diastolic: diastolic,
                        meanArterial: map,
                        pulse: pulse,
                        status: irregular
                    ),
                    truth: truth.systolic,
                    at: t
                )
            )
        }
    }
}

/// Fingerstick meter: ISO 15197-grade error, GLS meal context from the time of day, stored records.
struct Glucometer: DeviceSensor {
    var noiseScale = 1.0
    let physiology: PatientPhysiology
    var rng: SeededRandom
    var primaryKind: VitalKind { .glucose }
    var storesRecords: Bool { true }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        let truth = physiology.glucose.plasma(at: t)
        let value = Int(Math.clamp(truth * (1 + 0.04 * noiseScale * rng.normal()), 20, 600).rounded())
        let hour = physiology.clock.hour(at: t)
        // GLS meal context: postprandial within 2.5 h of a meal's start, else by the time of day.
        let sinceMeal = physiology.glucose.minutesSinceMeal(at: t)
        let meal: UInt8 = hour >= 21 ? 5 : ((sinceMeal.map { $0 > 0 && $0 <= 150 } ?? false) ? 2 : (hour < 10 ? 3 : 1))
        samples.append(
            Sample(
                offset: 0,
                measurement: .glucose(mgdl: value, meal: meal, status: lowBattery ? 0x0001 : 0),
                truth: truth,
                at: t
            )
        )
    }
}

/// Continuous glucose monitor: interstitial glucose read through a factory-calibrated sensor's
/// error model (``CGMSensorError``: calibration gain and offset, smooth AR(2) noise), LOW below 40
/// and HIGH above 400, trend over 15 min, E2E-CRC.
struct ContinuousGlucoseMonitor: DeviceSensor {
    var noiseScale = 1.0
    let physiology: PatientPhysiology
    let cadence: Int64
    var error: CGMSensorError
    var history: [Double] = []
    var primaryKind: VitalKind { .cgm }
    var storesRecords: Bool { true }

    init(physiology: PatientPhysiology, rng: SeededRandom, cadence: Int64) {
        self.physiology = physiology
        self.cadence = cadence
        error = CGMSensorError(rng: rng.split("sensor-error"))
    }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        let ig = physiology.glucose.interstitial(at: t)
        let sensed = error.reading(of: ig, at: t)
        let raw = ig + noiseScale * (sensed.value - ig)
        history.append(raw)
        let window = max(2, Int(900_000 / cadence) + 1)
        if history.count > window { history.removeFirst(history.count - window) }
        let trend =
            history.count >= 2
            ? (history.last! - history.first!) / (Double(history.count - 1) * Double(cadence) / 60_000) : 0
        var warning: UInt32 = 0
        if raw < 40 { warning |= 0x40 }
        if raw > 400 { warning |= 0x80 }
        let status: UInt32 = lowBattery ? 0x02 : 0
        let value = Int(Math.clamp(raw, 40, 400).rounded())
        let quality = Int(Math.clamp(96 - 4 * abs(noiseScale * sensed.noise), 70, 100).rounded())
        let minutes = UInt16(truncatingIfNeeded: t / 60_000)
        samples.append(
            Sample(
                offset: 0,
                measurement: .cgm(
                    mgdl: value,
                    trend: (trend * 10).rounded() / 10,
                    quality: quality,
                    timeOffset: minutes,
                    annunciation: status | warning << 16
                ),
                truth: physiology.glucose.plasma(at: t),
                at: t
            )
        )
    }
}

/// Pulse oximeter: 1 s continuous readings or spot checks, each the average of the last 8 s of
/// raw estimates (Masimo's default averaging; GE TruSignal 5–12 s, docs/clinical.md §3.1), so its error
/// is correlated over seconds and a change in saturation shows a few seconds late. A raw estimate
/// scatters by 2 % (SD) about the truth; a spot check adds the probe's placement error of that
/// reading (SD 1.5 %, an infant's 2.5 %): about 1.7 % and 2.6 % in all, inside ISO 80601-2-61's
/// ±2 % (adult) and ±3 % (neonatal) Arms. With `noise: off` it reports the saturation of the instant.
struct PulseOximeter: DeviceSensor {
    var noiseScale = 1.0
    let physiology: PatientPhysiology
    var rng: SeededRandom
    let continuous: Bool
    var primaryKind: VitalKind { .spo2 }
    var storesRecords: Bool { !continuous }
    static let averaging: Int64 = 8
    /// The raw 1-second estimates of the averaging window: time, true saturation, error.
    var window: [(time: Int64, truth: Double, error: Double)] = []

    init(physiology: PatientPhysiology, rng: SeededRandom, continuous: Bool) {
        self.physiology = physiology
        self.rng = rng
        self.continuous = continuous
    }

    /// The mean of the raw estimates of the 8 s ending at `t` (truth averaged, and error averaged);
    /// each second's truth is read once, when it enters the window.
    mutating func averaged(at t: Int64) -> (truth: Double, error: Double) {
        let first = t - (Self.averaging - 1) * 1000
        window.removeAll { $0.time < first || $0.time > t }
        var next = max(first, (window.last?.time ?? first - 1000) + 1000)
        while next <= t {
            window.append((next, physiology.spo2(at: next), rng.normal(mean: 0, sd: 2)))
            next += 1000
        }
        var truth = 0.0
        var error = 0.0
        for w in window {
            truth += w.truth
            error += w.error
        }
        return (truth / Double(window.count), error / Double(window.count))
    }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        let seen = averaged(at: t)
        let truth = window.last?.truth ?? physiology.spo2(at: t)
        let placement = continuous ? 0 : rng.normal(mean: 0, sd: physiology.patient.profile == .chdInfant ? 2.5 : 1.5)
        // `noise: off` reports the saturation of that instant.
        let value = noiseScale == 0 ? truth : seen.truth + noiseScale * (seen.error + placement)
        let spo2 = Int(Math.clamp(value, 50, 100).rounded())
        let pulse = Int((physiology.ventricularRate(at: t) + rng.normal(mean: 0, sd: 1.5 * noiseScale)).rounded())
        samples.append(
            Sample(
                offset: 0,
                measurement: .spo2(percent: spo2, pulse: pulse, continuous: continuous),
                truth: truth,
                at: t
            )
        )
    }
}

/// Oral thermometer, 0.1 °C resolution.
struct Thermometer: DeviceSensor {
    var noiseScale = 1.0
    let physiology: PatientPhysiology
    var rng: SeededRandom
    var primaryKind: VitalKind { .temperature }
    var storesRecords: Bool { true }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        let truth = physiology.temperature(at: t)
        let c = ((truth + rng.normal(mean: 0, sd: 0.1 * noiseScale)) * 10).rounded() / 10
        samples.append(Sample(offset: 0, measurement: .temperature(celsius: c, type: 6), truth: truth, at: t))
    }
}

/// Scale: 0.005 kg resolution; ±10 g noise for infants (clothing and movement), ±100 g for adults.
struct WeightScale: DeviceSensor {
    var noiseScale = 1.0
    let physiology: PatientPhysiology
    var rng: SeededRandom
    var primaryKind: VitalKind { .weight }
    var storesRecords: Bool { true }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        let truth = physiology.weight(at: t)
        let kg = ((truth + rng.normal(mean: 0, sd: (truth < 20 ? 0.010 : 0.1) * noiseScale)) / 0.005).rounded() * 0.005
        samples.append(Sample(offset: 0, measurement: .weight(kg: (kg * 1000).rounded() / 1000), truth: truth, at: t))
    }
}

/// Phone or watch bridge of the VitalEdge documents: the latest HealthKit heart rate every interval
/// (1–60 min, default 5) and, at each midnight, the day's steps and active calories; either switched
/// off in the app's settings sends nothing of its kind (the VitalEdge SDS §5.1, §5.2).
struct PhoneBridge: DeviceSensor {
    var noiseScale = 1.0
    let physiology: PatientPhysiology
    var rng: SeededRandom
    let cadence: Int64
    let realTimeMonitoring: Bool
    let dailySummaries: Bool
    var nextMidnight: Int64
    /// Whether the last heart-rate reading due was skipped (the patient walked through its interval).
    var skippedLast = false
    var primaryKind: VitalKind { .heartRate }
    var storesRecords: Bool { true }

    init(spec: DeviceSpec, physiology: PatientPhysiology, rng: SeededRandom) {
        self.physiology = physiology
        self.rng = rng
        cadence = spec.cadence.milliseconds
        realTimeMonitoring = spec.realTimeMonitoring
        dailySummaries = spec.dailySummaries
        nextMidnight = physiology.clock.nextMidnight(after: 0)
    }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        while nextMidnight <= t {
            if dailySummaries { samples.append(summary(of: nextMidnight, at: t)) }
            nextMidnight += 86_400_000
        }
        guard realTimeMonitoring else { return }
        // A watch's background reading waits for a still arm (motion spoils the optical signal): one
        // due while the patient walks about is taken when they stop, or skipped when they walk on
        // until the next is due; the next is then taken as it comes, still or not, so the watch is
        // never silent for two whole intervals. A workout (an exercise event) is followed throughout.
        let moment = skippedLast ? t : physiology.stillMoment(from: t, before: t + max(cadence, 1))
        skippedLast = moment == nil
        guard let still = moment else { return }
        // In AF the beats a watch averages over (about ten) are irregular, RR varying by some 20 %:
        // its rate scatters about the ventricular rate by 0.2 / √10 ≈ 7 % rather than ±2 bpm. That
        // scatter is the rhythm the watch reads, not its error, so `noise: off` keeps it.
        let truth = physiology.ventricularRate(at: still)
        let sd = physiology.atrialFibrillation(at: still) == nil ? 2 * noiseScale : 0.07 * truth
        samples.append(
            Sample(
                offset: still - t,
                measurement: .heartRate(
                    bpm: Int((truth + rng.normal(mean: 0, sd: sd)).rounded()),
                    rrIntervals: [],
                    energyExpended: nil,
                    contact: .notSupported
                ),
                truth: truth,
                at: t
            )
        )
    }
}

extension PhoneBridge {
    /// The summary sent at `midnight` (measured at `t`): the steps and active calories of the day
    /// (of the scenario's part of it) that ends then.
    func summary(of midnight: Int64, at t: Int64) -> Sample {
        var steps = 0.0
        var kcal = 0.0
        var day = max(0, midnight - 86_400_000)
        while day < midnight {
            steps += physiology.stepsPerMinute(at: day)
            kcal += physiology.activeCaloriesPerMinute(at: day)
            day += 60_000
        }
        return Sample(
            offset: midnight - t,
            measurement: .dailySummary(steps: Int(steps.rounded()), calories: Int(kcal.rounded())),
            truth: steps,
            at: t
        )
    }
}

/// Caregiver feeding log (CHAMP-style app entries, the Health Hearts SRS's "amount, breast/bottle"): one entry
/// per feed — a bottle feed's volume (mL), or the minutes of a breastfeed, whose volume nobody
/// knows without test weighing. A breastfeed lasts the feed's volume at an assumed 5 mL/min
/// (10–30 min for the usual 50–150 mL), ± 3 min, 5 to 60 min. Feeds are on demand: each comes up
/// to 45 minutes either side of its slot (SD 20 min), and the baby takes more after a longer gap
/// (volume in proportion to the time since the last feed, ± 15 % appetite).
struct FeedingLog: DeviceSensor {
    var noiseScale = 1.0
    let physiology: PatientPhysiology
    var rng: SeededRandom
    var method: FeedingMethod = .bottle
    var primaryKind: VitalKind { .feeding }
    var storesRecords: Bool { true }
    /// When the previous feed was (virtual ms), once there was one.
    var lastFeed: Int64?
    let slot: Int64

    init(physiology: PatientPhysiology, rng: SeededRandom, method: FeedingMethod) {
        self.physiology = physiology
        self.rng = rng
        self.method = method
        slot = 86_400_000 / Int64(max(physiology.baseline.feedsPerDay, 1))
    }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        // At most 45 min, and less than half a slot, so feeds keep their order.
        let limit = min(45, Double(slot) / 120_000 - 1)
        let shift = max(-t, Int64(Math.clamp(rng.normal(mean: 0, sd: 20), -limit, limit) * 60_000))
        let at = t + shift
        let gap = Double(at - (lastFeed ?? (at - slot))) / Double(slot)
        lastFeed = at
        let truth = physiology.feedVolume(at: at) * gap * Math.clamp(1 + 0.15 * rng.normal(), 0.6, 1.4)
        let breast =
            switch method {
            case .bottle: false
            case .breast: true
            case .mixed: rng.uniform() < 0.5
            }
        guard breast else {
            let ml = Int(max(0, truth + rng.normal(mean: 0, sd: 5 * noiseScale)).rounded())
            samples.append(Sample(offset: shift, measurement: .feeding(mL: ml), truth: truth, at: t))
            return
        }
        let minutes = Int(Math.clamp(truth / 5 + rng.normal(mean: 0, sd: 3 * noiseScale), 5, 60).rounded())
        samples.append(Sample(offset: shift, measurement: .breastfeeding(minutes: minutes), truth: truth / 5, at: t))
    }
}
