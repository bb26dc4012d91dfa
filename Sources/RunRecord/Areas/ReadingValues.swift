import VitalSimCore

/// The order in which a reading's signals name its kind: a blood pressure's systolic before the
/// heart rate a cuff also measures, SpO2 before the pulse rate an oximeter carries, a daily
/// summary's steps before its calories, the battery last.
private let kindPrecedence: [Signal] = [
    .systolic, .spo2, .glucose, .cgm, .temperature, .respirationRate, .weight, .feeding, .breastfeeding, .steps,
    .heartRate, .calories, .palpitations, .dizziness, .chestPain, .shortnessOfBreath, .fainting, .ecgHeartRate,
    .ecgAF, .oxygenFlow, .ngTubeSize, .feedingPumpRate, .battery,
]

extension Dictionary where Key == Signal, Value == Double {
    /// The signal naming the kind of a reading with these values.
    package var primarySignal: Signal? { kindPrecedence.first { self[$0] != nil } }

    /// The kind of reading with these values.
    package var readingKind: VitalKind? {
        switch primarySignal {
        case .systolic, .diastolic: .bloodPressure
        case .heartRate: .heartRate
        case .glucose: .glucose
        case .cgm: .cgm
        case .spo2: .spo2
        case .temperature: .temperature
        case .weight: .weight
        case .feeding, .breastfeeding: .feeding
        case .steps, .calories: .dailySummary
        case .battery: .battery
        case .respirationRate: .respirationRate
        case .palpitations, .dizziness, .chestPain, .shortnessOfBreath, .fainting: .symptom
        case .ecgHeartRate, .ecgAF: .ecg
        case .oxygenFlow, .ngTubeSize, .feedingPumpRate: .equipment
        case nil: nil
        }
    }
}
