import Histogram
import RunRecord
import Traffic

/// What a scenario's verdict keeps, beside its checks, so that the verdicts of a sharded run's
/// parts can be merged into the verdict of the whole (``Verdict/merge(_:golden:scenario:)``): the
/// measured distributions themselves, and the tallies behind the checks that count over all patients.
package struct MergeInputs: Sendable, Codable {
    /// The measured latency distributions by path, the harness's own scheduling lag included (µs).
    package var histograms: [LatencyPath: Histogram<UInt64>] = [:]
    /// What each observed push channel delivered.
    package var pushed: [PushTally] = []
    /// The requests left without a final answer, and those answered only after retrying.
    package var lost = LostTally()
    /// The MQTT messages' fate beyond the broker (nil for a run without MQTT messages).
    package var mqtt: MQTTDelivery?
    /// The devices carried over a real BLE link, and how their readings fared.
    package var ble: BLELinkSummary?
    /// Expected rejections of readings carried over the BLE link (judged by their alerts only).
    package var rejectionsOverBLE = 0
    /// How long the end of the run waited for expected alerts that were still not listed.
    package var alertWait: String?
    /// The median usual alert-poll cycle (ms, ``AlertObservation/pollResolution``): how finely reading →
    /// alert latency is known (``LatencyPath/resolution(pollCycles:)``). Nil when the alerts were not polled.
    package var alertPollCycle: Double?
    /// How late the harness's own timer woke through the run (µs; ``RunObservation/hiccups``): what
    /// says whether failed budgets are the machine's (``Verdict/harnessStall(_:histograms:hiccups:allowance:)``).
    package var hiccups: Histogram<UInt64>?
    /// Scenario time (ms) of the request of each validation check's reading, by check name: the
    /// order of the unsharded run's validation checks.
    package var validationTimes: [String: Int64] = [:]
    /// Scenario time (ms) of each care-team action, by its check's name: the order of the unsharded
    /// run's care-action checks.
    package var careActionTimes: [String: Int64] = [:]
    /// Readings not sent because the conformance statement claims no reading of their kind, and the
    /// kinds of the corrupted ones among them (nil: none withheld).
    package var withheld: Int?
    package var withheldKinds: [String]?

    package init() {}
}

/// What one push channel delivered: the alert ids that arrived on it, and the repeated arrivals.
package struct PushTally: Sendable, Codable, Equatable {
    package var channel: PushChannel
    package var delivered: [String]
    package var repeats: Int

    package init(channel: PushChannel, delivered: [String], repeats: Int) {
        self.channel = channel
        self.delivered = delivered
        self.repeats = repeats
    }
}

/// Requests without a final answer (none, or 5xx), the first of them, and the requests answered
/// only after retrying.
package struct LostTally: Sendable, Codable, Equatable {
    package var count = 0
    /// Scenario time (ms) of the first lost request, and what is said of it.
    package var firstAt: Int64?
    package var first: String?
    package var retried = 0
    /// The longest wait of a retried request, in seconds.
    package var longestWait = 0.0

    package init() {}

    /// Adds another part's tally: the earlier first loss wins.
    package mutating func add(_ other: LostTally) {
        if let at = other.firstAt, firstAt.map({ at < $0 }) ?? true {
            firstAt = at
            first = other.first
        }
        count += other.count
        retried += other.retried
        longestWait = max(longestWait, other.longestWait)
    }
}

extension LostTally {
    /// The tally of a run's requests and their final outcomes (in plan order).
    package init(plan: [SentRequest], outcomes: [RequestOutcome]) {
        self.init()
        for (i, o) in outcomes.enumerated() {
            if o.status == nil || (o.status ?? 0) >= 500 {
                count += 1
                if first == nil {
                    let reason = o.error ?? "status \(o.status ?? 0)"
                    first = "\(i < plan.count ? plan[i].firstReading ?? "?" : "?"): \(reason)"
                    firstAt = i < plan.count ? plan[i].sendAt : nil
                }
            } else if o.attempts > 1 {
                retried += 1
                longestWait = max(longestWait, o.waited)
            }
        }
    }
}
