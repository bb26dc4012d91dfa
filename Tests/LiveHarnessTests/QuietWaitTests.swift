import LiveHarness
import Testing

/// The end-of-run wait on virtual time: quiet after the last new observation, longer while expected
/// alerts are pending (announced once), bounded by the alert budget plus `--alert-wait`, never past
/// its limit, and short when the alert source cannot be read.
struct QuietWaitTests {
    /// Drives a wait every `interval` from 0 until it stops: `observations(t)` is the count seen at
    /// t, `pending(t)` whether expected alerts are pending then. Returns when it stopped and when it
    /// announced.
    static func run(
        _ wait: QuietWait,
        interval: Duration = .milliseconds(50),
        unusable: Bool = false,
        observations: (Duration) -> Int = { _ in 0 },
        pending: (Duration) -> Bool = { _ in false }
    ) -> (stopped: Duration?, announced: [Duration]) {
        var wait = wait
        var announced: [Duration] = []
        var elapsed = Duration.zero
        var isPending = false
        while elapsed < .seconds(3600) {
            if wait.observe(observations(elapsed), at: elapsed) { isPending = pending(elapsed) }
            switch wait.step(at: elapsed, pending: isPending, unusable: unusable) {
            case .stop: return (elapsed, announced)
            case .announce: announced.append(elapsed)
            case .poll: break
            }
            elapsed += interval
        }
        return (nil, announced)
    }

    @Test func testWithNothingExpectedItStopsOnceQuiet() {
        let result = Self.run(QuietWait(quiet: .seconds(2), bound: .zero))
        #expect(result.stopped == .seconds(2))
        #expect(result.announced.isEmpty)
    }

    @Test func testANewAlertStartsTheQuietPeriodAgain() {
        // A new alert at 1.5 s and one at 3 s: quiet 2 s after the last, at 5 s.
        let result = Self.run(QuietWait(quiet: .seconds(2), bound: .zero)) { t in
            t >= .seconds(3) ? 2 : t >= .milliseconds(1500) ? 1 : 0
        }
        #expect(result.stopped == .seconds(5))
    }

    @Test func testPendingAlertsAreWaitedForUpToTheBoundAndAnnouncedOnce() {
        let result = Self.run(QuietWait(quiet: .seconds(2), bound: .seconds(31)), pending: { _ in true })
        #expect(result.stopped == .seconds(31), "the reading → alert budget plus --alert-wait")
        #expect(result.announced == [.seconds(2)], "announced once, when quiet")
    }

    @Test func testTheWaitEndsWhenThePendingAlertArrives() {
        // The expected alert is listed at 7 s: nothing pending after it, quiet 2 s later.
        let result = Self.run(
            QuietWait(quiet: .seconds(2), bound: .seconds(31)),
            observations: { $0 >= .seconds(7) ? 1 : 0 },
            pending: { $0 < .seconds(7) }
        )
        #expect(result.stopped == .seconds(9))
        #expect(result.announced == [.seconds(2)])
    }

    @Test func testAnUnreadableSourceIsNotWaitedFor() {
        let result = Self.run(
            QuietWait(quiet: .seconds(2), bound: .seconds(31)),
            unusable: true,
            pending: { _ in true }
        )
        #expect(result.stopped == .seconds(2), "a misconfiguration: no alert can be listed, so none is awaited")
        #expect(result.announced.isEmpty)
    }

    @Test func testASourceThatNeverQuietensStopsAtTheLimit() {
        // A new observation every poll: never quiet.
        var count = 0
        let wait = QuietWait(quiet: .seconds(2), bound: .seconds(31))
        #expect(wait.limit == .seconds(60), "60 s, 3 × 2 s or 31 s + 2 s: the largest")
        let result = Self.run(wait) { _ in
            count += 1
            return count
        }
        #expect(result.stopped == .seconds(60))
        #expect(QuietWait(quiet: .seconds(30), bound: .zero).limit == .seconds(90))
        #expect(QuietWait(quiet: .seconds(2), bound: .seconds(100)).limit == .seconds(102))
    }
}
