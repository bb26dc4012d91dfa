import Locking

/// A sliding window of sends awaiting their acknowledgement: ``acquire()`` suspends while `limit`
/// are outstanding, ``release()`` (from any thread, e.g. libmosquitto's) frees a place, ``drain()``
/// waits until none is outstanding. Pipelined MQTT publishes use it to keep a bounded number in
/// flight (MQTT message ids are 16-bit) without awaiting each acknowledgement. With `resumeAt`
/// below `limit - 1`, a full window wakes its sender only once that few are outstanding, so that a
/// sender faster than the acknowledgements is woken once per batch rather than once per message.
package final class SendWindow: Sendable {
    struct State {
        var outstanding = 0
        /// Set when the window fills; cleared once no more than `resumeAt` are outstanding.
        var full = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var drainers: [CheckedContinuation<Void, Never>] = []
    }

    package let limit: Int
    /// Waiting senders are woken once no more than this many are outstanding.
    package let resumeAt: Int
    let state = Locked(State())

    package init(limit: Int, resumeAt: Int? = nil) {
        self.limit = max(1, limit)
        self.resumeAt = min(max(0, resumeAt ?? self.limit - 1), self.limit - 1)
    }

    /// Takes a place, waiting for one when the window is full.
    package func acquire() async {
        let wait = state.withLock { s -> Bool in
            if s.full { return true }
            take(&s)
            return false
        }
        guard wait else { return }
        await withCheckedContinuation { c in
            let now = state.withLock { s -> Bool in
                // Places may have been freed meanwhile.
                if !s.full {
                    take(&s)
                    return true
                }
                s.waiters.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    /// Frees a place (handing places to waiting senders once no more than `resumeAt` are outstanding).
    package func release() {
        let (woken, drained) = state.withLock {
            s -> ([CheckedContinuation<Void, Never>], [CheckedContinuation<Void, Never>]) in
            s.outstanding -= 1
            if s.full, s.outstanding <= resumeAt { s.full = false }
            var woken: [CheckedContinuation<Void, Never>] = []
            while !s.full, !s.waiters.isEmpty {
                woken.append(s.waiters.removeFirst())
                take(&s)
            }
            if s.outstanding == 0 {
                defer { s.drainers = [] }
                return (woken, s.drainers)
            }
            return (woken, [])
        }
        for w in woken { w.resume() }
        for d in drained { d.resume() }
    }

    /// Takes a place; the window is full once `limit` are outstanding.
    func take(_ state: inout State) {
        state.outstanding += 1
        if state.outstanding >= limit { state.full = true }
    }

    /// Waits until nothing is outstanding.
    package func drain() async {
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
