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
///   type 2 and non-diabetic patients add endogenous secretion γ·(G − h)+.
/// - Counter-regulation C (mg/dL/min): glucagon and adrenaline raise glucose production as glucose
///   falls below 65 mg/dL, with a 15-minute delay; blunted in type 1 diabetes (Cryer 2008). There
///   is no floor: a hypoglycaemia ends where insulin action and counter-regulation balance.
/// - Interstitial glucose IG lags plasma: dIG/dt = (G − IG)/τ with τ = 10 min (5–15 min, clinical.md §2).
///
/// Routine meals vary from day to day in time (SD 20 min, at most 45 min off) and size (SD 15 %), as
/// simglucose's random scenarios do; timeline meals happen exactly as written. The model keeps a ring
/// of the last two days, so memory does not grow with scenario length.
package final class GlucoseModel {
    struct State { var g, x, i, s1, s2, ig, c: Double }
    struct Dose {
        var minute: Int64
        var carbsMg: Double
        var insulinU: Double
    }

    let gb: Double, p1: Double, p2 = 0.025, p3: Double
    let ke = 0.138, tmaxI = 55.0, volumeDL: Double, insulinVolumeML: Double
    let gamma: Double, threshold: Double, counterGain: Double
    package let tau = 10.0
    var doses: [Dose] = []
    var doseIndex = 0
    var state: State
    var gut = GutAbsorption()
    var minute: Int64 = 0
    /// Allocated on first use, so patients without glucose devices cost nothing.
    var ring: [(Double, Double)] = []
    /// Two days of minutes: a device may back-fill readings up to 48 h old.
    let capacity = 2 * 1440
    let ib = 10.0
    let sensitivity: ValueNoise

    init(baseline: Baseline, meals: [MealSpec], events: [ClinicalEvent], clock: DayClock, rng: SeededRandom) {
        gb = baseline.glucose
        volumeDL = 1.87 * baseline.weight
        insulinVolumeML = 120 * baseline.weight
        switch baseline.diabetes {
        case .type1:
            p1 = 0.01
            p3 = 1.8e-5 * baseline.insulinSensitivity
            gamma = 0
            threshold = 0
            counterGain = 0.03
        case .type2:
            p1 = 0.012
            p3 = 0.6e-5 * baseline.insulinSensitivity
            gamma = 0.004
            threshold = baseline.glucose
            counterGain = 0.06
        case .none:
            p1 = 0.03
            p3 = 1.3e-5 * baseline.insulinSensitivity
            gamma = 0.04
            threshold = baseline.glucose
            counterGain = 0.06
        }
        state = State(g: gb, x: 0, i: ib, s1: 0, s2: 0, ig: gb, c: 0)
        // Daily meals over a generous horizon are produced lazily in `dosesUntil`; events are fixed.
        self.meals = meals
        self.clock = clock
        for e in events {
            let m = e.start / 60_000
            switch e.kind {
            case .meal: doses.append(Dose(minute: m, carbsMg: (e.carbs ?? 50) * 1000, insulinU: e.insulin ?? 0))
            case .hypoglycemia:
                // insulin-overdose: the dose alone; skipped-meal: the meal bolus with no meal.
                doses.append(Dose(minute: m, carbsMg: 0, insulinU: e.insulin ?? 8))
            case .hyperglycemia: doses.append(Dose(minute: m, carbsMg: (e.carbs ?? 90) * 1000, insulinU: 0))
            default: break
            }
        }
        doses.sort { $0.minute < $1.minute }
        self.rng = rng
        carbRatio = baseline.diabetes == .type1 ? baseline.carbRatio : nil
        sensitivity = ValueNoise(rng: rng, label: "insulin-sensitivity", spacing: 6 * 3_600_000)
    }

    let meals: [MealSpec]
    /// Grams a unit of insulin covers, for meals without a bolus of their own (type 1 only).
    let carbRatio: Double?
    let clock: DayClock
    let rng: SeededRandom

    /// The minute of day `day` (days since 1970) at which routine meal `index` starts.
    func mealMinute(_ index: Int, day: Int64) -> Int64 {
        let key = UInt64(bitPattern: day) &* 131 &+ UInt64(index) &* 7
        let z = SeededRandom.normal(rng.seed, key)
        let shift = Math.clamp(20 * z, -45, 45)
        return day * 1440 + meals[index].timeOfDay / 60_000 + Int64(shift.rounded())
    }

    /// Carbs (mg) and insulin (U) of the routine meals starting at `m`.
    func routine(at m: Int64) -> (Double, Double) {
        guard !meals.isEmpty else { return (0, 0) }
        let absMinute = clock.startUnixMilliseconds / 60_000 + m
        let today = absMinute >= 0 ? absMinute / 1440 : (absMinute - 1439) / 1440
        var carbs = 0.0
        var insulin = 0.0
        for (index, meal) in meals.enumerated() {
            for day in (today - 1)...(today + 1) where mealMinute(index, day: day) == absMinute {
                let key = UInt64(bitPattern: day) &* 31 &+ UInt64(meal.timeOfDay)
                // Triangular about 1 (SD 15 %, within ±37 %).
                let size = 1 + 0.367 * (SeededRandom.unit(rng.seed, key) + SeededRandom.unit(rng.seed, key &+ 5) - 1)
                carbs += meal.carbs * 1000 * size
                // The bolus is counted for the meal as planned, not as eaten.
                insulin += meal.bolus ?? carbRatio.map { (meal.carbs / $0 * 20).rounded() / 20 } ?? 0
            }
        }
        return (carbs, insulin)
    }

    func advance() {
        if ring.isEmpty { ring = Array(repeating: (gb, gb), count: capacity) }
        var s = state
        var (carbs, insulin) = routine(at: minute)
        while doseIndex < doses.count, doses[doseIndex].minute <= minute {
            carbs += doses[doseIndex].carbsMg
            insulin += doses[doseIndex].insulinU
            doseIndex += 1
        }
        gut.serve(carbs)
        s.s1 += insulin
        let ra = gut.advance()
        let insulinIn = s.s2 / tmaxI * 1e6 / insulinVolumeML
        let secretion = gamma * max(0, s.g - threshold)
        let si = Math.exp(0.2 * sensitivity.value(at: minute * 60_000))
        let dg = -(p1 + s.x) * s.g + p1 * gb + ra / volumeDL + s.c
        let dx = -p2 * s.x + p3 * si * (s.i - ib)
        let di = insulinIn + secretion - ke * (s.i - ib)
        let ds1 = -s.s1 / tmaxI
        let ds2 = (s.s1 - s.s2) / tmaxI
        let dc = (counterGain * max(0, 65 - s.g) - s.c) / 15
        let dig = (s.g - s.ig) / tau
        s.g = max(1, s.g + dg)
        s.x += dx
        s.i = max(0, s.i + di)
        s.s1 += ds1
        s.s2 += ds2
        s.c += dc
        s.ig += dig
        state = s
        minute += 1
        ring[Int(minute % Int64(capacity))] = (s.g, s.ig)
    }

    private func sample(_ m: Int64) -> (Double, Double) {
        if m <= 0 { return (gb, gb) }
        while minute < m { advance() }
        let oldest = max(0, minute - Int64(capacity) + 1)
        return ring[Int(max(m, oldest) % Int64(capacity))]
    }

    private func interpolate(_ t: Int64, _ pick: ((Double, Double)) -> Double) -> Double {
        let m = t >= 0 ? t / 60_000 : 0
        let f = Double(t - m * 60_000) / 60_000
        return pick(sample(m)) * (1 - f) + pick(sample(m + 1)) * f
    }

    /// Plasma glucose (mg/dL) at virtual time `t` (ms), linearly interpolated between minutes.
    package func plasma(at t: Int64) -> Double { interpolate(t) { $0.0 } }

    /// Interstitial glucose (mg/dL), what a CGM sensor sees before its own noise.
    package func interstitial(at t: Int64) -> Double { interpolate(t) { $0.1 } }
}
