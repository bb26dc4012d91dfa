import Clocks
import Foundation
import Locking

/// A test clock (swift-clocks' `TestClock`) that knows what its sleepers are doing, so that a test
/// moves time only when the code under test has caught up: it tracks the deadlines of the pending
/// sleeps and the tasks a wake-up has set running that have not slept again. A retry's backoff
/// then starts at the virtual time of the answer that caused it, however long the loaded machine
/// took to run the woken task, instead of a step later.
final class SteppedClock: Clock, Sendable {
    typealias Instant = TestClock<Duration>.Instant

    /// The clock the sleeps go to and the tests read.
    let base: TestClock<Duration>
    private let state = Locked(State())

    private struct State {
        var pending: [Int: Instant] = [:]
        var nextID = 0
        /// The tasks (by their hash) woken by the clock that have not slept on it again.
        var woken: Set<Int> = []
    }

    init(_ base: TestClock<Duration>) {
        self.base = base
    }

    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let task = Self.currentTask()
        let id = state.withLock { s in
            s.woken.remove(task)
            s.nextID += 1
            s.pending[s.nextID] = deadline
            return s.nextID
        }
        do {
            try await base.sleep(until: deadline, tolerance: tolerance)
            state.withLock { s in
                s.pending[id] = nil
                s.woken.insert(task)
            }
        } catch {
            state.withLock { s in s.pending[id] = nil }
            throw error
        }
    }

    /// Moves time one step: once every task the last step woke has slept again (a task still
    /// running after `patience` of real time is taken as done with the clock) and a sleep is
    /// pending, to the earliest pending deadline, at most `step` ahead.
    func step(by step: Duration, patience: Duration = .milliseconds(50)) async {
        let giveUp = ContinuousClock.now + patience
        while ContinuousClock.now < giveUp {
            let settled = state.withLock { s in s.woken.isEmpty && !s.pending.isEmpty }
            if settled { break }
            try? await Task.sleep(for: .milliseconds(1))
        }
        // Work handed to another task (a worker's queue) gets a moment too, as it did before.
        try? await Task.sleep(for: .milliseconds(2))
        let next = state.withLock { s in
            s.woken.removeAll()
            return s.pending.values.min()
        }
        let limit = base.now.advanced(by: step)
        await base.advance(to: next.map { min($0, limit) } ?? limit)
    }

    private static func currentTask() -> Int {
        withUnsafeCurrentTask { $0?.hashValue } ?? 0
    }
}
