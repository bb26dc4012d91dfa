import Histogram

/// A push channel a SUT delivers alerts on (`vitalsim run --observe`).
package enum PushChannel: String, Sendable, CaseIterable, Codable {
    /// `GET /api/v1/alerts/stream` (Server-Sent Events, resumed with Last-Event-ID).
    case sse
    /// MQTT `alerts/{patientId}` on the broker the SUT publishes to.
    case mqtt
    /// Alerts POSTed by the SUT to the harness's webhook receiver.
    case webhook
}

/// What one push observer saw: the alert ids that arrived, and how many arrivals repeated an id.
package struct PushDelivery: Sendable {
    package var kind: PushChannel
    /// The ids of the alerts that arrived at least once.
    package var delivered: Set<String> = []
    package var alerts: [String: ObservedAlert] = [:]
    package var repeats = 0
    /// Reading → alert as delivered on this channel, µs.
    package var latency = Histogram<UInt64>.latency()

    package init(kind: PushChannel) { self.kind = kind }
}

extension Histogram where Count == UInt64 {
    /// A latency histogram in microseconds: up to one hour, three significant digits.
    package static func latency() -> Histogram<UInt64> {
        Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    }
}
