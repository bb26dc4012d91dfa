import Synchronization

/// A sliding window of sends awaiting their acknowledgement: ``acquire()`` suspends while `limit`
/// are outstanding, ``release()`` (from any thread, e.g. libmosquitto's) frees a place, ``drain()``
/// waits until none is outstanding. Pipelined MQTT publishes use it to keep a bounded number in
/// flight (MQTT message ids are 16-bit) without awaiting each acknowledgement.
public final class SendWindow: Sendable {
    struct State {
        var outstanding = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        var drainers: [CheckedContinuation<Void, Never>] = []
    }

    public let limit: Int
    let state = Mutex(State())

    public init(limit: Int) { self.limit = max(1, limit) }

    /// Takes a place, waiting for one when the window is full.
    public func acquire() async {
        let full = state.withLock { s -> Bool in
            if s.outstanding < limit { s.outstanding += 1; return false }
            return true
        }
        guard full else { return }
        await withCheckedContinuation { c in
            let now = state.withLock { s -> Bool in
                // A place may have been freed meanwhile.
                if s.outstanding < limit { s.outstanding += 1; return true }
                s.waiters.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    /// Frees a place (handing it straight to a waiting sender, if any).
    public func release() {
        let (next, drained) = state.withLock { s -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            if !s.waiters.isEmpty { return (s.waiters.removeFirst(), []) }
            s.outstanding -= 1
            if s.outstanding == 0 { defer { s.drainers = [] }; return (nil, s.drainers) }
            return (nil, [])
        }
        next?.resume()
        for d in drained { d.resume() }
    }

    /// Waits until nothing is outstanding.
    public func drain() async {
        await withCheckedContinuation { c in
            let done = state.withLock { s -> Bool in
                if s.outstanding == 0 { return true }
                s.drainers.append(c)
                return false
            }
            if done { c.resume() }
        }
    }
}
