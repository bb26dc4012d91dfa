import VitalSimCore

/// One meal as the patient eats it: when eating starts and the carbohydrate (minutes since
/// 1970-01-01, mg), the insulin bolus taken for it and when (U; type 1 diabetes), and whether the
/// patient adds a correction for a high glucose to that bolus.
struct EatenMeal: Equatable {
    var minute: Int64
    var carbsMg: Double
    var bolus: Double
    var bolusMinute: Int64
    var corrects: Bool
}

/// The meals one patient eats, day by day (docs/physiology.md, "Meals").
///
/// - Usual meals (``MealPlan/usual``): simglucose's random scenario (breakfast, lunch and dinner
///   each eaten with probability 0.95, about N(45, 10), N(70, 10) and N(80, 10) g; three snacks
///   each with probability 0.3, N(10, 5) g), but breakfast follows the day's waking (``SleepSchedule``:
///   about 30 min after, so it is later at weekends), lunch is 12:30 ± 40 min (30 min later at
///   weekends), dinner 18:45 ± 45 min and never in the last hour before bed. In type 1 diabetes
///   the patient doses as people do: the carbohydrate is estimated with a log-SD 0.35 error, a
///   tenth low at the median (adults misjudge a usual meal by about 20 g, more often under than
///   over; Brazeau et al. 2013), a meal bolus is forgotten one time in twelve,
///   a quarter are taken 15–45 min late, snacks under 20 g go without one, and a high glucose at a
///   main meal is corrected.
/// - Listed meals (``MealPlan/listed(_:)``): each at its time ± 20 min (at most 45 min off) and its
///   size ± 15 % (triangular, at most 37 %), bolus as written or by the carbohydrate ratio for the
///   meal as planned, taken on time.
final class DailyMeals {
    let plan: MealPlan
    let typeOne: Bool
    /// Grams a unit of insulin covers (type 1 diabetes), for meals without a bolus of their own.
    let carbRatio: Double
    let sleep: SleepSchedule
    let seed: UInt64

    init(plan: MealPlan, profile: Profile, baseline: Baseline, sleep: SleepSchedule, rng: SeededRandom) {
        // Infants feed (FeedingModel); their glucose is not modelled from feeds.
        self.plan = profile == .chdInfant && plan == .usual ? .listed([]) : plan
        typeOne = baseline.diabetes == .type1
        carbRatio = baseline.carbRatio
        self.sleep = sleep
        seed = rng.seed
    }

    /// Whether the patient manages their own glucose (usual days): treats lows, corrects highs.
    var selfManaged: Bool { plan == .usual }

    /// The meals planned for day `day` (days since 1970), in time order; a listed meal near
    /// midnight may start on the day before or after.
    func meals(onDay day: Int64) -> [EatenMeal] {
        switch plan {
        case .usual: usualDay(day)
        case let .listed(list): list.indices.map { listedMeal(list, $0, day: day) }.sorted { $0.minute < $1.minute }
        }
    }

    private func listedMeal(_ list: [MealSpec], _ index: Int, day: Int64) -> EatenMeal {
        let meal = list[index]
        let shift = Math.clamp(
            20 * SeededRandom.normal(seed, UInt64(bitPattern: day) &* 131 &+ UInt64(index) &* 7),
            -45,
            45
        )
        let minute = day * 1440 + meal.timeOfDay / 60_000 + Int64(shift.rounded())
        let key = UInt64(bitPattern: day) &* 31 &+ UInt64(meal.timeOfDay)
        // Triangular about 1 (SD 15 %, within ±37 %).
        let size = 1 + 0.367 * (SeededRandom.unit(seed, key) + SeededRandom.unit(seed, key &+ 5) - 1)
        // The bolus is counted for the meal as planned, not as eaten.
        let bolus = meal.bolus ?? (typeOne ? (meal.carbs / carbRatio * 20).rounded() / 20 : 0)
        return EatenMeal(
            minute: minute,
            carbsMg: meal.carbs * 1000 * size,
            bolus: bolus,
            bolusMinute: minute,
            corrects: false
        )
    }

    /// A usual day: (hour of day, SD min, largest shift min, mean g, SD g, probability, main meal).
    private func usualDay(_ day: Int64) -> [EatenMeal] {
        var random = SeededRandom(seed: SeededRandom.hash(seed, UInt64(bitPattern: day)))
        let weekday = DayClock.weekday(ofDay: day)
        let weekend = weekday == 0 || weekday == 6
        // Fully awake half an hour after the night's waking (SleepSchedule's transitions).
        let awake = sleep.night(day - 1).awake - 24 + 0.5
        let bedtime = sleep.night(day).asleep
        var meals: [EatenMeal] = []
        func eat(at hour: Double, sd: Double, mean: Double, spread: Double, probability: Double, main: Bool) {
            let time = hour + Math.clamp(sd * random.normal(), -2 * sd, 2 * sd) / 60
            let grams = max(main ? 10 : 5, random.normal(mean: mean, sd: spread))
            let eaten = random.uniform() < probability
            guard eaten, time < bedtime - (main ? 1 : 0.25), time > awake else { return }
            let minute = day * 1440 + Int64((time * 60).rounded())
            meals.append(
                bolused(
                    EatenMeal(minute: minute, carbsMg: grams * 1000, bolus: 0, bolusMinute: minute, corrects: main),
                    &random
                )
            )
        }
        eat(at: awake + 0.5, sd: 15, mean: 45, spread: 10, probability: 0.95, main: true)
        eat(at: 10, sd: 45, mean: 10, spread: 5, probability: 0.3, main: false)
        eat(at: weekend ? 13 : 12.5, sd: 40, mean: 70, spread: 10, probability: 0.95, main: true)
        eat(at: 15.5, sd: 45, mean: 10, spread: 5, probability: 0.3, main: false)
        eat(at: 18.75, sd: 45, mean: 80, spread: 10, probability: 0.95, main: true)
        eat(at: 21, sd: 45, mean: 10, spread: 5, probability: 0.3, main: false)
        return meals.sorted { $0.minute < $1.minute }
    }

    /// The meal with the bolus a person with type 1 diabetes takes for it.
    private func bolused(_ meal: EatenMeal, _ r: inout SeededRandom) -> EatenMeal {
        var meal = meal
        // Misjudged, more often under than over: a tenth low at the median.
        let estimate = meal.carbsMg / 1000 * Math.exp(0.35 * Math.clamp(r.normal(), -2.5, 2.5) - 0.1)
        let forgotten = r.uniform() < 1.0 / 12
        let (lateness, delay) = (r.uniform(), r.uniform())
        let late = lateness < 0.25 ? Int64(15 + 30 * delay) : 0
        guard typeOne, !forgotten, meal.carbsMg >= 20_000 else {
            meal.corrects = false
            return meal
        }
        meal.bolus = (estimate / carbRatio * 20).rounded() / 20
        meal.bolusMinute = meal.minute + late
        return meal
    }
}
