/// A patient's own limit for one signal of one alert rule, replacing the rule's value for that
/// patient only (the IoT-AI SRS: a provider "can set custom alert thresholds for a patient's vital
/// signs"). The rule's comparison operator, persistence and re-arm margin stay as they are.
public struct ThresholdOverride: Sendable, Equatable {
    /// The rule id, e.g. `hr.tachycardia`.
    public var rule: String
    /// The signal whose limit changes (a blood-pressure rule has two).
    public var signal: Signal
    /// The limit, in the signal's unit (``Signal/ucum``).
    public var value: Double
    /// Where a scenario sets it (1-based line; 0 when it comes from elsewhere).
    public var line = 0

    /// A value with every field given.
    public init(rule: String, signal: Signal, value: Double, line: Int = 0) {
        self.rule = rule
        self.signal = signal
        self.value = value
        self.line = line
    }

    /// The vital-sign threshold rules a patient can have their own limits for (the rules of
    /// docs/alert-rules.md that compare single readings with a limit), and the heart-rate
    /// fluctuation rule that only a patient's own limit turns on, with the signals each compares
    /// and the profiles it applies to. Rate, trend, change, intake, rhythm, score and technical
    /// rules keep their limits.
    public static let rules: [(id: String, signals: [Signal], profiles: Set<Profile>)] = [
        ("hr.tachycardia", [.heartRate], [.adult, .diabeticCGM, .copd]),
        ("hr.bradycardia", [.heartRate], [.adult, .diabeticCGM, .copd]),
        ("bp.hypertensive-crisis", [.systolic, .diastolic], [.adult, .diabeticCGM, .copd]),
        ("bp.stage2-sustained", [.systolic, .diastolic], [.adult, .diabeticCGM, .copd]),
        ("temp.fever", [.temperature], Set(Profile.allCases)),
        ("spo2.low", [.spo2], [.adult, .diabeticCGM]),
        ("spo2.below-copd-target", [.spo2], [.copd]),
        ("glucose.level1-low", [.cgm], [.diabeticCGM]),
        ("glucose.level2-low", [.cgm], [.diabeticCGM]),
        ("glucose.urgent-low", [.cgm], [.diabeticCGM]),
        ("glucose.level2-high", [.cgm], [.diabeticCGM]),
        ("glucose.meter-level2-low", [.glucose], [.adult, .diabeticCGM, .copd]),
        ("infant.spo2-low", [.spo2], [.chdInfant]),
        ("infant.spo2-high", [.spo2], [.chdInfant]),
        ("hr.fluctuation", [.heartRate], [.adult, .diabeticCGM, .copd]),
    ]

    /// The limits a patient's own limit may take, in the signal's unit: wide enough for any
    /// clinical choice, narrow enough to catch a unit mistake (°F, mmol/L).
    public static func range(of signal: Signal) -> ClosedRange<Double> {
        switch signal {
        case .heartRate: 20...250
        case .systolic: 60...260
        case .diastolic: 30...160
        case .temperature: 34...43
        case .spo2: 50...100
        case .glucose, .cgm: 40...400
        default: 0...Double.greatestFiniteMagnitude
        }
    }

    /// The limits `rule`'s own limit for `signal` may take: a fluctuation limit is a spread of
    /// 3–50 /min, every other limit the signal's ``range(of:)``.
    public static func range(of signal: Signal, rule: String) -> ClosedRange<Double> {
        rule == "hr.fluctuation" ? 3...50 : range(of: signal)
    }

    /// `{"hr.tachycardia":{"heart-rate":120},…}`: rules and signals in the order given.
    public static func json(_ overrides: [ThresholdOverride]) -> JSONValue {
        var rules: [String] = []
        for o in overrides where !rules.contains(o.rule) { rules.append(o.rule) }
        return .object(
            rules.map { rule in
                (rule, .object(overrides.filter { $0.rule == rule }.map { ($0.signal.rawValue, .double($0.value)) }))
            }
        )
    }
}
