import RunRecord

/// A latency the harness measures, from each reading's intended send time (no coordinated omission).
/// Cases are in report order.
package enum LatencyPath: String, Sendable, CaseIterable, Comparable, Codable {
    /// Reading → acknowledgement (HTTP 2xx/4xx answer, or the broker's PUBACK).
    case readingToAck = "reading-to-ack"
    /// Reading → alert, as the alert API lists it (polled).
    case readingToAlert = "reading-to-alert"
    /// Reading → alert, as the SUT publishes it on MQTT (`--observe mqtt`).
    case readingToAlertMQTT = "reading-to-alert-mqtt"
    /// Reading → alert, as the SUT's Server-Sent Events stream delivers it (`--observe sse`).
    case readingToAlertSSE = "reading-to-alert-sse"
    /// Reading → alert, as the SUT POSTs it to the harness's webhook receiver (`--observe webhook`).
    case readingToAlertWebhook = "reading-to-alert-webhook"
    /// How late the harness itself dispatched requests against the schedule.
    case schedulingLag = "scheduling-lag"

    /// The reading → alert path of a push channel.
    package static func alert(via channel: PushChannel) -> LatencyPath {
        switch channel {
        case .sse: .readingToAlertSSE
        case .mqtt: .readingToAlertMQTT
        case .webhook: .readingToAlertWebhook
        }
    }

    /// The push channel a reading → alert path is measured on; nil for the other paths.
    package var channel: PushChannel? {
        switch self {
        case .readingToAlertSSE: .sse
        case .readingToAlertMQTT: .mqtt
        case .readingToAlertWebhook: .webhook
        case .readingToAck, .readingToAlert, .schedulingLag: nil
        }
    }

    /// How often the harness polls a SUT's alert API (ms): the resolution of reading → alert.
    package static let alertPollMilliseconds = 50

    /// The finest difference the harness can see on the path between two runs (ms): a polled alert is
    /// seen up to one poll cycle after the SUT listed it, and two runs' polls fall at different phases
    /// of their readings, so a shift smaller than the longer of the runs' cycles (`pollCycles`, ms:
    /// each run's ``MergeInputs/alertPollCycle``, longer when its alert list was slow to read; nil
    /// for a run that did not record one, which counts as ``alertPollMilliseconds``) can be the
    /// polling's alone. Zero for the paths that are not polled.
    package func resolution(pollCycles: Double?...) -> Double {
        guard self == .readingToAlert else { return 0 }
        return pollCycles.reduce(Double(Self.alertPollMilliseconds)) { max($0, $1 ?? 0) }
    }

    /// Paths a golden file may budget (the harness's own lag is reported, not budgeted).
    package static let budgetable = allCases.filter { $0 != .schedulingLag }

    /// Report order.
    package static func < (a: LatencyPath, b: LatencyPath) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
