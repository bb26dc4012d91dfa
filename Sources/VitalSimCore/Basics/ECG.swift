/// What a watch's ECG app concludes from a recording: the cases of HealthKit's
/// `HKElectrocardiogram.Classification` that a recording can end with, named as HealthKit names them.
public enum ECGClassification: String, Sendable, CaseIterable {
    case sinusRhythm
    case atrialFibrillation
    case inconclusiveLowHeartRate
    case inconclusiveHighHeartRate
    case inconclusivePoorReading
    case inconclusiveOther

    /// The rhythm it names, as the `ecg-af` signal holds it: 1 for atrial fibrillation, 0 for
    /// sinus rhythm, nil for an inconclusive recording (which says nothing about the rhythm).
    public var afValue: Double? {
        switch self {
        case .atrialFibrillation: 1
        case .sinusRhythm: 0
        default: nil
        }
    }

    /// The SNOMED CT finding of a conclusive classification (sinus rhythm 64730000, atrial
    /// fibrillation 49436004).
    public var snomed: (code: String, display: String)? {
        switch self {
        case .sinusRhythm: ("64730000", "Normal sinus rhythm")
        case .atrialFibrillation: ("49436004", "Atrial fibrillation")
        default: nil
        }
    }
}

/// Why a watch recorded an ECG.
public enum ECGTrigger: String, Sendable, CaseIterable {
    /// At the device's `recordings` times of day (a daily check the programme asks for).
    case schedule
    /// When the patient feels a symptom (palpitations, dizziness, chest pain, fainting).
    case symptoms
    /// After an irregular-rhythm notification (the watch's background AF screening).
    case irregularRhythm = "irregular-rhythm"
}

/// A single-lead ECG recording as an Apple-Watch-style ECG app stores it: 30 s of voltage at
/// 512 Hz, its classification and average heart rate, and whether the patient felt symptoms.
public struct ECGRecording: Sendable, Equatable {
    /// The app's conclusion.
    public var classification: ECGClassification
    /// Average heart rate over the recording, bpm (whole).
    public var averageHeartRate: Int
    /// Samples per second.
    public var samplingFrequency: Int
    /// The voltage, µV, one value per sample from the recording's start.
    public var microvolts: [Int16]
    /// True when the recording was taken because of a symptom (HealthKit's `symptomsStatus` present).
    public var symptomatic: Bool
    /// Ground truth: the times of the R peaks (the heart's beats) in ms from the recording's start.
    public var beats: [Double]

    /// A value with every field given.
    public init(
        classification: ECGClassification,
        averageHeartRate: Int,
        samplingFrequency: Int,
        microvolts: [Int16],
        symptomatic: Bool,
        beats: [Double]
    ) {
        self.classification = classification
        self.averageHeartRate = averageHeartRate
        self.samplingFrequency = samplingFrequency
        self.microvolts = microvolts
        self.symptomatic = symptomatic
        self.beats = beats
    }

    /// Length of the recording, ms.
    public var durationMilliseconds: Int64 { Int64(microvolts.count) * 1000 / Int64(max(1, samplingFrequency)) }
}
