/// What the engine knows of one device's readings for the data-gap rule: the latest device time and
/// its reading, how many readings came, and the intervals between distinct device times so far, whose
/// median says whether the device streams (docs/alert-rules.md, "dataGap").
struct DeviceActivity {
    var last: Int64
    var lastID: String
    var count = 0
    /// How many intervals of each length (ms) have been seen.
    var intervals: [Int64: Int] = [:]
    var intervalCount = 0

    /// A device sending interval lengths of more kinds than this (no scenario's device comes near)
    /// has the ones beyond left out of its median, so that its memory stays bounded.
    static let distinctIntervalLimit = 4096

    init(last: Int64, lastID: String) {
        self.last = last
        self.lastID = lastID
    }

    /// Takes a reading in arrival order: a device time later than every earlier one adds an interval.
    mutating func record(time: Int64, id: String) {
        if count > 0, time > last {
            let interval = time - last
            if intervals[interval] != nil || intervals.count < Self.distinctIntervalLimit {
                intervals[interval, default: 0] += 1
                intervalCount += 1
            }
        }
        count += 1
        if time >= last {
            last = time
            lastID = id
        }
    }

    /// Whether the device streams for a data-gap rule of `window`: at least five readings (fewer
    /// cannot tell a stream from a cuff's two readings a minute apart between battery reports), their
    /// median interval at most a third of the window.
    func streams(window: Int64) -> Bool {
        guard count >= 5, let median = medianInterval else { return false }
        return median * 3 <= window
    }

    /// The median interval so far (the upper one of an even count, as the oracle takes it), nil
    /// before the first.
    var medianInterval: Int64? {
        guard intervalCount > 0 else { return nil }
        var remaining = intervalCount / 2
        for length in intervals.keys.sorted() {
            let count = intervals[length] ?? 0
            if remaining < count { return length }
            remaining -= count
        }
        return nil
    }
}
