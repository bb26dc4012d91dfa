import Locking

/// What libmosquitto's callbacks reach through the handle's user data: a weak reference to the
/// client.
///
/// The user-data pointer is to this target, not to the client, and it cannot dangle: the target is
/// owned by the client's ``MQTTNetworkLoop``; callbacks run only on the loop's thread, inside its
/// `run()`; and the handle is destroyed either at the end of `run()` or, after the loop's thread
/// has ended, by the client's `deinit` while it still holds the loop. A client that is being
/// deinitialized reads as nil (a weak reference), so no callback can resurrect it.
final class MQTTCallbackTarget: Sendable {
    private struct Reference: Sendable {
        weak var client: MQTTClient?
    }

    private let reference = Locked(Reference())

    /// Points the callbacks at `client` (once it is fully initialized).
    func attach(_ client: MQTTClient) { reference.withLock { $0.client = client } }

    /// The client, or nil before ``attach(_:)`` and once it is going away.
    var client: MQTTClient? { reference.withLock { $0.client } }
}
