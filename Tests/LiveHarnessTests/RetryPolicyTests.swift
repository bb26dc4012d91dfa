import LiveHarness
import Testing

/// Retries on virtual time: the backoff's waits, six attempts for a SUT that never answered, the
/// outage limit for one that did (a restart), measured from the first failure.
struct RetryPolicyTests {
    /// Attempts a request that always fails, attempt after attempt, the waits of the backoff between
    /// them, until the policy gives up; returns the attempts and when it gave up.
    static func failForever(_ policy: RetryPolicy, reachable: Bool) -> (attempts: Int, gaveUpAt: Duration) {
        var backoff = RetryPolicy.Backoff()
        var elapsed = Duration.zero
        var attempts = 0
        while attempts < 10_000 {
            attempts += 1
            if policy.givesUp(attempts: attempts, sinceFirstFailure: elapsed, reachable: reachable) { break }
            elapsed += backoff.next()
        }
        return (attempts, elapsed)
    }

    @Test func testTheBackoffDoublesFrom250MillisecondsTo4Seconds() {
        var backoff = RetryPolicy.Backoff()
        let waits = (0..<8).map { _ in backoff.next() }
        #expect(
            waits == [
                .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4), .seconds(4),
                .seconds(4),
            ]
        )
    }

    @Test func testASUTThatNeverAnsweredGetsSixAttempts() {
        let result = Self.failForever(RetryPolicy(outageLimit: .seconds(60)), reachable: false)
        #expect(result.attempts == 6)
        #expect(result.gaveUpAt == .milliseconds(7750), "250 + 500 + 1000 + 2000 + 4000 ms of waiting")
    }

    @Test(arguments: [10, 60, 300])
    func testASUTThatAnsweredBeforeIsRetriedForTheOutageLimit(_ seconds: Int) {
        let limit = Duration.seconds(seconds)
        let result = Self.failForever(RetryPolicy(outageLimit: limit), reachable: true)
        #expect(result.gaveUpAt >= limit, "never before the limit")
        #expect(result.gaveUpAt < limit + RetryPolicy.longestDelay, "at the first attempt past it")
        #expect(result.attempts > 6)
    }

    @Test func testAnAttemptWithinTheLimitIsNotGivenUp() {
        let policy = RetryPolicy(outageLimit: .seconds(60))
        #expect(!policy.givesUp(attempts: 100, sinceFirstFailure: .seconds(59), reachable: true))
        #expect(policy.givesUp(attempts: 2, sinceFirstFailure: .seconds(60), reachable: true))
        #expect(
            !policy.givesUp(attempts: 5, sinceFirstFailure: .seconds(600), reachable: false),
            "attempts, not time, before a first answer"
        )
    }
}
