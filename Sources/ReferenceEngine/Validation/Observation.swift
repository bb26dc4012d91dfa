import VitalSimCore

/// One validated reading as the reference SUT stores and judges it (by device time).
package struct Observation: Sendable, Equatable {
    package var readingID: String
    package var patientID: String
    package var deviceID: String
    /// Device time stamp, Unix ms.
    package var time: Int64
    /// Values by signal (a blood-pressure reading carries systolic and diastolic).
    package var values: [Signal: Double]
    /// RR intervals in seconds (heart-rate straps), oldest first.
    package var rrIntervals: [Double]

    package init(
        readingID: String,
        patientID: String,
        deviceID: String,
        time: Int64,
        values: [Signal: Double],
        rrIntervals: [Double] = []
    ) {
        self.readingID = readingID
        self.patientID = patientID
        self.deviceID = deviceID
        self.time = time
        self.values = values
        self.rrIntervals = rrIntervals
    }
}

/// An alert as the SUT contract defines it: `{alertId, patientId, rule, severity, raisedAt, evidence}`.
package struct Alert: Sendable, Equatable {
    package var alertID: String
    package var patientID: String
    package var rule: String
    package var severity: Severity
    /// Device time of the reading that raised it, Unix ms.
    package var raisedAt: Int64
    package var evidence: [String]

    /// An alert with every field given.
    package init(
        alertID: String,
        patientID: String,
        rule: String,
        severity: Severity,
        raisedAt: Int64,
        evidence: [String]
    ) {
        self.alertID = alertID
        self.patientID = patientID
        self.rule = rule
        self.severity = severity
        self.raisedAt = raisedAt
        self.evidence = evidence
    }

    /// The contract's JSON.
    package var json: JSONValue {
        .object([
            ("alertId", .string(alertID)), ("patientId", .string(patientID)), ("rule", .string(rule)),
            ("severity", .string(severity.rawValue)),
            ("raisedAt", .string(CivilTime(unixMilliseconds: raisedAt).iso8601(fractional: true))),
            ("evidence", .array(evidence.map { .string($0) })),
        ])
    }
}
