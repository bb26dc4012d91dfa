import VitalSimCore

/// Carbohydrate absorption from a meal: the gastro-intestinal model of Dalla Man, Camilleri and
/// Cobelli 2006 (IEEE TBME 53:2472), part of the UVA/Padova simulator (Dalla Man et al. 2007).
///
///     dQsto1/dt = −kmax·Qsto1 + eating
///     dQsto2/dt = −kempt(Qsto)·Qsto2 + kmax·Qsto1
///     dQgut/dt  = −kabs·Qgut + kempt(Qsto)·Qsto2
///     Ra = f·kabs·Qgut                                   (mg/min into plasma)
///     kempt = kmin + (kmax − kmin)/2·(tanh(α(Qsto − b·D)) − tanh(β(Qsto − d·D)) + 2)
///
/// Gastric emptying saturates: it is fastest when the stomach is full or nearly empty and slows
/// to kmin in between, so a large meal is absorbed over hours rather than in one early peak. D is
/// the meal being digested (what was in the stomach when eating started, plus what was eaten).
/// The parameters are the medians of the UVA/Padova S2008 academic adult cohort as distributed
/// with simglucose (adult#001–010): kmax 0.0409, kmin 0.00608, kabs 0.155 (per min), b 0.788,
/// f 0.9; but d is Dalla Man et al. 2007's 0.010 for normal subjects (the cohort's median 0.178
/// speeds emptying up again while a fifth of the meal is still in the stomach, a second peak of
/// absorption 3.5–4 h after every meal that tracer studies do not show). Meals are eaten at
/// 5 g/min, as in simglucose.
struct GutAbsorption {
    static let kmax = 0.04089, kmin = 0.00608, kabs = 0.15514, b = 0.78816, d = 0.010, f = 0.9
    /// Eating rate, mg/min.
    static let eatingRate = 5_000.0

    var solid = 0.0, liquid = 0.0, gut = 0.0
    /// Carbohydrate still to be eaten (mg).
    var plate = 0.0
    /// The meal being digested (mg).
    var meal = 0.0

    /// Serves `carbs` mg; they are eaten at ``eatingRate`` from the next minute on.
    mutating func serve(_ carbs: Double) {
        guard carbs > 0 else { return }
        if plate <= 0 { meal = solid + liquid }
        meal += carbs
        plate += carbs
    }

    /// Advances one minute; returns the rate of appearance of glucose in plasma (mg/min).
    mutating func advance() -> Double {
        let eaten = min(plate, Self.eatingRate)
        plate -= eaten
        let stomach = solid + liquid
        var kempt = Self.kmax
        if meal > 0 {
            let alpha = 5 / (2 * meal * (1 - Self.b))
            let beta = 5 / (2 * meal * Self.d)
            kempt =
                Self.kmin + (Self.kmax - Self.kmin) / 2
                * (Math.tanh(alpha * (stomach - Self.b * meal)) - Math.tanh(beta * (stomach - Self.d * meal)) + 2)
        }
        let ra = Self.f * Self.kabs * gut
        let dSolid = -Self.kmax * solid + eaten
        let dLiquid = Self.kmax * solid - kempt * liquid
        let dGut = kempt * liquid - Self.kabs * gut
        solid = max(0, solid + dSolid)
        liquid = max(0, liquid + dLiquid)
        gut = max(0, gut + dGut)
        return ra
    }
}
