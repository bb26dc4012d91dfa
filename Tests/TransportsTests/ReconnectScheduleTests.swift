import Dispatch
import Testing

@testable import Transports

/// When a lost MQTT connection is tried again: at once, then after 1 s, 4 s and every 8 s; only a
/// connection the broker accepted starts the schedule again.
@Suite struct ReconnectScheduleTests {
    /// The instants (seconds after the loss) at which attempts fall due, polled every 50 ms for `span`.
    static func attempts(_ schedule: inout ReconnectSchedule, from start: DispatchTime, span: Double) -> [Double] {
        var due: [Double] = []
        var time = 0.0
        while time <= span {
            if schedule.due(now: start + time) { due.append((time * 100).rounded() / 100) }
            time += 0.05
        }
        return due
    }

    @Test func aLostConnectionIsTriedAtOnceThenLessAndLessOften() {
        var schedule = ReconnectSchedule()
        let start = DispatchTime.now()
        // Every attempt fails (nothing accepted): at once, then 1 s, 4 s and 8 s after the one before
        // (the next is scheduled at the first poll after an attempt, 50 ms later here).
        let due = Self.attempts(&schedule, from: start, span: 30)
        #expect(due.first == 0 && due.count == 6, "\(due)")
        let gaps = zip(due.dropFirst(), due).map { $0 - $1 }
        #expect(
            gaps.count == 5
                && zip(gaps, [1.0, 4, 8, 8, 8]).allSatisfy { gap, expected in (0...0.11).contains(gap - expected) },
            "\(gaps)"
        )
        #expect((0...5).map(ReconnectSchedule.delay(after:)) == [0, 1, 4, 8, 8, 8])
    }

    @Test func onlyAnAcceptedConnectionStartsTheScheduleAgain() {
        var schedule = ReconnectSchedule()
        let start = DispatchTime.now()
        let first = schedule.due(now: start)
        // The TCP connection was taken but the broker refused the client: no attempt at once.
        let refused = schedule.due(now: start + 0.5)
        let second = schedule.due(now: start + 1.0)
        let tooSoon = schedule.due(now: start + 1.0)
        let later = schedule.due(now: start + 1.5)
        #expect(
            first && !refused && !second && !tooSoon && later,
            "the second attempt falls 1 s after the poll that found none"
        )
        // The broker accepted the next one; when it is lost again, the first attempt is at once.
        schedule.accepted()
        let again = schedule.due(now: start + 60)
        #expect(again)
    }
}
