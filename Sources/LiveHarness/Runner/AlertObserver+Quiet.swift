import Clocks
import Foundation
import Judge
import RunRecord
import SUTAdapter

extension AlertObserver {
    /// After the last acknowledgement: waits until no new alert has appeared for `quiet` and, with
    /// `awaiting`, until every expected alert is listed or its bound has passed (announced once, and
    /// recorded for the findings of the alerts still missing). It polls once `pollerStopped` has
    /// ended: the poller's read under way, and its pause after it, come first, so the SUT is never
    /// read twice at once and the pacing holds across the hand-over.
    func waitForQuiet(_ shared: SharedRunState, awaiting: AlertWait?, after pollerStopped: AsyncStream<Never>) async {
        shared.withLock { $0.beginQuietWait() }
        for await _ in pollerStopped {}
        let start = clock.now
        var wait = QuietWait(quiet: quiet, bound: awaiting?.bound ?? .zero)
        var pending: [GoldenFile.ExpectedAlert] = []
        polling: while clock.now - start < wait.limit {
            let began = clock.now
            await pollOnce(shared)
            let took = clock.now - began
            let pause = shared.withLock { $0.pacing.pause(after: took, counted: source.polls) }
            if shared.withLock({ $0.health.boundReached != nil }) { return }
            // New alerts, and the SUT's verdicts on MQTT messages still coming in, keep the run waiting.
            let last = wait.lastCount
            let observed = shared.withLock { state in
                state.observations == last ? nil : (state.observations, state.listed)
            }
            if let (count, alerts) = observed, wait.observe(count, at: clock.now - start) {
                pending = awaiting?.pending(alerts) ?? []
            }
            switch wait.step(at: clock.now - start, pending: !pending.isEmpty, unusable: unusable(shared)) {
            case .stop: break polling
            case .announce:
                if let awaiting {
                    note(
                        "waiting up to \(AlertWait.seconds(wait.bound)) (\(awaiting.boundReason)) after the last answer for \(pending.count) expected alert(s) not yet listed: \(AlertWait.describe(pending))"
                    )
                }
            case .poll: break
            }
            try? await clock.sleep(for: pause)
        }
        let announced = wait.announced
        // An unreadable alert source ends the run as a misconfiguration: no note about alerts it could not list.
        guard let awaiting, !unusable(shared) else { return }
        let waited = AlertWait.seconds(clock.now - start)
        if pending.isEmpty {
            if announced { note("every expected alert is listed, \(waited) after the last answer") }
        } else {
            note("not listed within \(waited) after the last answer: \(AlertWait.describe(pending))")
            shared.withLock {
                $0.alertsMissing(
                    "not listed within \(waited) after the last reading was answered (waited up to \(awaiting.boundReason))"
                )
            }
        }
    }

    /// An alert source that only pushes, misconfigured: it pushed messages the harness cannot read,
    /// or nothing at all while the golden file expects alerts and the channel was never `proven` to
    /// reach the harness.
    func pushProblem(_ result: RunObservation, awaiting: AlertWait?, proven: Bool = false) -> String? {
        guard let channel = source.pushOnly, let delivery = result.alerts.push.first(where: { $0.kind == channel })
        else {
            return nil
        }
        let contract = auth.contract.summary()
        if contract.unreadable > 0 {
            return
                "the SUT pushed \(contract.unreadable) message(s) on \(channel.rawValue) that are not alerts the harness can read (check alerts.fields and alerts.push.item of the SUT profile); first: \(contract.firstUnreadable ?? "")"
        }
        let arrived = delivery.delivered.count + delivery.repeats + contract.outsideRun
        guard arrived == 0, !proven, let awaiting, !awaiting.expected.isEmpty else { return nil }
        let there: String
        switch channel {
        case .webhook:
            there =
                "to the webhook receiver (its URL is printed at the start; fix its port with \(names[.webhookPort]))"
        case .sse: there = "on its SSE stream (alerts.push.sse)"
        case .mqtt: there = "under the MQTT topic filter alerts.push.mqtt-topic (\(source.push.mqttTopic))"
        }
        let refused =
            contract.pushRefused == 0
            ? ""
            : "; \(contract.pushRefused) POST(s) were refused as not the SUT's (first: \(contract.firstPushRefused ?? "")): the URL ends with the receiver's key ({{webhook}} in an enrolment template; alerts.webhook.key-env fixes it)"
        return
            "no alert arrived on \(channel.rawValue) during the run although the golden file expects \(awaiting.expected.count): check that the SUT pushes its alerts \(there)"
            + refused
    }
}
