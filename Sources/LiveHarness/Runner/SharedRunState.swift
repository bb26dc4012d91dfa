import Clocks
import Locking
import SUTAdapter

/// The run's ``RunState`` behind one lock, shared by the runner's tasks (a class, so that they share
/// the lock), with the moment the run began on the runner's clock: every moment handed to the state
/// is the time since then.
final class SharedRunState: Sendable {
    private let lock: Locked<RunState>
    /// When the run began, on the runner's clock.
    let epoch: AnyClock<Duration>.Instant
    /// For alerts on the SUT's clock: when each patient's requests were sent (nil: alerts are on
    /// device time).
    let alertClock: AlertClock?

    init(_ state: RunState, epoch: AnyClock<Duration>.Instant, alertClock: AlertClock?) {
        lock = Locked(state)
        self.epoch = epoch
        self.alertClock = alertClock
    }

    /// Runs `body` on the state, under the lock.
    func withLock<T: Sendable>(_ body: (inout RunState) -> T) -> T { lock.withLock { body(&$0) } }

    /// The time from the run's beginning to `moment`.
    func since(_ moment: AnyClock<Duration>.Instant) -> Duration { epoch.duration(to: moment) }

    /// The moment `offset` after the run's beginning.
    func moment(_ offset: Duration) -> AnyClock<Duration>.Instant { epoch.advanced(by: offset) }
}
