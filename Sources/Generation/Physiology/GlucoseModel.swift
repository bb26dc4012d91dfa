import VitalSimCore

/// Plasma and interstitial glucose from the Bergman minimal model, with the saturating gut of
/// Dalla Man et al. (``GutAbsorption``), subcutaneous insulin and counter-regulation, integrated
/// at 1-minute steps on demand.
///
/// - Plasma glucose G (mg/dL): dG/dt = −(p1 + X)·G + p1·Gb + Ra/V + C
/// - Remote insulin action X: dX/dt = −p2·X + p3·s(t)·(I − Ib), where s(t) is the patient's insulin
///   sensitivity, varying slowly from day to day (about ±20 %, Visentin et al. 2018's intraday
///   variability in the UVA/Padova S2017 simulator).
/// - Plasma insulin I (µU/mL): bolus through two subcutaneous compartments (tmax 55 min), clearance ke;
///   type 2 and non-diabetic patients add endogenous secretion γ·(G − h)+, and non-diabetic ones a
///   first phase proportional to glucose's rise (lost in type 2 diabetes; Dalla Man et al. 2007's
///   K·dG/dt).
/// - Counter-regulation C (mg/dL/min): glucagon and adrenaline raise glucose production as glucose
///   falls below 65 mg/dL, with a 15-minute delay; blunted in type 1 diabetes (Cryer 2008). There
///   is no floor: a hypoglycaemia ends where insulin action and counter-regulation balance.
/// - Interstitial glucose IG lags plasma: dIG/dt = (G − IG)/τ with τ = 10 min (5–15 min, docs/clinical.md §2).
///
/// Daily meals come from ``DailyMeals``; timeline meals happen exactly as written. On usual days a
/// diabetic patient also manages their glucose: a low is treated with 15 g of fast carbohydrate
/// while awake (at most every 15 min), a main meal's bolus corrects a high glucose, and the level
/// glucose returns to between meals (basal insulin against production, dawn, stress, illness)
/// wanders from day to day (log SD 0.5 in type 1, 0.2 in type 2; 8-hour knots), which with the
/// meals' dosing errors gives type 1 its published variability (CV 33–40 %). Without diabetes the
/// level secretion holds glucose to wanders too (log SD 0.1, within ±2 SD), which with the meals
/// gives the published CV of healthy adults' CGM (17 ± 3 %). Within 8 hours of a
/// scenario's glucose event the patient does nothing of their own, the level does not wander, and
/// the event's meal (or the one it skipped) replaces a usual meal from 2 hours before it to 4
/// after: the scenario tells that story. The model keeps a ring of the last two days, so memory does not grow with scenario length.
package final class GlucoseModel {
    struct State { var g, x, i, s1, s2, ig, c: Double }
    struct Dose {
        var minute: Int64
        var carbsMg: Double
        var insulinU: Double
        /// A meal bolus to which the patient adds a correction for a high glucose.
        var corrects = false
    }

    let gb: Double, p1: Double, p2 = 0.025, p3: Double
    let ke = 0.138, tmaxI = 55.0, volumeDL: Double, insulinVolumeML: Double
    let gamma: Double, firstPhase: Double, threshold: Double, counterGain: Double
    package let tau = 10.0
    /// Timeline doses (meal, hypoglycaemia and hyperglycaemia events), in time order.
    var doses: [Dose] = []
    var doseIndex = 0
    /// Daily meals planned so far (model minutes), in time order, from `routineIndex` on pending.
    var routine: [Dose] = []
    var routineIndex = 0
    /// The last day (days since 1970) whose meals are in `routine`.
    var plannedThroughDay: Int64
    var state: State
    var gut = GutAbsorption()
    var minute: Int64 = 0
    /// Plasma glucose's rise over the last minute (first-phase secretion).
    var rise = 0.0
    /// Allocated on first use, so patients without glucose devices cost nothing.
    var ring: [(Double, Double)] = []
    /// Two days of minutes (a device may back-fill readings up to 48 h old), or the scenario's
    /// minutes and an hour when it is shorter: no reading is older than the scenario, and a ward of
    /// short scenarios keeps 30 minutes, not two days, for each of its patients.
    let capacity: Int
    let ib = 10.0
    let sensitivity: ValueNoise
    let basalDrift: ValueNoise
    let basalDriftSD: Double
    let meals: DailyMeals
    let sleep: SleepSchedule
    let startMinute: Int64
    /// Whether the patient treats lows and corrects highs (a diabetic patient on usual days).
    let selfManaged: Bool
    /// Whether the days are the patient's usual ones (no `meals:` list): the level drifts.
    let usualDays: Bool
    /// Whether the drifting level is also what secretion holds glucose to (without diabetes: the
    /// set point itself moves, so secretion does not undo the drift).
    let drivesSecretion: Bool
    /// The patient's own correction factor (mg/dL a unit lowers glucose by, as they dose it).
    let correctionFactor: Double
    /// Model minutes within which the patient leaves their glucose to the scenario's events.
    let eventWindows: [(Int64, Int64)]
    /// The earliest minute of the next treatment of a low.
    var nextTreatment: Int64 = 0
    /// The start minutes (model) of the latest meals, for a meter's meal context.
    var recentMeals: [Int64] = []

    init(
        baseline: Baseline,
        meals: DailyMeals,
        events: [ClinicalEvent],
        clock: DayClock,
        sleep: SleepSchedule,
        rng: SeededRandom,
        horizon: Int64? = nil
    ) {
        capacity = horizon.map { min(2 * 1440, Int(max(0, $0) / 60_000) + 60) } ?? 2 * 1440
        gb = baseline.glucose
        volumeDL = 1.87 * baseline.weight
        insulinVolumeML = 120 * baseline.weight
        switch baseline.diabetes {
        case .type1:
            (p1, p3, gamma, firstPhase, threshold, counterGain) = (
                0.01, 1.8e-5 * baseline.insulinSensitivity, 0, 0, 0, 0.03
            )
            basalDriftSD = 0.5
        case .type2:
            (p1, p3, gamma, firstPhase, threshold) = (
                0.012, 0.6e-5 * baseline.insulinSensitivity, 0.03, 0, baseline.glucose
            )
            counterGain = 0.06
            basalDriftSD = 0.2
        case .none:
            (p1, p3, gamma, firstPhase, threshold) = (
                0.03, 1.3e-5 * baseline.insulinSensitivity, 0.25, 4, baseline.glucose
            )
            counterGain = 0.06
            basalDriftSD = 0.1
        }
        state = State(g: gb, x: 0, i: ib, s1: 0, s2: 0, ig: gb, c: 0)
        self.meals = meals
        self.sleep = sleep
        startMinute = Math.floorDivide(clock.startUnixMilliseconds, 60_000)
        plannedThroughDay = Math.floorDivide(startMinute, 1440) - 2
        selfManaged = meals.selfManaged && baseline.diabetes != .none
        usualDays = meals.selfManaged
        drivesSecretion = baseline.diabetes == .none
        correctionFactor = 40 * baseline.insulinSensitivity
        var windows: [(Int64, Int64)] = []
        for e in events {
            let minute = e.start / 60_000
            switch e.kind {
            case .meal: doses.append(Dose(minute: minute, carbsMg: (e.carbs ?? 50) * 1000, insulinU: e.insulin ?? 0))
            case .hypoglycemia:
                // insulin-overdose: the dose alone; skipped-meal: the meal bolus with no meal.
                doses.append(Dose(minute: minute, carbsMg: 0, insulinU: e.insulin ?? 8))
                windows.append((minute, minute + max(e.duration / 60_000, 8 * 60)))
            case .hyperglycemia:
                doses.append(Dose(minute: minute, carbsMg: (e.carbs ?? 90) * 1000, insulinU: 0))
                windows.append((minute, minute + max(e.duration / 60_000, 8 * 60)))
            default: break
            }
        }
        eventWindows = windows
        doses.sort { $0.minute < $1.minute }
        sensitivity = ValueNoise(rng: rng, label: "insulin-sensitivity", spacing: 6 * 3_600_000)
        basalDrift = ValueNoise(rng: rng, label: "basal-drift", spacing: 8 * 3_600_000)
    }

    /// Plans the daily meals through the day after the one `minute` falls on.
    func planMeals() {
        let today = Math.floorDivide(startMinute + minute, 1440)
        guard plannedThroughDay <= today else { return }
        routine.removeFirst(routineIndex)
        routineIndex = 0
        while plannedThroughDay <= today {
            plannedThroughDay += 1
            for meal in meals.meals(onDay: plannedThroughDay) {
                let at = meal.minute - startMinute
                // The event's meal, or the one it skipped, replaces a usual meal near it.
                if meals.selfManaged, eventWindows.contains(where: { at >= $0.0 - 120 && at < $0.0 + 240 }) { continue }
                if at >= minute { routine.append(Dose(minute: at, carbsMg: meal.carbsMg, insulinU: 0)) }
                let bolusAt = meal.bolusMinute - startMinute
                if bolusAt >= minute, meal.bolus > 0 {
                    routine.append(Dose(minute: bolusAt, carbsMg: 0, insulinU: meal.bolus, corrects: meal.corrects))
                }
            }
        }
        routine.sort { $0.minute < $1.minute }
    }

    /// Whether the patient looks after their own glucose at model minute `m`.
    func managing(at m: Int64) -> Bool {
        selfManaged && drifting(at: m)
    }

    /// True on a usual day outside a scenario's glucose event: the level drifts.
    func drifting(at m: Int64) -> Bool {
        usualDays && !eventWindows.contains { m >= $0.0 && m < $0.1 }
    }

    /// The drift of the level (SDs) at minute `m`: within ±2 without diabetes.
    func drift(at m: Int64) -> Double {
        let value = basalDrift.value(at: m * 60_000)
        return drivesSecretion ? Math.clamp(value, -2, 2) : value
    }

    /// Carbohydrate (mg) and insulin (U) taken at the current minute: timeline doses, the day's
    /// meals, and what the patient does of their own accord.
    func intake(glucose g: Double) -> (Double, Double) {
        var carbs = 0.0
        var insulin = 0.0
        var correction = false
        planMeals()
        while routineIndex < routine.count, routine[routineIndex].minute <= minute {
            carbs += routine[routineIndex].carbsMg
            insulin += routine[routineIndex].insulinU
            correction = correction || routine[routineIndex].corrects
            routineIndex += 1
        }
        while doseIndex < doses.count, doses[doseIndex].minute <= minute {
            carbs += doses[doseIndex].carbsMg
            insulin += doses[doseIndex].insulinU
            doseIndex += 1
        }
        if carbs > 0 {
            if recentMeals.count == 8 { recentMeals.removeFirst() }
            recentMeals.append(minute)
        }
        guard managing(at: minute) else { return (carbs, insulin) }
        if correction, g > 150 { insulin += ((g - 120) / correctionFactor * 20).rounded() / 20 }
        // Only a patient who is awake notices a low (asleep, counter-regulation alone).
        if g < 70, minute >= nextTreatment, sleep.sleepiness(at: minute * 60_000) < 0.5 {
            carbs += 15_000
            nextTreatment = minute + 15
        }
        return (carbs, insulin)
    }

    func advance() {
        if ring.isEmpty { ring = Array(repeating: (gb, gb), count: capacity) }
        var current = state
        let (carbs, insulin) = intake(glucose: current.g)
        gut.serve(carbs)
        current.s1 += insulin
        let ra = gut.advance()
        let insulinIn = current.s2 / tmaxI * 1e6 / insulinVolumeML
        let si = Math.exp(0.2 * sensitivity.value(at: minute * 60_000))
        // The day's drift pauses while a scenario's glucose event plays out (its story is written
        // against the patient's usual level). Without diabetes it stays within 2 SD (±22 %).
        let basal = basalDriftSD > 0 && drifting(at: minute) ? gb * Math.exp(basalDriftSD * drift(at: minute)) : gb
        let setPoint = drivesSecretion ? threshold * basal / gb : threshold
        let secretion = gamma * max(0, current.g - setPoint) + firstPhase * max(0, rise)
        let dg = -(p1 + current.x) * current.g + p1 * basal + ra / volumeDL + current.c
        let dx = -p2 * current.x + p3 * si * (current.i - ib)
        let di = insulinIn + secretion - ke * (current.i - ib)
        let ds1 = -current.s1 / tmaxI
        let ds2 = (current.s1 - current.s2) / tmaxI
        let dc = (counterGain * max(0, 65 - current.g) - current.c) / 15
        let dig = (current.g - current.ig) / tau
        let before = current.g
        current.g = max(1, current.g + dg)
        rise = current.g - before
        current.x += dx
        current.i = max(0, current.i + di)
        current.s1 += ds1
        current.s2 += ds2
        current.c += dc
        current.ig += dig
        state = current
        minute += 1
        ring[Int(minute % Int64(capacity))] = (current.g, current.ig)
    }

    /// Minutes since the latest meal started at or before virtual time `t` (ms); nil when none is
    /// remembered (the model keeps the last eight).
    package func minutesSinceMeal(at t: Int64) -> Int64? {
        let minute = t / 60_000
        _ = plasma(at: t)
        return recentMeals.last { $0 <= minute }.map { minute - $0 }
    }

    private func sample(_ m: Int64) -> (Double, Double) {
        if m <= 0 { return (gb, gb) }
        while minute < m { advance() }
        let oldest = max(0, minute - Int64(capacity) + 1)
        return ring[Int(max(m, oldest) % Int64(capacity))]
    }

    private func interpolate(_ t: Int64, _ pick: ((Double, Double)) -> Double) -> Double {
        let minute = t >= 0 ? t / 60_000 : 0
        let fraction = Double(t - minute * 60_000) / 60_000
        return pick(sample(minute)) * (1 - fraction) + pick(sample(minute + 1)) * fraction
    }

    /// Plasma glucose (mg/dL) at virtual time `t` (ms), linearly interpolated between minutes.
    package func plasma(at t: Int64) -> Double { interpolate(t) { $0.0 } }

    /// Interstitial glucose (mg/dL), what a CGM sensor sees before its own noise.
    package func interstitial(at t: Int64) -> Double { interpolate(t) { $0.1 } }
}
