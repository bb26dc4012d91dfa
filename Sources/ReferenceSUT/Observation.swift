import VitalSimCore

/// What the alert engine measures.
public enum Signal: String, Sendable, CaseIterable {
    case heartRate = "heart-rate"
    case systolic, diastolic
    /// Fingerstick or lab glucose, mg/dL.
    case glucose
    /// CGM glucose, mg/dL.
    case cgm
    case spo2
    case temperature
    case respirationRate = "respiration-rate"
    case weight
    /// A logged feed, mL.
    case feeding
    case battery
    /// Daily step count (VitalEdge summaries, FHIR 55423-8).
    case steps
    /// Daily active energy, kcal (VitalEdge summaries).
    case calories

    /// True for signals that describe the device rather than the patient (judged per device).
    public var isDeviceProperty: Bool { self == .battery }
}

/// One validated reading as the reference SUT stores and judges it (by device time).
public struct Observation: Sendable, Equatable {
    public var readingID: String
    public var patientID: String
    public var deviceID: String
    /// Device time stamp, Unix ms.
    public var time: Int64
    /// Values by signal (a blood-pressure reading carries systolic and diastolic).
    public var values: [Signal: Double]
    /// RR intervals in seconds (heart-rate straps), oldest first.
    public var rrIntervals: [Double]

    public init(readingID: String, patientID: String, deviceID: String, time: Int64, values: [Signal: Double], rrIntervals: [Double] = []) {
        self.readingID = readingID; self.patientID = patientID; self.deviceID = deviceID; self.time = time
        self.values = values; self.rrIntervals = rrIntervals
    }
}

/// An alert as the SUT contract defines it: `{alertId, patientId, rule, severity, raisedAt, evidence}`.
public struct Alert: Sendable, Equatable {
    public var alertID: String
    public var patientID: String
    public var rule: String
    public var severity: Severity
    /// Device time of the reading that raised it, Unix ms.
    public var raisedAt: Int64
    public var evidence: [String]

    /// The contract's JSON.
    public var json: JSONValue {
        .object([("alertId", .string(alertID)), ("patientId", .string(patientID)), ("rule", .string(rule)), ("severity", .string(severity.rawValue)),
                 ("raisedAt", .string(CivilTime(unixMilliseconds: raisedAt).iso8601(fractional: true))),
                 ("evidence", .array(evidence.map { .string($0) }))])
    }
}

/// Alert priorities (IEC 60601-1-8 categories).
public enum Severity: String, Sendable, CaseIterable {
    case low, medium, high
}
