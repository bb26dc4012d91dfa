import Yams

/// Reads a `baseline:` mapping over a profile's defaults.
struct BaselineBuilder {
    let reader: YAMLReader

    /// The baseline, and the keys the mapping gave (which a population draw leaves alone).
    func build(_ node: Node, _ field: String, defaults: Baseline) -> (Baseline, Set<BaselineField>) {
        var b = defaults
        let keys = BaselineField.allCases.map(\.rawValue)
        guard let fields = reader.mapping(node, field, allowed: keys) else { return (b, []) }
        let given = Set(BaselineField.allCases.filter { fields.has($0.rawValue) })
        b.heartRate = fields.number("heartRate", in: 30...220, unit: "bpm") ?? b.heartRate
        b.hrvSDNN = fields.number("hrvSDNN", in: 5...200, unit: "ms") ?? b.hrvSDNN
        b.lfHfRatio = fields.number("lfHfRatio", in: 0.1...10, unit: "") ?? b.lfHfRatio
        b.systolic = fields.number("systolic", in: 60...250, unit: "mmHg") ?? b.systolic
        b.diastolic = fields.number("diastolic", in: 30...150, unit: "mmHg") ?? b.diastolic
        b.nocturnalDip = fields.number("nocturnalDip", in: -10...30, unit: "%") ?? b.nocturnalDip
        b.glucose = fields.number("glucose", in: 60...300, unit: "mg/dL") ?? b.glucose
        b.diabetes = fields.choice("diabetes", DiabetesType.self, what: "diabetes type") ?? b.diabetes
        b.spo2 = fields.number("spo2", in: 60...100, unit: "%") ?? b.spo2
        b.temperature = fields.number("temperature", in: 34...40, unit: "°C") ?? b.temperature
        b.respirationRate = fields.number("respirationRate", in: 4...80, unit: "/min") ?? b.respirationRate
        b.weight = fields.number("weight", in: 1...300, unit: "kg") ?? b.weight
        b.height = fields.number("height", in: 30...230, unit: "cm") ?? b.height
        b.insulinSensitivity =
            fields.number("insulinSensitivity", in: 0.1...10, unit: "× the profile's") ?? b.insulinSensitivity
        b.carbRatio = fields.number("carbRatio", in: 2...50, unit: "g/U") ?? b.carbRatio
        b.dailyWeightChange = fields.number("dailyWeightChange", in: -500...500, unit: "g/day") ?? b.dailyWeightChange
        b.dailySteps = fields.number("dailySteps", in: 0...40000, unit: "steps") ?? b.dailySteps
        b.feedsPerDay = Int(fields.integer("feedsPerDay", in: 0...24) ?? Int64(b.feedsPerDay))
        b.intakePerKg = fields.number("intakePerKg", in: 0...300, unit: "mL/kg/day") ?? b.intakePerKg
        if b.diastolic >= b.systolic {
            reader.fail(
                fields.value("diastolic") ?? node,
                fields.path("diastolic"),
                "diastolic (\(b.diastolic)) must be below systolic (\(b.systolic))"
            )
        }
        return (b, given)
    }
}
