/// What libmosquitto's callbacks reach through the handle's user data: a weak reference to the
/// client.
///
/// The user-data pointer is to this target, not to the client, and it cannot dangle: the target is
/// owned by the client's ``MQTTNetworkLoop``; callbacks run only on the loop's thread, inside its
/// `run()`; and the handle is destroyed either at the end of `run()` or, after the loop's thread
/// has ended, by the client's `deinit` while it still holds the loop. A client that is being
/// deinitialized reads as nil (a weak reference), so no callback can resurrect it. The reference
/// is immutable (`weak let`): a callback reads it without a lock.
final class MQTTCallbackTarget: Sendable {
    /// The client, or nil once it is going away.
    weak let client: MQTTClient?

    init(_ client: MQTTClient) { self.client = client }
}
