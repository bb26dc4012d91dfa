/// A ``Baseline`` value by its key in a patient's `baseline:` mapping.
public enum BaselineField: String, Sendable, CaseIterable {
    case heartRate, hrvSDNN, lfHfRatio, systolic, diastolic, nocturnalDip, glucose, diabetes, spo2, temperature
    case respirationRate, weight, height, dailyWeightChange, dailySteps, feedsPerDay, intakePerKg
    case insulinSensitivity, carbRatio

    /// The values a population draw may set (docs/physiology.md, "Between patients"). The diabetes
    /// type, an infant's growth rate, feeds and intake stay as given or as the profile has them:
    /// they decide which alerts a scenario is about.
    public static let drawable: Set<BaselineField> = [
        .heartRate, .hrvSDNN, .lfHfRatio, .systolic, .diastolic, .nocturnalDip, .glucose, .spo2, .temperature,
        .respirationRate, .weight, .height, .dailySteps, .insulinSensitivity, .carbRatio,
    ]
}

extension Baseline {
    /// The number a field holds (nil for `diabetes`, which is a type).
    public func value(of field: BaselineField) -> Double? {
        switch field {
        case .heartRate: heartRate
        case .hrvSDNN: hrvSDNN
        case .lfHfRatio: lfHfRatio
        case .systolic: systolic
        case .diastolic: diastolic
        case .nocturnalDip: nocturnalDip
        case .glucose: glucose
        case .diabetes: nil
        case .spo2: spo2
        case .temperature: temperature
        case .respirationRate: respirationRate
        case .weight: weight
        case .height: height
        case .dailyWeightChange: dailyWeightChange
        case .dailySteps: dailySteps
        case .feedsPerDay: Double(feedsPerDay)
        case .intakePerKg: intakePerKg
        case .insulinSensitivity: insulinSensitivity
        case .carbRatio: carbRatio
        }
    }
}

/// How a scenario's patients differ (`population:`): `varied` (the default) draws every baseline
/// value a patient's `baseline:` does not give from the profile's population, per seed and patient;
/// `typical` gives every patient the profile's defaults exactly.
public enum PopulationMode: String, Sendable, CaseIterable {
    case varied, typical
}
