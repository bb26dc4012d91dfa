/// How a request or MQTT message is retried, decided on counts and elapsed time alone (no clock,
/// no sleep): transport errors, 429 and 503 are retried backing off 250 ms, doubling to 4 s; a SUT
/// that has never answered gets six attempts, one that answered before (a restart, an outage) is
/// retried for up to the outage limit (`--outage-limit`) from the first failure.
package struct RetryPolicy: Sendable {
    /// Attempts a SUT that has never answered gets.
    package static let attemptsBeforeFirstAnswer = 6
    /// The first wait between attempts; each next one doubles, up to ``longestDelay``.
    package static let firstDelay = Duration.milliseconds(250)
    /// The longest wait between attempts.
    package static let longestDelay = Duration.seconds(4)

    /// How long a SUT that answered before is retried, from the first failure.
    package var outageLimit: Duration

    /// - Parameter outageLimit: how long a SUT that answered before is retried, from the first failure.
    package init(outageLimit: Duration) {
        self.outageLimit = outageLimit
    }

    /// Whether to stop retrying.
    /// - Parameters:
    ///   - attempts: the attempts made so far.
    ///   - sinceFirstFailure: the time since the first failed attempt.
    ///   - reachable: whether the SUT has answered any request of the run before.
    package func givesUp(attempts: Int, sinceFirstFailure: Duration, reachable: Bool) -> Bool {
        reachable ? sinceFirstFailure >= outageLimit : attempts >= Self.attemptsBeforeFirstAnswer
    }

    /// The waits between attempts: 250 ms, 500 ms, 1 s, 2 s, then 4 s each.
    package struct Backoff: Sendable {
        private var delay = RetryPolicy.firstDelay

        /// A backoff at its first wait.
        package init() {}

        /// The next wait; the one after it is twice as long, up to ``RetryPolicy/longestDelay``.
        package mutating func next() -> Duration {
            defer { delay = min(delay * 2, RetryPolicy.longestDelay) }
            return delay
        }
    }
}
