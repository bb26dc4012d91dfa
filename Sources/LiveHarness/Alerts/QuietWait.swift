/// When the wait after a run's last answer ends, decided on elapsed time alone (no clock, no sleep):
/// the alert source is polled until no new observation (alert, MQTT confirmation or refusal) has come
/// for `quiet` (`--settle`) and, while expected alerts are still pending, until `bound` (the reading →
/// alert budget plus `--alert-wait`) has passed since the last answer; never longer than ``limit``.
/// A source that cannot be read ends the wait as soon as it is quiet (a misconfiguration, exit 3).
package struct QuietWait: Sendable {
    /// What the waiting loop does next.
    package enum Step: Equatable, Sendable {
        /// Poll again after the poll interval.
        case poll
        /// Say once that expected alerts are still awaited, then poll again.
        case announce
        /// Stop waiting.
        case stop
    }

    /// How long without a new observation counts as quiet.
    package let quiet: Duration
    /// How long pending expected alerts are waited for, from the last answer.
    package let bound: Duration
    /// The number of observations last seen (-1 before the first poll).
    package private(set) var lastCount = -1
    /// Whether the pending alerts were announced.
    package private(set) var announced = false
    private var stableSince: Duration = .zero

    /// - Parameters:
    ///   - quiet: how long without a new observation counts as quiet.
    ///   - bound: how long pending expected alerts are waited for (zero: not at all).
    package init(quiet: Duration, bound: Duration) {
        self.quiet = quiet
        self.bound = bound
    }

    /// The longest wait whatever arrives: 60 s, three times `quiet`, or `bound` plus `quiet`, the largest.
    package var limit: Duration { max(.seconds(60), quiet * 3, bound + quiet) }

    /// Records the number of observations seen at `elapsed`; returns true when it changed (the
    /// quiet period starts again, and the caller re-reads which expected alerts are pending).
    package mutating func observe(_ count: Int, at elapsed: Duration) -> Bool {
        guard count != lastCount else { return false }
        lastCount = count
        stableSince = elapsed
        return true
    }

    /// What to do at `elapsed`, after an observation.
    /// - Parameters:
    ///   - pending: whether expected alerts are not yet listed.
    ///   - unusable: whether the alert source cannot be read (evaluated only once quiet with alerts pending).
    package mutating func step(at elapsed: Duration, pending: Bool, unusable: @autoclosure () -> Bool) -> Step {
        guard elapsed < limit else { return .stop }
        guard elapsed - stableSince >= quiet else { return .poll }
        if !pending || elapsed >= bound || unusable() { return .stop }
        guard !announced else { return .poll }
        announced = true
        return .announce
    }
}
