import Dispatch

/// When to try to reconnect a lost MQTT connection: libmosquitto's schedule for reconnect delay
/// 1 s, maximum 8 s, exponential (delay × (attempt + 1)², capped).
struct ReconnectSchedule {
    private var attempts = 0
    private var next: DispatchTime?

    /// True when an attempt is due now; otherwise schedules the next one if none is.
    mutating func due(now: DispatchTime) -> Bool {
        if let at = next, now >= at {
            next = nil
            return true
        }
        if next == nil {
            next = now + .seconds(min(8, (attempts + 1) * (attempts + 1)))
            attempts += 1
        }
        return false
    }

    /// The connection is back: the next loss starts again at 1 s.
    mutating func succeeded() { attempts = 0 }
}
