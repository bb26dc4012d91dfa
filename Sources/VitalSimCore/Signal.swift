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
    /// A logged feed, mL.
    case feeding
    /// A device's battery level, %.
    case battery
    /// Daily step count (VitalEdge summaries, FHIR 55423-8).
    case steps
    /// Daily active energy, kcal (VitalEdge summaries).
    case calories

    /// True for signals that describe the device rather than the patient (judged per device).
    public var isDeviceProperty: Bool { self == .battery }
}
