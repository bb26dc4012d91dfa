/// How often the alert list is read: every ``interval`` (50 ms), or ``pauseFactor`` times the
/// shortest of the last ``recentCount`` reads when that is longer — a list that is slow to read
/// every time is read less often, while one slow read (the harness or the SUT held up a moment)
/// changes nothing — but at most ``longestPause`` (a quarter of the golden file's tightest reading →
/// alert limit), so that the polling never blurs a budget. It keeps the longest cycle and counts
/// each usual cycle (the pause and the fastest recent read): reading → alert latency is known to
/// within the run's median usual cycle (``resolution``).
struct PollPacing: Sendable {
    /// A poll's pause ≥ this many times as long as the polls take: reading the alert list keeps the
    /// SUT busy at most a fifth of the time, however long the list grows. Ten shards each reading a
    /// list of 1,200 alerts every 50 ms (each read 0.3 s against the reference SUT on two cores) left
    /// it 56 % of its CPU rendering alert lists, and the run fell 23 minutes behind its readings.
    static let pauseFactor = 4
    /// How many of the latest polls the pause looks at.
    static let recentCount = 4

    /// The pause between polls of a list that is quick to read.
    let interval: Duration
    /// The longest pause: a quarter of the golden file's tightest reading → alert limit (nil: no
    /// limit, the pause is bounded only by ``pauseFactor``).
    let longestPause: Duration?
    /// The longest time from one poll's start to the next's.
    private(set) var longestCycle: Duration = .zero
    /// The longest pause chosen.
    private(set) var longestPauseTaken: Duration = .zero
    private var usualCycles = PollCycleTally()
    /// How long the last few polls took, the latest last.
    private var recent: [Duration] = []

    /// Pacing at `interval`, its pauses never longer than a quarter of `tightestLimit` (the golden
    /// file's tightest reading → alert limit; nil or zero: none).
    init(interval: Duration, tightestLimit: Duration?) {
        self.interval = interval
        if let tightestLimit, tightestLimit > .zero {
            longestPause = max(interval, tightestLimit / 4)
        } else {
            longestPause = nil
        }
    }

    /// The pause after a poll that took `took`; a source that is only pushed (`counted` false) is
    /// never read, so its pauses are not counted as poll cycles.
    mutating func pause(after took: Duration, counted: Bool = true) -> Duration {
        recent.append(took)
        if recent.count > Self.recentCount { recent.removeFirst() }
        let fastest = recent.min() ?? took
        var pause = max(interval, fastest * Self.pauseFactor)
        if let longestPause { pause = min(pause, longestPause) }
        guard counted else { return pause }
        longestCycle = max(longestCycle, took + pause)
        usualCycles.count(fastest + pause)
        longestPauseTaken = max(longestPauseTaken, pause)
        return pause
    }

    /// How finely reading → alert latency is known: the median usual cycle (zero when nothing was polled).
    var resolution: Duration { usualCycles.median }
}
