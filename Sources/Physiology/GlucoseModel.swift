import VitalSimCore

/// Plasma and interstitial glucose from the Bergman minimal model with Hovorka-style gut
/// absorption and subcutaneous insulin, integrated at 1-minute steps on demand.
///
/// - Plasma glucose G (mg/dL): dG/dt = −(p1 + X)·G + p1·Gb + Ra/V
/// - Remote insulin action X: dX/dt = −p2·X + p3·(I − Ib)
/// - Plasma insulin I (µU/mL): bolus through two subcutaneous compartments (tmax 55 min), clearance ke;
///   type 2 and non-diabetic patients add endogenous secretion γ·(G − h)+.
/// - Gut: two compartments (tmax 40 min), bioavailability 0.8.
/// - Interstitial glucose IG lags plasma: dIG/dt = (G − IG)/τ with τ = 10 min (5–15 min, clinical.md §2).
///
/// The model keeps a ring of the last two days, so memory does not grow with scenario length.
package final class GlucoseModel {
    struct State { var g, x, i, s1, s2, q1, q2, ig: Double }
    struct Dose {
        var minute: Int64
        var carbsMg: Double
        var insulinU: Double
    }

    let gb: Double, p1: Double, p2 = 0.025, p3: Double
    let ke = 0.138, tmaxI = 55.0, tmaxG = 40.0, volumeDL: Double, insulinVolumeML: Double
    let gamma: Double, threshold: Double
    package let tau = 10.0
    var doses: [Dose] = []
    var doseIndex = 0
    var state: State
    var minute: Int64 = 0
    /// Allocated on first use, so patients without glucose devices cost nothing.
    var ring: [(Double, Double)] = []
    /// Two days of minutes: a device may back-fill readings up to 48 h old.
    let capacity = 2 * 1440
    let ib = 10.0

    init(baseline: Baseline, meals: [MealSpec], events: [ClinicalEvent], clock: DayClock, rng: SeededRandom) {
        gb = baseline.glucose
        volumeDL = 1.6 * baseline.weight
        insulinVolumeML = 120 * baseline.weight
        switch baseline.diabetes {
        case .type1:
            p1 = 0.01
            p3 = 1.3e-5
            gamma = 0
            threshold = 0
        case .type2:
            p1 = 0.012
            p3 = 0.6e-5
            gamma = 0.004
            threshold = baseline.glucose
        case .none:
            p1 = 0.03
            p3 = 1.3e-5
            gamma = 0.02
            threshold = baseline.glucose
        }
        state = State(g: gb, x: 0, i: ib, s1: 0, s2: 0, q1: 0, q2: 0, ig: gb)
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
    }

    let meals: [MealSpec]
    let clock: DayClock
    let rng: SeededRandom

    /// Carbs and insulin entering at `m` from routine meals (small day-to-day jitter in size).
    func routine(at m: Int64) -> (Double, Double) {
        guard !meals.isEmpty else { return (0, 0) }
        let absMinute = (clock.startUnixMilliseconds / 60_000 + m)
        let tod = ((absMinute % 1440) + 1440) % 1440
        var carbs = 0.0
        var insulin = 0.0
        for meal in meals where meal.timeOfDay / 60_000 == tod {
            let day = UInt64(bitPattern: absMinute / 1440)
            let jitter = 1 + 0.15 * (SeededRandom.unit(rng.seed, day &* 31 &+ UInt64(meal.timeOfDay)) - 0.5)
            carbs += meal.carbs * 1000 * jitter
            insulin += meal.bolus ?? 0
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
        s.q1 += carbs
        s.s1 += insulin
        let ra = 0.8 * s.q2 / tmaxG
        let insulinIn = s.s2 / tmaxI * 1e6 / insulinVolumeML
        let secretion = gamma * max(0, s.g - threshold)
        let dg = -(p1 + s.x) * s.g + p1 * gb + ra / volumeDL
        let dx = -p2 * s.x + p3 * (s.i - ib)
        let di = insulinIn + secretion - ke * (s.i - ib)
        let ds1 = -s.s1 / tmaxI
        let ds2 = (s.s1 - s.s2) / tmaxI
        let dq1 = -s.q1 / tmaxG
        let dq2 = (s.q1 - s.q2) / tmaxG
        let dig = (s.g - s.ig) / tau
        s.g = Math.clamp(s.g + dg, 20, 700)
        s.x += dx
        s.i = max(0, s.i + di)
        s.s1 += ds1
        s.s2 += ds2
        s.q1 += dq1
        s.q2 += dq2
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
