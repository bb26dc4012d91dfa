/// A measured quantity, as the alert rules, the oracle and the reference SUT name it (a blood-pressure
/// reading carries two: systolic and diastolic).
public enum Signal: String, Sendable, CaseIterable {
    /// Heart rate, beats per minute.
    case heartRate = "heart-rate"
    /// Systolic blood pressure, mmHg.
    case systolic
    /// Diastolic blood pressure, mmHg.
    case diastolic
    /// Fingerstick or lab glucose, mg/dL.
    case glucose
    /// CGM glucose, mg/dL.
    case cgm
    /// Oxygen saturation, %.
    case spo2
    /// Body temperature, °C.
    case temperature
    /// Respiration rate, breaths per minute.
    case respirationRate = "respiration-rate"
    /// Body weight, kg.
    case weight
    /// A logged bottle feed, mL.
    case feeding
    /// A logged breastfeed, minutes at the breast (its volume is not known).
    case breastfeeding
    /// A device's battery level, %.
    case battery
    /// Daily step count (VitalEdge summaries, FHIR 55423-8).
    case steps
    /// Daily active energy, kcal (VitalEdge summaries).
    case calories
    /// Reported palpitations: severity 1 mild, 2 moderate, 3 severe.
    case palpitations
    /// Reported dizziness: severity 1...3.
    case dizziness
    /// Reported chest pain or tightness: severity 1...3.
    case chestPain = "chest-pain"
    /// Reported shortness of breath: severity 1...3.
    case shortnessOfBreath = "shortness-of-breath"
    /// Reported fainting: severity 1...3.
    case fainting
    /// An ECG recording's average heart rate, beats per minute.
    case ecgHeartRate = "ecg-heart-rate"
    /// An ECG recording's rhythm: 1 atrial fibrillation, 0 sinus rhythm (absent when inconclusive).
    case ecgAF = "ecg-af"
    /// Home oxygen flow as the caregiver logs it, L/min.
    case oxygenFlow = "oxygen-flow"
    /// Nasogastric tube size, French.
    case ngTubeSize = "ng-tube-size"
    /// Enteral feeding pump rate, mL/h.
    case feedingPumpRate = "feeding-pump-rate"

    /// The UCUM unit the signal is measured in (`/min`, `mm[Hg]`, `mg/dL`, `%`, `Cel`, `kg`, `mL`,
    /// `min`, `/d`, `kcal`, `{severity}`, `{AF}`): the unit in which VitalSim generates it and the reference SUT stores
    /// it.
    public var ucum: String {
        switch self {
        case .heartRate, .respirationRate, .ecgHeartRate: "/min"
        case .systolic, .diastolic: "mm[Hg]"
        case .glucose, .cgm: "mg/dL"
        case .spo2, .battery: "%"
        case .temperature: "Cel"
        case .weight: "kg"
        case .feeding: "mL"
        case .breastfeeding: "min"
        case .steps: "/d"
        case .calories: "kcal"
        case .palpitations, .dizziness, .chestPain, .shortnessOfBreath, .fainting: "{severity}"
        case .ecgAF: "{AF}"
        case .oxygenFlow: "L/min"
        case .ngTubeSize: "[Ch]"
        case .feedingPumpRate: "mL/h"
        }
    }

    /// True for the signals of reported symptoms (value: severity 1...3).
    public var isSymptom: Bool { SymptomKind(signal: self) != nil }

    /// True for signals that describe the device rather than the patient (judged per device).
    public var isDeviceProperty: Bool { self == .battery }
}
