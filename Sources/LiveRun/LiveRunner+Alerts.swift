import Foundation
import Judge
import Wire

extension LiveRunner {
    /// The SUT's alert API.
    static let alertPath = "/api/v1/alerts"

    /// Polls the alert API until the run stops.
    func poll(_ shared: State) async {
        while !shared.withLock({ $0.stopped }) {
            await pollOnce(shared)
            try? await Task.sleep(for: pollInterval)
        }
    }

    /// One poll of the alert API: new alerts are recorded with the moment first seen; an answer that
    /// is not an alert list, and an alert the harness cannot read, are recorded in the run's health
    /// (a misconfiguration, never a clinical finding).
    func pollOnce(_ shared: State) async {
        let url = base + LiveRunner.alertPath
        let reply: HTTPReply
        do throws(HTTPTransportError) { reply = try await client.get(url, headers: headers) } catch {
            shared.withLock { $0.health.pollFailed("GET \(url) got no answer: \(error.reason)") }
            return
        }
        guard reply.status == 200 else {
            shared.withLock { $0.health.pollFailed("GET \(url) answered \(reply.status): \(RunHealth.excerpt(reply.body))") }
            return
        }
        guard let list = try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [[String: Any]] else {
            let problem = "GET \(url) answered 200 with a body that is not a JSON array of alerts: \(RunHealth.excerpt(reply.body))"
            shared.withLock { $0.health.pollFailed(problem) }
            return
        }
        let now = ContinuousClock.now
        shared.withLock { s in
            s.health.pollSucceeded()
            for json in list {
                switch ObservedAlert.read(json) {
                case .success(let alert):
                    guard s.firstSeen[alert.alertID] == nil else { continue }
                    s.firstSeen[alert.alertID] = (alert, now)
                    s.order.append(alert.alertID)
                case .failure(let why):
                    s.health.unreadable(why, in: json)
                }
            }
        }
    }

    /// After the last acknowledgement: waits until no new alert has appeared for `quiet` and, with
    /// `awaiting`, until every expected alert is listed or its bound has passed (announced once, and
    /// recorded for the findings of the alerts still missing).
    func waitForQuiet(_ shared: State, awaiting: AlertWait?) async {
        let start = ContinuousClock.now
        let bound = awaiting?.bound ?? .zero
        let deadline = start + max(.seconds(60), quiet * 3, bound + quiet)
        var count = -1
        var stableSince = start
        var pending: [GoldenFile.ExpectedAlert] = []
        var announced = false
        while ContinuousClock.now < deadline {
            await pollOnce(shared)
            // New alerts, and the SUT's verdicts on MQTT messages still coming in, keep the run waiting.
            let observed = shared.withLock { s in
                let n = s.order.count + s.mqttConfirmed.count + s.mqttRejections.count
                return n == count ? nil : (n, s.order.compactMap { s.firstSeen[$0]?.0 })
            }
            if let (n, observed) = observed {
                count = n
                stableSince = .now
                pending = awaiting?.pending(observed) ?? []
            }
            let now = ContinuousClock.now
            if now - stableSince >= quiet {
                // Nothing to wait for from an alert source that cannot be read (a misconfiguration, exit 3).
                let unreadable = shared.withLock { $0.health.polls == 0 || $0.health.unreadableCount > 0 }
                if pending.isEmpty || now - start >= bound || unreadable { break }
                if !announced, let awaiting {
                    note(
                        "waiting up to \(AlertWait.seconds(bound)) (\(awaiting.boundReason)) after the last answer for \(pending.count) expected alert(s) not yet listed: \(AlertWait.describe(pending))"
                    )
                    announced = true
                }
            }
            try? await Task.sleep(for: pollInterval)
        }
        // An unreadable alert source ends the run as a misconfiguration: no note about alerts it could not list.
        guard let awaiting, !shared.withLock({ $0.health.polls == 0 || $0.health.unreadableCount > 0 }) else { return }
        let waited = AlertWait.seconds(ContinuousClock.now - start)
        if pending.isEmpty {
            if announced { note("every expected alert is listed, \(waited) after the last answer") }
        } else {
            note("not listed within \(waited) after the last answer: \(AlertWait.describe(pending))")
            shared.withLock {
                $0.alertWait = "not listed within \(waited) after the last reading was answered (waited up to \(awaiting.boundReason))"
            }
        }
    }
}
