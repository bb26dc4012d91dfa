/// Symptoms a patient reports from a watch or phone (the InTouch PRD's "Report a Symptom", the IoT-AI SRS's
/// symptoms as input): the five of HealthKit's symptom category types that a cardiac or
/// respiratory monitoring programme asks about.
public enum SymptomKind: String, Sendable, CaseIterable {
    case palpitations
    case dizziness
    case chestPain = "chest-pain"
    case shortnessOfBreath = "shortness-of-breath"
    case fainting

    /// The SNOMED CT concept of the symptom (clinical finding).
    public var snomed: (code: String, display: String) {
        switch self {
        case .palpitations: ("80313002", "Palpitations")
        case .dizziness: ("404640003", "Dizziness")
        case .chestPain: ("29857009", "Chest pain")
        case .shortnessOfBreath: ("267036007", "Dyspnea")
        case .fainting: ("271594007", "Syncope")
        }
    }

    /// The HealthKit category type identifier of the symptom.
    public var healthKitType: String {
        switch self {
        case .palpitations: "HKCategoryTypeIdentifierRapidPoundingOrFlutteringHeartbeat"
        case .dizziness: "HKCategoryTypeIdentifierDizziness"
        case .chestPain: "HKCategoryTypeIdentifierChestTightnessOrPain"
        case .shortnessOfBreath: "HKCategoryTypeIdentifierShortnessOfBreath"
        case .fainting: "HKCategoryTypeIdentifierFainting"
        }
    }

    /// The signal that carries the symptom's severity in rules, the oracle and storage.
    public var signal: Signal {
        switch self {
        case .palpitations: .palpitations
        case .dizziness: .dizziness
        case .chestPain: .chestPain
        case .shortnessOfBreath: .shortnessOfBreath
        case .fainting: .fainting
        }
    }

    /// The symptom whose severity `signal` carries, if any.
    public init?(signal: Signal) {
        guard let kind = SymptomKind.allCases.first(where: { $0.signal == signal }) else { return nil }
        self = kind
    }
}

/// How bad a reported symptom is: 1 mild, 2 moderate, 3 severe (HealthKit's
/// `HKCategoryValueSeverity` mild, moderate and severe are 2, 3 and 4).
public enum SymptomSeverity: Int, Sendable, CaseIterable {
    case mild = 1
    case moderate = 2
    case severe = 3

    /// The word payloads and reports use.
    public var name: String {
        switch self {
        case .mild: "mild"
        case .moderate: "moderate"
        case .severe: "severe"
        }
    }

    /// The SNOMED CT severity qualifier.
    public var snomed: (code: String, display: String) {
        switch self {
        case .mild: ("255604002", "Mild")
        case .moderate: ("6736007", "Moderate")
        case .severe: ("24484000", "Severe")
        }
    }
}

/// The chance that a clinical event makes the patient report a symptom.
public struct SymptomChance: Sendable, Equatable {
    /// The symptom.
    public var symptom: SymptomKind
    /// Probability, 0...1, that the patient reports it during the event.
    public var probability: Double
    /// A value with every field given.
    public init(_ symptom: SymptomKind, _ probability: Double) {
        self.symptom = symptom
        self.probability = probability
    }

    /// VitalSim's default chances per event kind (docs/scenarios.md gives their basis; most are
    /// assumptions, set per event with `symptoms:`). Events that are not listed cause no symptom.
    public static func defaults(for kind: ClinicalEventKind) -> [SymptomChance] {
        switch kind {
        case .atrialFibrillation: [.init(.palpitations, 0.5), .init(.dizziness, 0.1), .init(.shortnessOfBreath, 0.2)]
        case .tachycardia: [.init(.palpitations, 0.5), .init(.dizziness, 0.1)]
        case .bradycardia: [.init(.dizziness, 0.3), .init(.fainting, 0.05)]
        case .hypertensiveCrisis: [.init(.dizziness, 0.1), .init(.chestPain, 0.27), .init(.shortnessOfBreath, 0.22)]
        case .desaturation: [.init(.shortnessOfBreath, 0.6)]
        case .hypoglycemia: [.init(.palpitations, 0.3), .init(.dizziness, 0.4)]
        case .fluidGain: [.init(.shortnessOfBreath, 0.4)]
        case .hyperglycemia, .meal, .fever, .weightLoss, .feedingReduction, .exercise: []
        }
    }
}
