/// Readings a scenario dictates (`reading:` in the timeline): exact values at exact times for one
/// device, once or as a sequence (`count` readings `every` apart), optionally a ramp (`to`: the
/// values move linearly from `reading` to `to` over the sequence). While a script runs (from its
/// first reading to its last), the device's own measurements are replaced by the script's; its
/// other readings (battery, readings outside the window) are as without it.
public struct ScriptedReading: Sendable, Equatable {
    /// The device that reads them.
    public var deviceID: String
    /// The first reading's time (virtual ms).
    public var start: Int64
    /// The first reading's values, by field (`systolic`, `heart-rate`, `pulse`, …).
    public var values: [String: Double]
    /// The last reading's values for a ramp (same fields), else nil (every reading as `values`).
    public var to: [String: Double]?
    /// How many readings.
    public var count: Int
    /// Time between readings (ms).
    public var every: Int64
    /// 1-based line in the scenario file (a trace's reading: in the trace file).
    public var line: Int
    /// A CGM's trend (mg/dL/min) where the readings come from a trace rather than a ramp.
    public var trend: Double?

    /// A value with every field given.
    public init(
        deviceID: String,
        start: Int64,
        values: [String: Double],
        to: [String: Double]?,
        count: Int,
        every: Int64,
        line: Int
    ) {
        self.deviceID = deviceID
        self.start = start
        self.values = values
        self.to = to
        self.count = count
        self.every = every
        self.line = line
    }

    /// The fields of a device type's scripts: the required ones with their ranges, and optional ones.
    public typealias Fields = (
        required: [String], optional: [String: ClosedRange<Double>], ranges: [String: ClosedRange<Double>]
    )

    /// The last reading's time.
    public var end: Int64 { start + Int64(count - 1) * every }

    /// The `i`th reading's time.
    public func time(_ i: Int) -> Int64 { start + Int64(i) * every }

    /// How fast a ramp moves `field`, per minute (0 for a single reading or a constant sequence).
    public func slopePerMinute(_ field: String) -> Double {
        guard count > 1, let from = values[field], let to = to?[field] else { return 0 }
        return (to - from) / (Double(end - start) / 60_000)
    }

    /// The `i`th reading's time and values (a ramp's rounded to 0.001).
    public func reading(_ i: Int) -> (time: Int64, values: [String: Double]) {
        let time = time(i)
        guard let to, count > 1 else { return (time, values) }
        let fraction = Double(i) / Double(count - 1)
        var out = values
        for (k, v) in values { out[k] = ((v + ((to[k] ?? v) - v) * fraction) * 1000).rounded() / 1000 }
        return (time, out)
    }

    /// The fields a device type's script may set, with their ranges, and which are required; nil
    /// for a device whose readings cannot be scripted (symptom diary, ECG watch, equipment log).
    public static func fields(of type: DeviceType) -> Fields? {
        switch type {
        case .heartRateStrap, .phoneBridge: (["heart-rate"], [:], ["heart-rate": 20...300])
        case .bpCuff: (["systolic", "diastolic"], ["pulse": 20...300], ["systolic": 40...300, "diastolic": 20...200])
        case .glucometer: (["glucose"], [:], ["glucose": 10...1000])
        case .cgm: (["cgm"], [:], ["cgm": 40...400])
        case .pulseOximeter: (["spo2"], ["pulse": 20...300], ["spo2": 30...100])
        case .thermometer: (["temperature"], [:], ["temperature": 25...45])
        case .weightScale: (["weight"], [:], ["weight": 0.3...400])
        case .respirationMonitor: (["respiration-rate"], [:], ["respiration-rate": 2...100])
        case .feedingLog: (["feeding"], [:], ["feeding": 0...2000])
        case .symptomDiary, .ecgWatch, .equipmentLog: nil
        }
    }
}
