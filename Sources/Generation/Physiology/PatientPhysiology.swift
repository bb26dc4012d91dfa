import VitalSimCore

/// The ground-truth physiology of one patient: closed-form signals readable at any virtual time
/// (ms resolution), plus the sequential models (beats, glucose) built from the same seed.
///
/// Every random choice comes from the patient's own stream, split by signal name, so adding a
/// patient, a device or another signal never changes what this patient's signals are.
package final class PatientPhysiology {
    package let patient: PatientSpec
    /// The patient's own baseline: the scenario's, with the values it leaves out drawn from the
    /// profile's population (``Population``).
    package let baseline: Baseline
    package let clock: DayClock
    package let events: [ClinicalEvent]
    let rng: SeededRandom
    let spo2Noise: ValueNoise
    let bpNoise: ValueNoise
    let bpFastNoise: ValueNoise
    let bpDiastolicNoise: ValueNoise
    let tempNoise: ValueNoise
    let rrNoise: ValueNoise
    let nocturnalDips: NocturnalDips
    /// When this patient sleeps, night by night.
    let sleep: SleepSchedule
    /// This patient's everyday walking.
    let walking: WalkingBouts
    /// The resting heart rate's drift from day to day.
    let restingRateNoise: ValueNoise
    /// An adult's weight from day to day (water, food, bowel).
    let weightNoise: ValueNoise
    /// How active a patient is between walks, from day to day.
    let lightActivityNoise: ValueNoise
    /// Scheduled times of day (ms after midnight) of home blood-pressure measurements, and when each
    /// is taken (``AdherencePlan``), before which the patient sits down: no walking from 5 minutes
    /// before to 3 minutes after (AHA 2017: 5 minutes seated rest; the cuff's second reading comes
    /// a minute after the first).
    let seatedMeasurements: [(timeOfDay: Int64, plan: AdherencePlan)]
    /// Seed of the day-to-day variation of growth (``growth(at:)``).
    let growthSeed: UInt64
    /// The glucose–insulin model (lazily integrated).
    package let glucose: GlucoseModel
    /// Events reduced to plain values, grouped by kind, for the per-beat hot path.
    let shapes: [ClinicalEventKind: [EventShape]]
    let tachycardia: [EventShape], bradycardia: [EventShape], fibrillation: [EventShape], fever: [EventShape],
        desaturation: [EventShape]
    let baseHeartRate: Double, baseTemperature: Double, baseSpO2: Double, dailySteps: Double

    /// The physiology of `patient`; `horizon` (virtual ms), the scenario's length, bounds what the
    /// glucose model keeps of its past (two days without it).
    package init(
        patient: PatientSpec,
        events: [ClinicalEvent],
        rng: SeededRandom,
        clock: DayClock,
        horizon: Int64? = nil
    ) {
        self.patient = patient
        let baseline = Population.individual(patient, rng: rng.split("population"))
        self.baseline = baseline
        self.events = events
        self.rng = rng
        self.clock = clock
        spo2Noise = ValueNoise(rng: rng, label: "spo2", spacing: 300_000)
        bpNoise = ValueNoise(rng: rng, label: "bp", spacing: 1_800_000)
        bpFastNoise = ValueNoise(rng: rng, label: "bp-minutes", spacing: 300_000)
        bpDiastolicNoise = ValueNoise(rng: rng, label: "bp-diastolic", spacing: 300_000)
        tempNoise = ValueNoise(rng: rng, label: "temperature", spacing: 1_800_000)
        rrNoise = ValueNoise(rng: rng, label: "respiration", spacing: 120_000)
        nocturnalDips = NocturnalDips(profile: patient.profile, seed: rng.split("spo2-dips").seed)
        growthSeed = rng.split("growth").seed
        let homeMeasurements = Self.timesOfDay(patient, [.bpCuff, .glucometer, .weightScale, .thermometer])
        sleep = SleepSchedule(
            clock: clock,
            rng: rng.split("sleep"),
            measurements: homeMeasurements.map { Double($0) / 3_600_000 }
        )
        walking = WalkingBouts(dailySteps: baseline.dailySteps, rng: rng.split("walking"))
        restingRateNoise = ValueNoise(rng: rng, label: "resting-rate", spacing: 86_400_000)
        weightNoise = ValueNoise(rng: rng, label: "daily-weight", spacing: 86_400_000)
        lightActivityNoise = ValueNoise(rng: rng, label: "light-activity", spacing: 86_400_000)
        seatedMeasurements = patient.devices.filter { $0.type == .bpCuff }.flatMap { device in
            let plan = AdherencePlan(device, patient: rng, clock: clock)
            return device.schedule.map { (($0 + device.phase.milliseconds) % 86_400_000, plan) }
        }
        let glucoseStream = rng.split("glucose")
        glucose = GlucoseModel(
            baseline: baseline,
            meals: DailyMeals(
                plan: patient.meals,
                profile: patient.profile,
                baseline: baseline,
                sleep: sleep,
                rng: glucoseStream.split("meals")
            ),
            events: events,
            clock: clock,
            sleep: sleep,
            rng: glucoseStream,
            horizon: horizon
        )
        var shapes: [ClinicalEventKind: [EventShape]] = [:]
        for e in events { shapes[e.kind, default: []].append(EventShape(e)) }
        self.shapes = shapes
        tachycardia = shapes[.tachycardia] ?? []
        bradycardia = shapes[.bradycardia] ?? []
        fibrillation = shapes[.atrialFibrillation] ?? []
        fever = shapes[.fever] ?? []
        desaturation = shapes[.desaturation] ?? []
        baseHeartRate = baseline.heartRate
        baseTemperature = baseline.temperature
        baseSpO2 = baseline.spo2
        dailySteps = baseline.dailySteps
    }

    /// The times of day (ms after midnight, sorted) at which the patient's scheduled devices of
    /// `types` measure.
    static func timesOfDay(_ patient: PatientSpec, _ types: Set<DeviceType>) -> [Int64] {
        patient.devices.filter { types.contains($0.type) }
            .flatMap { device in device.schedule.map { ($0 + device.phase.milliseconds) % 86_400_000 } }.sorted()
    }

    /// A stream for a device or model of this patient.
    package func stream(_ label: String) -> SeededRandom { rng.split(label) }

    func strongest(_ kind: ClinicalEventKind, at t: Int64) -> (EventShape, Double)? {
        strongest(shapes[kind] ?? [], at: t)
    }

    @inline(__always)
    func strongest(_ list: [EventShape], at t: Int64) -> (EventShape, Double)? {
        if list.isEmpty { return nil }
        var best: (EventShape, Double)?
        for e in list where t >= e.start && t < e.end {
            let weight = e.envelope(at: t)
            if weight > (best?.1 ?? 0) { best = (e, weight) }
        }
        return best
    }

    // MARK: Activity

    /// How asleep the patient is at `t`: 1 asleep, 0 awake (``SleepSchedule``).
    package func sleepiness(at t: Int64) -> Double { sleep.sleepiness(at: t) }

    /// Walking cadence (steps/min): everyday walking bouts (``WalkingBouts``), plus exercise events.
    package func stepsPerMinute(at t: Int64) -> Double {
        var cadence = everydayCadence(at: t)
        if let (event, weight) = strongest(.exercise, at: t) { cadence = max(cadence, (event.target ?? 110) * weight) }
        return cadence
    }

    /// The cadence (steps/min) of everyday walking at `t`, long bouts and short: no exercise events.
    func everydayCadence(at t: Int64) -> Double {
        guard dailySteps > 0, !seated(at: t) else { return 0 }
        let slot = WalkingBouts.slot
        let slotIndex = Math.floorDivide(t, slot)
        let start = clock.startUnixMilliseconds
        let awake: (Int64) -> Bool = { self.sleep.sleepiness(at: $0) < 0.5 }
        return max(
            walking.cadence(at: t, slot: slotIndex, startUnixMilliseconds: start, awake: awake),
            walking.cadence(at: t, slot: slotIndex - 1, startUnixMilliseconds: start, awake: awake),
            walking.shortCadence(at: t, awake: awake)
        )
    }

    /// The first moment from `t` on, in steps of 15 s and before `limit`, when the patient's arm is
    /// still: not walking about (an exercise event is a workout, which a watch follows throughout).
    /// Nil when they walk until then.
    package func stillMoment(from t: Int64, before limit: Int64) -> Int64? {
        var moment = t
        repeat {
            if everydayCadence(at: moment) == 0 || strongest(.exercise, at: moment) != nil { return moment }
            moment += 15_000
        } while moment < limit
        return nil
    }

    /// Active energy (kcal/min), what a phone counts above resting: walking by the ACSM walking
    /// equation (net oxygen cost 0.1 mL/kg/min per m/min of speed, 5 kcal per litre), the speed
    /// from the cadence and a step of 0.415 × height, longer at a brisker pace; and light activity
    /// while awake, 0.25 kcal/min for 75 kg, ±30 % from day to day (VitalSim's figure: how active
    /// people are between walks varies widely, Levine 2004).
    package func activeCaloriesPerMinute(at t: Int64) -> Double {
        let cadence = stepsPerMinute(at: t)
        let step = 0.415 * baseline.height / 100 * (cadence / 100).squareRoot()
        let walking = 0.1 * cadence * step * baseline.weight / 1000 * 5
        let awake = 1 - sleep.sleepiness(at: t)
        let light = awake * 0.25 * baseline.weight / 75 * (1 + 0.3 * lightActivityNoise.value(at: t))
        return walking + max(0, light)
    }

    /// True from 5 minutes before to 3 minutes after a home blood-pressure measurement.
    func seated(at t: Int64) -> Bool {
        if seatedMeasurements.isEmpty { return false }
        let ms = clock.startUnixMilliseconds + t
        let timeOfDay = (ms % 86_400_000 + 86_400_000) % 86_400_000
        for (m, plan) in seatedMeasurements {
            // The distance from the scheduled time, wrapped over midnight, in (−12 h, 12 h].
            var d = (timeOfDay - m) % 86_400_000
            if d > 43_200_000 { d -= 86_400_000 } else if d <= -43_200_000 { d += 86_400_000 }
            guard d >= -plan.adherence.spread - 300_000, d <= plan.adherence.latest + 180_000 else { continue }
            // When that measurement is taken (adherence moves it, or drops it).
            guard let taken = plan.actual(t - d) else { continue }
            if t - taken >= -300_000, t - taken <= 180_000 { return true }
        }
        return false
    }

    // MARK: Heart

    /// Mean (noise-free) heart rate in bpm: baseline, circadian dip, activity and rate events.
    package func meanHeartRate(at t: Int64) -> Double {
        let sleep = self.sleep.sleepiness(at: t)
        let hour = clock.hour(at: t)
        var hr =
            baseHeartRate * (1 - 0.12 * sleep) + 2 * Math.sin(2 * Double.pi * (hour - 10) / 24) + 2.5
            * restingRateNoise.value(at: t)
        hr += 0.22 * stepsPerMinute(at: t)
        if let (event, weight) = strongest(fever, at: t) {
            hr += 10 * weight * max(0, (event.target ?? 38.9) - baseTemperature)
        }
        if let (event, weight) = strongest(desaturation, at: t) {
            hr += 0.8 * weight * max(0, baseSpO2 - (event.target ?? 84))
        }
        if let (event, weight) = strongest(tachycardia, at: t) { hr += weight * ((event.target ?? 140) - hr) }
        if let (event, weight) = strongest(bradycardia, at: t) { hr += weight * ((event.target ?? 42) - hr) }
        return max(hr, 20)
    }

    /// The rate the heart actually beats at (bpm): the mean ventricular rate of an AF event in
    /// progress, otherwise ``meanHeartRate(at:)``.
    package func ventricularRate(at t: Int64) -> Double {
        guard let af = atrialFibrillation(at: t) else { return meanHeartRate(at: t) }
        return af.target ?? 110
    }

    /// The AF event active at `t` (mean ventricular rate in its target), if any.
    package func atrialFibrillation(at t: Int64) -> EventShape? {
        if fibrillation.isEmpty { return nil }
        return fibrillation.first { t >= $0.start && t < $0.end }
    }

    /// A sequential beat generator (RR intervals) starting at virtual time `start`.
    package func beats(from start: Int64 = 0, label: String = "beats") -> HeartBeatGenerator {
        HeartBeatGenerator(physiology: self, rng: rng.split(label), start: start)
    }

    // MARK: Other signals

    /// True systolic and diastolic pressure (mmHg): nocturnal dip, variation over hours and over
    /// minutes (systolic SD about 9 mmHg at rest, diastolic 6, correlated 0.7), the pressor effect of
    /// walking (about +15 mmHg systolic at 100 steps/min), crisis events.
    package func bloodPressure(at t: Int64) -> (systolic: Double, diastolic: Double) {
        let dip = baseline.nocturnalDip / 100 * sleep.sleepiness(at: t)
        let noise = bpNoise.value(at: t)
        let fast = bpFastNoise.value(at: t)
        let own = bpDiastolicNoise.value(at: t)
        let steps = stepsPerMinute(at: t)
        var s = baseline.systolic * (1 - dip) + 7 * noise + 5 * fast + 0.15 * steps
        var d = baseline.diastolic * (1 - dip) + 4.5 * noise + 3.5 * (0.6 * fast + 0.8 * own) + 0.05 * steps
        if let (event, weight) = strongest(.hypertensiveCrisis, at: t) {
            s += weight * ((event.target ?? 192) - s)
            d += weight * ((event.target2 ?? 124) - d)
        }
        return (s, d)
    }

    /// True SpO2 (%): baseline with slow wander, lower in sleep with brief dips (``NocturnalDips``),
    /// and desaturation events.
    package func spo2(at t: Int64) -> Double {
        let sd = patient.profile == .chdInfant ? 2.0 : 0.8
        let sleep = self.sleep.sleepiness(at: t)
        var s = baseline.spo2 + sd * spo2Noise.value(at: t) - sleep * nocturnalDips.fall
        if sleep > 0.5 { s -= nocturnalDips.depth(at: t) }
        if let (event, weight) = strongest(.desaturation, at: t) { s += weight * ((event.target ?? 84) - s) }
        return Math.clamp(s, 50, 100)
    }

    /// Core temperature (°C): circadian 0.5 °C peak-to-trough (nadir 06:00, peak 17:00), fever events.
    package func temperature(at t: Int64) -> Double {
        let hour = clock.hour(at: t)
        // Warped phase: nadir at 06:00, zenith at 17:00 (rising 11 h, falling 13 h).
        let sinceNadir = (hour - 6 + 24).truncatingRemainder(dividingBy: 24)
        let phase = sinceNadir < 11 ? Double.pi * sinceNadir / 11 : Double.pi * (1 + (sinceNadir - 11) / 13)
        var c = baseline.temperature - 0.25 * Math.cos(phase) + 0.03 * tempNoise.value(at: t)
        if let (event, weight) = strongest(.fever, at: t) {
            c += weight * ((event.target ?? 38.9) - baseline.temperature)
        }
        return c
    }

    /// Respiration rate (breaths/min).
    package func respirationRate(at t: Int64) -> Double {
        var r =
            baseline.respirationRate * (1 - 0.1 * sleep.sleepiness(at: t)) + 0.8 * rrNoise.value(at: t) + 0.05
            * stepsPerMinute(at: t)
        if let (_, weight) = strongest(.desaturation, at: t) { r += 5 * weight }
        if let (event, weight) = strongest(.fever, at: t) {
            r += 2 * weight * max(0, (event.target ?? 38.9) - baseline.temperature)
        }
        return max(r, 4)
    }

    /// Grams of growth (or steady change) from virtual time 0 to `t`: the daily change varies from
    /// day to day (a new rate each day, 60–140 % of the baseline's), so growth is not a straight line.
    func growth(at t: Int64) -> Double {
        let rate = baseline.dailyWeightChange
        let day: Int64 = 86_400_000
        guard rate != 0, t > 0 else { return rate * Double(t) / Double(day) }
        let whole = t / day
        var grams = 0.0
        for k in 0...whole {
            let share = k < whole ? 1 : Double(t - whole * day) / Double(day)
            grams += rate * (0.6 + 0.8 * SeededRandom.unit(growthSeed, UInt64(k))) * share
        }
        return grams
    }

    /// Body weight (kg): daily trend (infant growth), an adult's day-to-day swing (water, food: the
    /// change between two mornings' weighings about 0.4 kg SD, within the 0.3–0.5 kg of daily home
    /// weighing), weight-loss and fluid-gain events.
    package func weight(at t: Int64) -> Double {
        let day = 86_400_000.0
        var grams = growth(at: t)
        if patient.profile != .chdInfant { grams += 400 * weightNoise.value(at: t) }
        for e in events where t > e.start {
            let covered = Double(min(t, e.end) - e.start) / day
            switch e.kind {
            case .weightLoss: grams -= (baseline.dailyWeightChange + (e.target ?? 40)) * covered
            case .fluidGain: grams += (e.target ?? 2.5) * 1000 * covered * day / Double(e.duration)
            default: break
            }
        }
        return baseline.weight + grams / 1000
    }

    /// Feed volume (mL) for a feed at `t`: daily intake per kg spread over the day's feeds.
    package func feedVolume(at t: Int64) -> Double {
        var perKg = baseline.intakePerKg
        if let (event, w) = strongest(.feedingReduction, at: t) { perKg += w * ((event.target ?? 80) - perKg) }
        return perKg * weight(at: t) / Double(max(baseline.feedsPerDay, 1))
    }
}

/// The numbers of a clinical event, without its strings (cheap to copy on the per-beat path).
package struct EventShape: Sendable {
    package let start: Int64, end: Int64, onset: Int64, offset: Int64, duration: Int64
    package let target: Double?, target2: Double?

    init(_ clinicalEvent: ClinicalEvent) {
        start = clinicalEvent.start
        end = clinicalEvent.end
        onset = clinicalEvent.onset
        offset = clinicalEvent.offset
        duration = clinicalEvent.duration
        target = clinicalEvent.target
        target2 = clinicalEvent.target2
    }

    /// Weight 0...1 at `t`: ramps up over `onset`, holds, ramps down over `offset`.
    @inline(__always)
    package func envelope(at t: Int64) -> Double {
        if t < start || t >= end { return 0 }
        let up = onset > 0 ? Math.smoothstep(Double(t - start) / Double(onset)) : 1
        let down = offset > 0 ? Math.smoothstep(Double(end - t) / Double(offset)) : 1
        return Swift.min(up, down)
    }
}
