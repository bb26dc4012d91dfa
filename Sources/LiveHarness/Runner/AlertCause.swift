import Judge
import RunRecord
import Traffic

/// Which request of the plan an observed alert came from, for its reading → alert latency and its
/// span: the request that carried its last evidence reading. When the alert cites no evidence (a
/// profile without `evidence`), or cites only ids of the SUT's own making (the reference SUT names a
/// VitalEdge SDS heart-rate reading `PATIENT/iot-heart-rate/TIME`; another backend its database's ids),
/// the request is found by the alert's own time: the last request carrying a reading of its patient
/// stamped at `raisedAt` — by then every reading stamped then had been sent, one sent late after a
/// dropout too — else the first of its patient due at or after it. An alert of traffic sent alongside
/// (over a BLE link) whose evidence names no request is left to the caller (nil).
package final class AlertCause {
    let sent: [SentRequest]
    /// The request index of each evidence reading cited last.
    let carrier: [String: Int]
    let stamped: [DeviceTimeStamp: Int]
    /// Scenario time 0, Unix ms.
    let start: Int64
    /// Traffic goes alongside the plan (a BLE link): an alert the plan's evidence does not name may
    /// be the link's.
    let alongside: Bool
    /// Each patient's requests, made when an alert first needs them (a large run's plan is long).
    private lazy var byPatient: [String: [Int]] = {
        var out: [String: [Int]] = [:]
        for (index, request) in sent.enumerated() { out[request.patientID, default: []].append(index) }
        return out
    }()

    /// The cause finder of a run that sent `sent`: `evidence` the ids its alerts cite last, `stamped`
    /// the last request of each patient's device time (kept for a profile whose alerts cite none).
    package init(
        sent: [SentRequest],
        evidence: [String],
        stamped: [DeviceTimeStamp: Int] = [:],
        start: Int64,
        alongside: Bool
    ) {
        self.sent = sent
        carrier = SentRequest.carriers(of: evidence, in: sent).compactMapValues(\.first)
        self.stamped = stamped
        self.start = start
        self.alongside = alongside
    }

    /// The plan index of the request `alert` came from, if one can be told.
    package func request(of alert: ObservedAlert) -> Int? {
        if let last = alert.evidence.last, let i = carrier[last] { return i }
        if !alert.evidence.isEmpty, alongside { return nil }
        guard let requests = byPatient[alert.patientID] else { return nil }
        let due = alert.raisedAt - start
        return stamped[DeviceTimeStamp(patient: alert.patientID, time: due)]
            ?? requests.first { sent[$0].sendAt >= due }
    }
}

/// A patient's device time (scenario ms): the key of the last request carrying a reading stamped then.
package struct DeviceTimeStamp: Hashable, Sendable {
    package var patient: String
    package var time: Int64

    package init(patient: String, time: Int64) {
        self.patient = patient
        self.time = time
    }
}
