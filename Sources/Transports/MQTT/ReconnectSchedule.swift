import Dispatch

/// When to try to reconnect a lost MQTT connection: at once (a connection a network cut is back on
/// the first try, as a phone's client reconnects), then after 1 s, 4 s and every 8 s —
/// libmosquitto's exponential schedule for reconnect delay 1 s, maximum 8 s. The schedule starts
/// again only once the broker has accepted a connection (its CONNACK, ``accepted()``): a broker that
/// takes the TCP connection and then refuses the client is not tried in a tight loop.
struct ReconnectSchedule {
    private var attempts = 0
    private var next: DispatchTime?

    /// Seconds before the attempt that follows `attempts` unanswered ones: 0, 1, 4, then 8.
    static func delay(after attempts: Int) -> Int { attempts == 0 ? 0 : min(8, attempts * attempts) }

    /// True when an attempt is due now; otherwise schedules the next one if none is.
    mutating func due(now: DispatchTime) -> Bool {
        if next == nil {
            next = now + .seconds(Self.delay(after: attempts))
            attempts += 1
        }
        guard let at = next, now >= at else { return false }
        next = nil
        return true
    }

    /// The broker accepted a connection: the next loss starts again with an attempt at once.
    mutating func accepted() { attempts = 0 }
}
