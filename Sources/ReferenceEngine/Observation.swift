import VitalSimCore

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

    /// An alert with every field given.
    public init(alertID: String, patientID: String, rule: String, severity: Severity, raisedAt: Int64, evidence: [String]) {
        self.alertID = alertID
        self.patientID = patientID
        self.rule = rule
        self.severity = severity
        self.raisedAt = raisedAt
        self.evidence = evidence
    }

    /// The contract's JSON.
    public var json: JSONValue {
        .object([("alertId", .string(alertID)), ("patientId", .string(patientID)), ("rule", .string(rule)), ("severity", .string(severity.rawValue)),
                 ("raisedAt", .string(CivilTime(unixMilliseconds: raisedAt).iso8601(fractional: true))),
                 ("evidence", .array(evidence.map { .string($0) }))])
    }
}
