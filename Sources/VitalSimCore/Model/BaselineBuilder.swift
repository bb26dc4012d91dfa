import Yams

/// Reads a `baseline:` mapping over a profile's defaults.
struct BaselineBuilder {
    let reader: YAMLReader

    /// The baseline, and the keys the mapping gave (which a population draw leaves alone).
    func build(_ node: Node, _ field: String, defaults: Baseline) -> (Baseline, Set<BaselineField>) {
        var baseline = defaults
        let keys = BaselineField.allCases.map(\.rawValue)
        guard let fields = reader.mapping(node, field, allowed: keys) else { return (baseline, []) }
        let given = Set(BaselineField.allCases.filter { fields.has($0.rawValue) })
        baseline.heartRate = fields.number("heartRate", in: 30...220, unit: "bpm") ?? baseline.heartRate
        baseline.hrvSDNN = fields.number("hrvSDNN", in: 5...200, unit: "ms") ?? baseline.hrvSDNN
        baseline.lfHfRatio = fields.number("lfHfRatio", in: 0.1...10, unit: "") ?? baseline.lfHfRatio
        baseline.systolic = fields.number("systolic", in: 60...250, unit: "mmHg") ?? baseline.systolic
        baseline.diastolic = fields.number("diastolic", in: 30...150, unit: "mmHg") ?? baseline.diastolic
        baseline.nocturnalDip = fields.number("nocturnalDip", in: -10...30, unit: "%") ?? baseline.nocturnalDip
        baseline.glucose = fields.number("glucose", in: 60...300, unit: "mg/dL") ?? baseline.glucose
        baseline.diabetes = fields.choice("diabetes", DiabetesType.self, what: "diabetes type") ?? baseline.diabetes
        baseline.spo2 = fields.number("spo2", in: 60...100, unit: "%") ?? baseline.spo2
        baseline.temperature = fields.number("temperature", in: 34...40, unit: "°C") ?? baseline.temperature
        baseline.respirationRate =
            fields.number("respirationRate", in: 4...80, unit: "/min") ?? baseline.respirationRate
        baseline.weight = fields.number("weight", in: 1...300, unit: "kg") ?? baseline.weight
        baseline.height = fields.number("height", in: 30...230, unit: "cm") ?? baseline.height
        baseline.insulinSensitivity =
            fields.number("insulinSensitivity", in: 0.1...10, unit: "× the profile's") ?? baseline.insulinSensitivity
        baseline.carbRatio = fields.number("carbRatio", in: 2...50, unit: "g/U") ?? baseline.carbRatio
        baseline.dailyWeightChange =
            fields.number("dailyWeightChange", in: -500...500, unit: "g/day") ?? baseline.dailyWeightChange
        baseline.dailySteps = fields.number("dailySteps", in: 0...40000, unit: "steps") ?? baseline.dailySteps
        baseline.feedsPerDay = Int(fields.integer("feedsPerDay", in: 0...24) ?? Int64(baseline.feedsPerDay))
        baseline.intakePerKg = fields.number("intakePerKg", in: 0...300, unit: "mL/kg/day") ?? baseline.intakePerKg
        if baseline.diastolic >= baseline.systolic {
            reader.fail(
                fields.value("diastolic") ?? node,
                fields.path("diastolic"),
                "diastolic (\(baseline.diastolic)) must be below systolic (\(baseline.systolic))"
            )
        }
        return (baseline, given)
    }
}
