import Histogram
import Traffic

/// What one scenario's live run observed of the SUT, as the judge reads it: what became of the
/// traffic sent (``TrafficObservation``, the runner's sender), the alerts seen on the alert list and
/// the push channels (``AlertObservation``, the runner's alert observer), and what each conformance
/// area's probe observed after or during the run (``AreaObservations``).
package struct RunObservation: Sendable {
    /// How often the hiccup meter asks to wake.
    package static let hiccupInterval = Duration.milliseconds(10)

    package var traffic: TrafficObservation
    package var alerts: AlertObservation
    /// Each conformance area's own observation (stored data read back, the access matrix's probes,
    /// people's inboxes, the audit trail, …), by the type of what it observed.
    package var areas = AreaObservations()
    /// How late the harness's own timer woke through the run, µs (the runner's hiccup meter: a
    /// task that sleeps 10 ms again and again): stalls of the machine or the harness that nothing
    /// the SUT does can cause, which delay every request and every alert poll by as much.
    package var hiccups = Histogram<UInt64>.latency()
    /// A misconfiguration the run revealed (every request refused with 401/403/404, an outage that
    /// never ended, an alert source without a readable alert list, a read-back that failed): the run
    /// is an infrastructure failure, not a verdict on the SUT's clinical behaviour.
    package var misconfiguration: String?

    package init(traffic: TrafficObservation, alerts: AlertObservation) {
        self.traffic = traffic
        self.alerts = alerts
    }

    /// Whether a probe after the run may still ask the SUT anything: the run reached it and revealed
    /// no misconfiguration.
    package var reachedTheSUT: Bool { misconfiguration == nil && !traffic.unreachable }
}

/// What became of the traffic a run sent: each request's outcome, acknowledgement latency, the
/// harness's own lag, and the MQTT and BLE legs' fate beyond the first answer.
package struct TrafficObservation: Sendable {
    /// The requests sent, in plan order, without their bodies (a streamed plan is not kept whole).
    package var requests: [SentRequest] = []
    package var outcomes: [RequestOutcome]
    /// Reading → acknowledgement, µs from each reading's intended send time.
    package var ackLatency: Histogram<UInt64>
    /// How late the harness itself dispatched requests against the schedule, µs.
    package var schedulingLag: Histogram<UInt64>
    /// True when the SUT stopped answering (every retry failed).
    package var unreachable: Bool
    /// The MQTT messages' fate beyond the broker (nil for a run without MQTT messages).
    package var mqtt: MQTTDelivery?
    /// The devices carried over a real BLE link (`--ble hci`), and how their readings fared.
    package var ble: BLELinkSummary?
    /// The network the devices' traffic went through (`--network`), in words, and how much longer
    /// it lets each latency be (ms): the golden file's budgets are read against it.
    package var network: (summary: String, allowance: Double)?
    /// Readings not sent because the SUT's conformance statement claims no reading of their kind:
    /// how many, and the kind of each corrupted one by its id.
    package var withheld: (count: Int, corrupt: [String: String]) = (0, [:])
    /// False when the SUT publishes no refusals of MQTT readings (`mqtt.rejections: none`): the
    /// expected rejections of MQTT readings are then skipped rather than failed.
    package var refusesOverMQTT = true
    /// The trace context the run sent with its requests (nil: none).
    package var trace: RequestTrace?

    package init(
        outcomes: [RequestOutcome],
        ackLatency: Histogram<UInt64> = .latency(),
        schedulingLag: Histogram<UInt64> = .latency(),
        unreachable: Bool = false
    ) {
        self.outcomes = outcomes
        self.ackLatency = ackLatency
        self.schedulingLag = schedulingLag
        self.unreachable = unreachable
    }
}

/// The alerts a run saw: on the SUT's alert list (or its only push channel) and on each observed
/// push channel, with reading → alert latency and how finely it is known.
package struct AlertObservation: Sendable {
    /// Each alert as first seen, in the order seen.
    package var observed: [ObservedAlert]
    /// The plan index of the request each observed alert came from, when its evidence names none of
    /// the plan's readings (ids of the SUT's own, or none): found by the alert's time (the runner's
    /// `AlertCause`). The alert's trace is that request's.
    package var requests: [String: Int] = [:]
    /// Reading → alert, µs from the intended send time of the alert's last evidence reading to the poll
    /// that first saw it (for an alert citing no evidence, or only ids of the SUT's own: from the
    /// request of the alert's patient that its `raisedAt` points at, the runner's `AlertCause`).
    package var latency: Histogram<UInt64>
    /// What each push observer (`--observe`) saw.
    package var push: [PushDelivery] = []
    /// How long the end of the run waited for expected alerts that were still not listed, e.g. "not
    /// listed within 31 s after the last reading was answered (…)"; nil when none was missing.
    package var wait: String?
    /// The longest time from one alert poll's start to the next's: the poll interval (50 ms) unless
    /// reading the alert list took long enough to stretch it (the runner's poll pacing), and with it
    /// how finely reading → alert latency is known. Zero when the alerts were not polled.
    package var longestPollCycle: Duration = .zero
    /// How finely reading → alert latency is known when comparing runs: the median of the polls'
    /// usual cycles, each the pause after a poll and the fastest of the last few reads — the pacing's
    /// cycle, without a single read the machine held up (which ``longestPollCycle`` keeps), and
    /// without a moment of load that stretched a few pauses: most alerts were seen within it. Zero
    /// when the alerts were not polled.
    package var pollResolution: Duration = .zero
    /// False when the SUT's alerts do not say which readings raised them (a profile that maps no
    /// `evidence` field): the evidence check is then skipped rather than failed.
    package var citeEvidence = true

    package init(observed: [ObservedAlert], latency: Histogram<UInt64> = .latency(), push: [PushDelivery] = []) {
        self.observed = observed
        self.latency = latency
        self.push = push
    }
}
