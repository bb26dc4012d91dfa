/// A loaded, validated scenario file: patients, their devices and a timeline of events and faults.
public struct Scenario: Sendable {
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public var name: String
    /// A message naming what is wrong and where.
    public var description: String
    /// Seed of every random stream of the scenario.
    public var seed: UInt64
    /// How long it lasts (virtual time).
    public var duration: VirtualDuration
    /// Wall-clock UTC time of virtual time zero (Unix ms). Devices stamp times relative to it.
    public var startUnixMilliseconds: Int64
    /// Path of the golden expectation file, relative to the repository root.
    public var golden: String
    /// The patients in file order.
    public var patients: [PatientSpec]
    /// Clinical events and device faults in file order.
    public var timeline: [TimelineEntry]
    /// The file the scenario came from, for messages.
    public var sourcePath: String
    /// The network between the devices and the SUT in a live run (`network:`; `vitalsim run
    /// --network` takes its place); nil: loopback as it is.
    package var network: NetworkWeather?
    /// The care team's actions on alerts (timeline entries with `person` and `action`), in time
    /// order. They shape no traffic: the traffic digest is the same without them.
    public var careActions: [CareTeamAction] = []

    /// A value with every field given.
    public init(
        name: String,
        description: String,
        seed: UInt64,
        duration: VirtualDuration,
        startUnixMilliseconds: Int64,
        golden: String,
        patients: [PatientSpec],
        timeline: [TimelineEntry],
        sourcePath: String
    ) {
        self.name = name
        self.description = description
        self.seed = seed
        self.duration = duration
        self.startUnixMilliseconds = startUnixMilliseconds
        self.golden = golden
        self.patients = patients
        self.timeline = timeline
        self.sourcePath = sourcePath
    }

    /// Clinical events of one patient, in time order.
    public func events(for patientID: String) -> [ClinicalEvent] {
        timeline.compactMap { if case let .clinical(e) = $0, e.patientID == patientID { e } else { nil } }
    }

    /// Scripted readings of one device, in time order, with its trace's readings.
    public func scripts(for deviceID: String) -> [ScriptedReading] {
        let traced = patients.lazy.flatMap(\.devices).first { $0.id == deviceID }?.trace?.readings ?? []
        return timeline.compactMap { if case let .scripted(s) = $0, s.deviceID == deviceID { s } else { nil } } + traced
    }

    /// Faults of one device, in time order.
    public func faults(for deviceID: String) -> [DeviceFault] {
        timeline.compactMap { if case let .fault(f) = $0, f.deviceID == deviceID { f } else { nil } }
    }
}

/// Clinical profiles; each sets baselines and, in the reference SUT, the alert rule set.
public enum Profile: String, Sendable, CaseIterable {
    case adult
    case diabeticCGM = "diabetic-cgm"
    case copd
    case chdInfant = "chd-infant"
}

/// Diabetes type of a patient (drives the glucose model).
public enum DiabetesType: String, Sendable, CaseIterable {
    case none, type1, type2
}

/// A simulated patient.
public struct PatientSpec: Sendable {
    /// The id (unique in its scope).
    public var id: String
    /// The clinical profile, which selects the alert rules that apply.
    public var profile: Profile
    /// Resting values of the patient's signals.
    public var baseline: Baseline
    /// What the patient eats each day (glucose model): the profile's usual meals unless the
    /// scenario lists them (`meals:`; an empty list is a fasting clamp).
    public var meals: MealPlan
    /// The patient's devices in file order.
    public var devices: [DeviceSpec]
    /// The baseline values drawn for this patient from the profile's population when the scenario
    /// is generated (per seed and patient, docs/physiology.md); ``baseline`` holds the profile's
    /// typical value of each until then. Empty: the baseline exactly as it is.
    public var drawn: Set<BaselineField> = []
    /// The patient's own alert limits (`thresholds:`), in ``ThresholdOverride/rules`` order.
    public var thresholds: [ThresholdOverride] = []
    /// The people who care for the patient (`care-team:`), in file order.
    public var careTeam: [CareTeamMember] = []
    /// Who is notified of the patient's alerts, per severity (`escalation:`).
    public var escalation = EscalationPolicy()
    /// A value with every field given (no own alert limits, no care team).
    public init(id: String, profile: Profile, baseline: Baseline, meals: MealPlan, devices: [DeviceSpec]) {
        self.id = id
        self.profile = profile
        self.baseline = baseline
        self.meals = meals
        self.devices = devices
    }
}

/// What a patient eats from day to day.
public enum MealPlan: Sendable, Equatable {
    /// The profile's usual meals, drawn day by day: breakfast after waking, lunch, dinner and
    /// occasional snacks, each of its own size (docs/physiology.md, "Meals"). Infants feed instead.
    case usual
    /// Exactly these daily meals (moved and resized a little from day to day); none: a fasting
    /// clamp, glucose flat but for the scenario's events.
    case listed([MealSpec])

    /// The listed meals; empty for ``usual``.
    public var listed: [MealSpec] {
        if case let .listed(meals) = self { return meals }
        return []
    }
}

/// A daily meal: time of day, carbohydrate and the insulin bolus taken with it.
public struct MealSpec: Sendable, Equatable {
    /// Time of day (ms after midnight).
    public var timeOfDay: Int64
    /// Carbohydrates, g.
    public var carbs: Double
    /// Bolus units; nil: by the carbohydrate ratio (``Baseline/carbRatio``) in type 1 diabetes,
    /// none otherwise (type 2 on oral therapy, or no diabetes).
    public var bolus: Double?
    /// A value with every field given.
    public init(timeOfDay: Int64, carbs: Double, bolus: Double?) {
        self.timeOfDay = timeOfDay
        self.carbs = carbs
        self.bolus = bolus
    }
}

/// Per-patient physiological baselines; every field has a profile default.
public struct Baseline: Sendable, Equatable {
    /// Resting heart rate, beats per minute.
    public var heartRate: Double
    /// Target resting 5-min SDNN, ms.
    public var hrvSDNN: Double
    /// LF/HF power ratio of heart-rate variability.
    public var lfHfRatio: Double
    /// Systolic blood pressure, mmHg.
    public var systolic: Double
    /// Diastolic blood pressure, mmHg.
    public var diastolic: Double
    /// Nocturnal systolic dip, percent.
    public var nocturnalDip: Double
    /// Fasting plasma glucose, mg/dL.
    public var glucose: Double
    /// Diabetes type, which shapes the glucose model.
    public var diabetes: DiabetesType
    /// Oxygen saturation, %.
    public var spo2: Double
    /// Body temperature, °C.
    public var temperature: Double
    /// Respiration rate, breaths per minute.
    public var respirationRate: Double
    /// Body weight, kg.
    public var weight: Double
    /// Daily weight change in grams (infant growth is positive).
    public var dailyWeightChange: Double
    /// Steps per day.
    public var dailySteps: Double
    /// Feeds per day (infants).
    public var feedsPerDay: Int
    /// Daily intake, mL per kg.
    public var intakePerKg: Double
    /// Height (an infant's length), cm.
    public var height: Double
    /// Insulin sensitivity relative to the profile's typical patient (1: typical).
    public var insulinSensitivity: Double
    /// Carbohydrate ratio, grams per unit of insulin: the meal bolus of type 1 diabetes when a meal
    /// gives none.
    public var carbRatio: Double

    /// The defaults of a profile (sources in docs/scenarios.md and docs/clinical.md).
    public static func defaults(for profile: Profile) -> Baseline {
        switch profile {
        case .adult: adultDefaults
        case .diabeticCGM: diabeticCGMDefaults
        case .copd: copdDefaults
        case .chdInfant: chdInfantDefaults
        }
    }

    private static let adultDefaults = Baseline(
        heartRate: 68,
        hrvSDNN: 50,
        lfHfRatio: 1.5,
        systolic: 122,
        diastolic: 78,
        nocturnalDip: 12,
        glucose: 95,
        diabetes: .none,
        spo2: 97,
        temperature: 36.8,
        respirationRate: 14,
        weight: 75,
        dailyWeightChange: 0,
        dailySteps: 8000,
        feedsPerDay: 0,
        intakePerKg: 0,
        height: 170,
        insulinSensitivity: 1,
        carbRatio: 10
    )

    private static let diabeticCGMDefaults = Baseline(
        heartRate: 72,
        hrvSDNN: 40,
        lfHfRatio: 1.5,
        systolic: 128,
        diastolic: 80,
        nocturnalDip: 11,
        glucose: 140,
        diabetes: .type1,
        spo2: 97,
        temperature: 36.8,
        respirationRate: 14,
        weight: 75,
        dailyWeightChange: 0,
        dailySteps: 7000,
        feedsPerDay: 0,
        intakePerKg: 0,
        height: 170,
        insulinSensitivity: 1,
        carbRatio: 10
    )

    private static let copdDefaults = Baseline(
        heartRate: 82,
        hrvSDNN: 30,
        lfHfRatio: 1.2,
        systolic: 132,
        diastolic: 82,
        nocturnalDip: 8,
        glucose: 100,
        diabetes: .none,
        spo2: 91,
        temperature: 36.8,
        respirationRate: 19,
        weight: 70,
        dailyWeightChange: 0,
        dailySteps: 3000,
        feedsPerDay: 0,
        intakePerKg: 0,
        height: 168,
        insulinSensitivity: 1,
        carbRatio: 10
    )

    private static let chdInfantDefaults = Baseline(
        heartRate: 140,
        hrvSDNN: 25,
        lfHfRatio: 1.0,
        systolic: 80,
        diastolic: 45,
        nocturnalDip: 5,
        glucose: 85,
        diabetes: .none,
        spo2: 80,
        temperature: 36.9,
        respirationRate: 44,
        weight: 4.2,
        dailyWeightChange: 26,
        dailySteps: 0,
        feedsPerDay: 8,
        intakePerKg: 150,
        height: 56,
        insulinSensitivity: 1,
        carbRatio: 10
    )
}

/// How a device's payloads travel.
public enum Transport: String, Sendable, CaseIterable {
    case ble, https, mqtt
}

/// The simulated device types.
public enum DeviceType: String, Sendable, CaseIterable {
    case heartRateStrap = "heart-rate-strap"
    case bpCuff = "bp-cuff"
    case glucometer
    case cgm
    case pulseOximeter = "pulse-oximeter"
    case thermometer
    case weightScale = "weight-scale"
    case phoneBridge = "phone-bridge"
    case feedingLog = "feeding-log"
    /// A wearable respiration sensor (chest patch) whose companion app relays breaths/min as JSON;
    /// GATT has no respiration-rate characteristic among the health services.
    case respirationMonitor = "respiration-monitor"
    /// A watch or phone app where the patient reports symptoms (the InTouch PRD's "Report a Symptom"),
    /// relayed as JSON.
    case symptomDiary = "symptom-diary"
    /// An Apple-Watch-style single-lead ECG (30 s at 512 Hz) relayed by its phone as JSON.
    case ecgWatch = "ecg-watch"
    /// A caregiver's equipment log (the Health Hearts SRS): home oxygen, NG tube, feeding pump settings, as JSON.
    case equipmentLog = "equipment-log"

    /// True for devices that speak GATT.
    public var isBluetooth: Bool {
        switch self {
        case .phoneBridge, .feedingLog, .respirationMonitor, .symptomDiary, .ecgWatch, .equipmentLog: false
        default: true
        }
    }

    /// The kinds of reading a device of this type emits (Bluetooth devices also report their battery).
    public var kinds: Set<VitalKind> {
        let own: Set<VitalKind> =
            switch self {
            case .heartRateStrap: [.heartRate]
            case .bpCuff: [.bloodPressure, .cuffPressure]
            case .glucometer: [.glucose]
            case .cgm: [.cgm]
            case .pulseOximeter: [.spo2]
            case .thermometer: [.temperature]
            case .weightScale: [.weight]
            case .phoneBridge: [.heartRate, .dailySummary]
            case .feedingLog: [.feeding]
            case .respirationMonitor: [.respirationRate]
            case .symptomDiary: [.symptom]
            case .ecgWatch: [.ecg]
            case .equipmentLog: [.equipment]
            }
        return isBluetooth ? own.union([.battery]) : own
    }
}

/// How a feeding log's infant is fed: every feed by bottle (volume in mL), at the breast (minutes;
/// the volume is not known without test weighing), or either (each feed at the breast with
/// probability one half).
public enum FeedingMethod: String, Sendable, CaseIterable {
    case bottle, breast, mixed
}

/// One device of a patient.
public struct DeviceSpec: Sendable {
    /// The id (unique in its scope).
    public var id: String
    /// The device type.
    public var type: DeviceType
    /// How the device reaches the SUT.
    public var transport: Transport
    /// Interval between measurements for periodic devices.
    public var cadence: VirtualDuration
    /// Times of day (ms after midnight) for spot-check devices.
    public var schedule: [Int64]
    /// Pulse oximeter: continuous (PLX Continuous, notify) or spot-check (indicate).
    public var continuous: Bool
    /// Initial battery level, percent.
    public var battery: Double
    /// Battery drain per day, percent.
    public var batteryDrainPerDay: Double
    /// Feeding log: how the infant is fed (the Health Hearts SRS's "breast/bottle").
    public var feedingMethod: FeedingMethod = .bottle
    /// Symptom diary: symptoms reported per day with no clinical event behind them (`spontaneous`).
    public var spontaneousSymptomsPerDay = 0.05
    /// ECG watch: times of day (ms after midnight) of its scheduled recordings (`recordings`).
    public var ecgRecordings: [Int64] = [9 * 3_600_000]
    /// ECG watch: why it records (`triggers`), in ``ECGTrigger`` order.
    public var ecgTriggers: [ECGTrigger] = ECGTrigger.allCases
    /// False for `noise: off` (the device's own or its patient's): no measurement error.
    public var noise = true
    /// Equipment log: the items and their settings at the start (`equipment`), in ``EquipmentItem`` order.
    public var equipment: [EquipmentSetting] = []
    /// A device whose readings come from a recording (`trace:`); it measures nothing itself.
    public var trace: DeviceTrace?
    /// How long after each tick of its cadence, or each time of its schedule, the device measures
    /// (`phase`), and after each hour's start (the phase within the hour) it reports its battery:
    /// devices of one fleet are not synchronized, so that a ward's readings do not all fall due at
    /// the same instant.
    public var phase: VirtualDuration = .zero
    /// How the patient keeps the device's schedule (``Adherence``): missed, early and late
    /// measurements; exact for devices that measure by themselves.
    public var adherence = Adherence.exact
    /// Phone bridge: real-time monitoring switched on (`real-time`), the latest heart rate sent
    /// every interval (the VitalEdge RSD §2.3.1; the VitalEdge SDS §5.1: off, the timer stops and nothing is sent).
    public var realTimeMonitoring = true
    /// Phone bridge: the daily summary switched on (`daily-summary`), the day's steps and calories
    /// sent at midnight (the VitalEdge RSD §2.3.1; the VitalEdge SDS §5.2: off, the transmission is skipped).
    public var dailySummaries = true
    /// A value with every field given (bottle feeds).
    public init(
        id: String,
        type: DeviceType,
        transport: Transport,
        cadence: VirtualDuration,
        schedule: [Int64],
        continuous: Bool,
        battery: Double,
        batteryDrainPerDay: Double
    ) {
        self.id = id
        self.type = type
        self.transport = transport
        self.cadence = cadence
        self.schedule = schedule
        self.continuous = continuous
        self.battery = battery
        self.batteryDrainPerDay = batteryDrainPerDay
    }
}

/// An entry of the scenario timeline.
public enum TimelineEntry: Sendable {
    case clinical(ClinicalEvent)
    case fault(DeviceFault)
    case scripted(ScriptedReading)

    /// When it starts (virtual ms).
    public var start: Int64 {
        switch self {
        case let .clinical(e): e.start
        case let .fault(f): f.start
        case let .scripted(s): s.start
        }
    }
}

/// Clinical event kinds.
public enum ClinicalEventKind: String, Sendable, CaseIterable {
    case tachycardia, bradycardia
    case atrialFibrillation = "atrial-fibrillation"
    case hypoglycemia, hyperglycemia, meal
    case desaturation
    case hypertensiveCrisis = "hypertensive-crisis"
    case fever
    case weightLoss = "weight-loss"
    case fluidGain = "fluid-gain"
    case feedingReduction = "feeding-reduction"
    case exercise

    /// Events in one group change the same signal; two in a group must not overlap.
    public var conflictGroup: String? {
        switch self {
        case .tachycardia, .bradycardia, .atrialFibrillation: "heart rhythm"
        case .desaturation: "SpO2"
        case .hypertensiveCrisis: "blood pressure"
        case .fever: "temperature"
        case .weightLoss, .fluidGain: "weight"
        case .feedingReduction: "feeding"
        case .hypoglycemia, .hyperglycemia, .meal, .exercise: nil
        }
    }

    /// Whether the event lasts (needs `duration`) or happens at one instant.
    public var hasDuration: Bool {
        switch self {
        case .hypoglycemia, .hyperglycemia, .meal: false
        default: true
        }
    }
}

/// A clinical event on one patient. Targets not given take the kind's default.
public struct ClinicalEvent: Sendable, Equatable {
    /// What happens.
    public var kind: ClinicalEventKind
    /// The patient it happens to.
    public var patientID: String
    /// When it starts (virtual ms from the scenario start).
    public var start: Int64
    /// How long it lasts (virtual time).
    public var duration: Int64
    /// How long it takes to reach its full effect (ms).
    public var onset: Int64
    /// How long it takes to wear off after `duration` (ms).
    public var offset: Int64
    /// The level the signal moves to (bpm, %, mmHg systolic, °C, kg or g per day, mL/kg/day).
    public var target: Double?
    /// Secondary target (diastolic for hypertensive crisis).
    public var target2: Double?
    /// Carbohydrate (g) for meal / hyperglycaemia events.
    public var carbs: Double?
    /// Insulin units for meal / hypoglycaemia events.
    public var insulin: Double?
    /// Cause label (for hypo/hyperglycaemia): insulin-overdose, skipped-meal, missed-bolus.
    public var cause: String?
    /// The chances that the event makes the patient report symptoms (`symptoms:`); nil takes
    /// ``SymptomChance/defaults(for:)``.
    public var symptoms: [SymptomChance]?
    /// 1-based line of the entry in the scenario file.
    public var line: Int

    /// A value with every field given.
    public init(
        kind: ClinicalEventKind,
        patientID: String,
        start: Int64,
        duration: Int64,
        onset: Int64,
        offset: Int64,
        target: Double? = nil,
        target2: Double? = nil,
        carbs: Double? = nil,
        insulin: Double? = nil,
        cause: String? = nil,
        line: Int = 0
    ) {
        self.kind = kind
        self.patientID = patientID
        self.start = start
        self.duration = duration
        self.onset = onset
        self.offset = offset
        self.target = target
        self.target2 = target2
        self.carbs = carbs
        self.insulin = insulin
        self.cause = cause
        self.line = line
    }

    /// End of the event (virtual ms).
    public var end: Int64 { start + duration }

    /// The chances that the event makes the patient report each symptom, in ``SymptomKind`` order.
    public var symptomChances: [SymptomChance] { symptoms ?? SymptomChance.defaults(for: kind) }
}

/// Device fault kinds.
public enum FaultKind: String, Sendable, CaseIterable {
    case dropout, disconnect
    case lowBattery = "low-battery"
    case duplicates
    case outOfOrder = "out-of-order"
    case corrupt
    case clockSkew = "clock-skew"

    /// Faults in one group must not overlap on a device.
    public var conflictGroup: String? {
        switch self {
        case .dropout, .disconnect: "link"
        case .clockSkew: "clock"
        case .lowBattery: "battery"
        case .duplicates, .outOfOrder, .corrupt: nil
        }
    }
}

/// A fault on one device.
public struct DeviceFault: Sendable, Equatable {
    /// What happens.
    public var kind: FaultKind
    /// The device it happens to.
    public var deviceID: String
    /// When it starts (virtual ms from the scenario start).
    public var start: Int64
    /// How long it lasts (virtual time).
    public var duration: Int64
    /// Probability per reading (duplicates, out-of-order, corrupt).
    public var probability: Double
    /// Corruption kind for `corrupt`.
    public var corruption: Corruption?
    /// Clock skew in ms (device clock ahead when positive).
    public var skew: Int64
    /// Battery level for `low-battery`, percent.
    public var level: Double
    /// 1-based line in the scenario file.
    public var line: Int

    /// A value with every field given.
    public init(
        kind: FaultKind,
        deviceID: String,
        start: Int64,
        duration: Int64,
        probability: Double = 1,
        corruption: Corruption? = nil,
        skew: Int64 = 0,
        level: Double = 8,
        line: Int = 0
    ) {
        self.kind = kind
        self.deviceID = deviceID
        self.start = start
        self.duration = duration
        self.probability = probability
        self.corruption = corruption
        self.skew = skew
        self.level = level
        self.line = line
    }

    /// End of the fault window.
    public var end: Int64 { start + duration }
    /// True when `t` falls inside the fault window.
    public func covers(_ t: Int64) -> Bool { t >= start && t < end }
}
