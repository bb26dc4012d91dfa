/// How often each alert-poll cycle occurred, to the whole millisecond (rounded up): a run's polls
/// are counted in as many entries as they had distinct cycles, however long the run.
struct PollCycleTally: Sendable {
    private var counts: [Int64: Int] = [:]
    private var total = 0

    /// Counts one poll whose cycle was `cycle`.
    mutating func count(_ cycle: Duration) {
        let milliseconds = Int64(max(cycle / .milliseconds(1), 0).rounded(.up))
        counts[milliseconds, default: 0] += 1
        total += 1
    }

    /// The median cycle counted (the upper median for an even count); zero when none was.
    var median: Duration {
        guard total > 0 else { return .zero }
        var seen = 0
        for milliseconds in counts.keys.sorted() {
            seen += counts[milliseconds] ?? 0
            if seen * 2 > total { return .milliseconds(milliseconds) }
        }
        return .zero
    }
}
