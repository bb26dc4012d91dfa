/// What a run needs of an MQTT 5 connection that is already up: publishing (awaiting the broker's
/// acknowledgement, or pipelined with a callback), the messages of its subscriptions, and a clean
/// end. ``MQTTClient`` is libmosquitto's; a test injects one that answers in memory, so that the
/// runner's publishing, retries and verdict collection are tested without a broker.
package protocol MQTTSession: AnyObject, Sendable {
    /// Messages received on the session's subscriptions, until ``disconnect()``.
    var messages: AsyncStream<MQTTMessage> { get }

    /// Publishes; for QoS 1 and 2 returns once the broker has acknowledged. Throws a failed or
    /// refused publish, or no acknowledgement within `timeout` seconds.
    func publish(_ message: MQTTMessage, timeout: Double) async throws(MQTTError)

    /// Publishes without waiting: `acknowledged` is called once with the broker's reason code (below
    /// 0x80 success, -1 when no acknowledgement came within `timeout` seconds). Throws when the
    /// message could not even be queued; `acknowledged` is then never called.
    func publish(
        _ message: MQTTMessage,
        timeout: Double,
        acknowledged: @escaping @Sendable (Int32) -> Void
    ) throws(MQTTError)

    /// Ends the session: no more messages, publishes or acknowledgements.
    func disconnect()
}

extension MQTTSession {
    /// Publishes, waiting at most 10 s for the acknowledgement.
    package func publish(_ message: MQTTMessage) async throws(MQTTError) {
        try await publish(message, timeout: 10)
    }

    /// Publishes without waiting, an acknowledgement expected within 10 s.
    package func publish(
        _ message: MQTTMessage,
        acknowledged: @escaping @Sendable (Int32) -> Void
    ) throws(MQTTError) {
        try publish(message, timeout: 10, acknowledged: acknowledged)
    }
}

extension MQTTClient: MQTTSession {}
