/// What became of a run's MQTT messages beyond the broker's PUBACK: the SUT's own verdicts
/// (confirmations on `acks/{patientId}`, rejections on `errors/{patientId}`) and what the broker
/// reports having dropped.
package struct MQTTDelivery: Sendable, Equatable, Codable {
    /// Messages the broker acknowledged (PUBACK; QoS 0: sent).
    package var acknowledged = 0
    /// Of those, readings the SUT confirmed on `acks/{patientId}`.
    package var confirmed = 0
    /// Of those, readings the SUT rejected on `errors/{patientId}`.
    package var rejected = 0
    /// Acknowledged readings the SUT neither confirmed nor rejected (first ids, in plan order).
    package var unconfirmed: [String] = []
    /// How many were unconfirmed.
    package var unconfirmedCount = 0
    /// True when the SUT publishes confirmations at all (one seen during the run): only then does an
    /// unconfirmed reading mean it never reached the SUT.
    package var sutConfirms = false
    /// Messages the broker itself dropped (mosquitto's `$SYS/broker/publish/messages/dropped`, the
    /// embedded broker only): a subscriber's queue was full, so PUBACKed readings never reached it.
    package var brokerDropped: Int?

    /// How many unconfirmed ids are kept by name.
    package static let namedLimit = 5

    package init() {}
}
