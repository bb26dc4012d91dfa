import Clocks
import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import Transports

extension LiveRunner {
    /// Polls the alert source until the run stops.
    func poll(_ shared: State) async {
        guard alertSource.pushOnly == nil else { return }
        // Past a bound the SUT's answers passed, polling on would only read them again.
        // Until the run stops, or the wait for quiet at its end takes the polling over.
        while !shared.withLock({ $0.stopped || $0.quietWait || $0.health.boundReached != nil }) {
            let began = clock.now
            await pollOnce(shared)
            try? await clock.sleep(for: pollPause(after: clock.now - began, shared))
        }
    }

    /// A poll's pause ≥ this many times as long as the polls take: reading the alert list keeps the
    /// SUT busy at most a fifth of the time, however long the list grows. Ten shards each reading a
    /// list of 1,200 alerts every 50 ms (each read 0.3 s against the reference SUT on two cores) left
    /// it 56 % of its CPU rendering alert lists, and the run fell 23 minutes behind its readings.
    static let pollPauseFactor = 4
    /// How many of the latest polls ``pollPause(after:_:)`` looks at.
    static let recentPollCount = 4

    /// The pause after a poll that took `took`: ``pollInterval``, or ``pollPauseFactor`` times the
    /// shortest of the last ``recentPollCount`` polls when that is longer — a list that is slow to
    /// read every time is read less often; one slow read (the harness or the SUT held up a moment)
    /// changes nothing — but at most a quarter of the golden file's tightest reading → alert limit,
    /// so that the polling never blurs a budget. The longest cycle is recorded, and each usual cycle
    /// (the pause and the fastest recent read) is counted: reading → alert latency is known to
    /// within the run's median usual cycle (``RunObservation/pollResolution``).
    func pollPause(after took: Duration, _ shared: State) -> Duration {
        shared.withLock { s in
            s.recentPolls.append(took)
            if s.recentPolls.count > Self.recentPollCount { s.recentPolls.removeFirst() }
            let fastest = s.recentPolls.min() ?? took
            var pause = max(pollInterval, fastest * Self.pollPauseFactor)
            if let longest = s.longestPollPause { pause = min(pause, longest) }
            // A push-only source is never read: the wait for quiet only paces its checks.
            guard alertSource.pushOnly == nil else { return pause }
            s.longestPollCycle = max(s.longestPollCycle, took + pause)
            s.usualPollCycles.count(fastest + pause)
            s.longestPause = max(s.longestPause, pause)
            return pause
        }
    }

    /// One read of the alert source (every page): new alerts are recorded with the moment first
    /// seen; an answer that is not an alert list, and alerts the harness cannot read, are recorded in
    /// the run's health (a misconfiguration, never a clinical finding).
    func pollOnce(_ shared: State) async {
        guard alertSource.pushOnly == nil else { return }
        let (read, _) = await AlertList.fetch(client, base: base, source: alertSource, mapping: mapping, auth: auth)
        let list: AlertList
        switch read {
        case .success(let fetched): list = fetched
        case .failure(let problem):
            shared.withLock { s in
                s.health.pollFailed(problem.text)
                if problem.atBound { reachBound(problem.text, &s) }
            }
            return
        }
        let now = clock.now
        var outside: [String] = []
        // Alerts outside the run: another run's on a shared SUT, or another shard's patients'.
        let alerts = list.alerts.compactMap { a in
            let mine = scenarioAlert(a)
            if mine == nil { outside.append(a.alertID) }
            return mine
        }
        auth.contract.listed(read: alerts, outside: outside)
        auth.contract.unreadable(list.unreadable, first: list.firstUnreadable)
        shared.withLock { s in
            s.health.pollSucceeded(unreadable: list)
            for alert in alerts where s.firstSeen[alert.alertID] == nil {
                guard s.firstSeen.count < Self.observedAlertLimit else {
                    reachBound(Self.observedAlertProblem, &s)
                    break
                }
                s.firstSeen[alert.alertID] = (s.serverClock?.onDeviceTime(alert) ?? alert, now)
                s.order.append(alert.alertID)
            }
        }
    }

    /// Distinct alerts one run keeps, from every poll and push channel together.
    package static let observedAlertLimit = AlertList.alertLimit

    static let observedAlertProblem =
        "the SUT reported more than \(observedAlertLimit) distinct alerts during the run, more than a scenario can raise: the harness keeps no more and stops the run"

    /// Stops the run at a bound the SUT's answers passed: nothing more is sent or waited for, and
    /// the scenario is not judged (exit 3 naming the bound).
    func reachBound(_ problem: String, _ s: inout Shared) {
        s.health.boundReached = s.health.boundReached ?? problem
        s.aborted = true
    }

    /// The alerts of the run's patients that the SUT lists before the run has sent anything: left
    /// by an earlier run on a SUT that keeps its state. Empty for a push-only source, and when the
    /// list cannot be read (the run itself reports that), unless the read passed one of the
    /// harness's bounds: that is the problem thrown, before anything is sent.
    package func leftOverAlerts() async throws(HarnessError) -> [ObservedAlert] {
        guard alertSource.pushOnly == nil else { return [] }
        let (read, _) = await AlertList.fetch(client, base: base, source: alertSource, mapping: mapping, auth: auth)
        switch read {
        case .success(let list): return list.alerts.compactMap(scenarioAlert)
        case .failure(let problem) where problem.atBound:
            throw .infrastructure("a bound of the harness was reached: \(problem.text)")
        case .failure: return []
        }
    }

    /// Why a run cannot be judged when `leftOver` alerts were listed before it began; nil when none were.
    package static func leftOverProblem(_ leftOver: [ObservedAlert]) -> String? {
        guard let first = leftOver.min(by: { ($0.raisedAt, $0.alertID) < ($1.raisedAt, $1.alertID) }) else {
            return nil
        }
        return
            "the SUT already lists \(leftOver.count) alert(s) of this scenario's patients before the run sent anything (first: alert \(first.alertID), \(first.rule) for patient \(first.patientID) at \(Verdict.iso(first.raisedAt))): left by an earlier run, they would read as duplicates or stand in for alerts this run should raise. Reset the SUT's patients between runs (the profile's lifecycle.reset), or give each run its own patient ids ({run} in lifecycle.patient-id)"
    }

    /// An alert as the SUT reported it, with the scenario's patient id and reading ids; nil for an
    /// alert of a patient outside the run (another scenario's, or another run's, on a shared SUT).
    func scenarioAlert(_ observedAlert: ObservedAlert) -> ObservedAlert? {
        guard !naming.isIdentity else { return keepsPatient(observedAlert.patientID) ? observedAlert : nil }
        guard let patient = naming.scenarioPatient(observedAlert.patientID), keepsPatient(patient) else { return nil }
        var out = observedAlert
        out.patientID = patient
        out.evidence = observedAlert.evidence.map(naming.scenarioReadingID)
        return out
    }

    /// Says so when a slow alert list stretched the pauses between polls: reading → alert latency is
    /// then known only to within the longest cycle.
    func notePollCycle(_ shared: State) {
        let (pause, cycle) = shared.withLock { ($0.longestPause, $0.longestPollCycle) }
        guard pause > pollInterval else { return }
        func ms(_ d: Duration) -> Int { Int((d / .milliseconds(1)).rounded()) }
        note(
            "the alert list was slow to read, so it was polled less often: pauses of up to \(ms(pause)) ms, up to \(ms(cycle)) ms from one poll's start to the next's, the resolution of reading → alert latency in this run"
        )
    }

    /// After the last acknowledgement: waits until no new alert has appeared for `quiet` and, with
    /// `awaiting`, until every expected alert is listed or its bound has passed (announced once, and
    /// recorded for the findings of the alerts still missing).
    func waitForQuiet(_ shared: State, awaiting: AlertWait?) async {
        shared.withLock { $0.quietWait = true }
        let start = clock.now
        var wait = QuietWait(quiet: quiet, bound: awaiting?.bound ?? .zero)
        var pending: [GoldenFile.ExpectedAlert] = []
        polling: while clock.now - start < wait.limit {
            let began = clock.now
            await pollOnce(shared)
            let pause = pollPause(after: clock.now - began, shared)
            if shared.withLock({ $0.health.boundReached != nil }) { return }
            // New alerts, and the SUT's verdicts on MQTT messages still coming in, keep the run waiting.
            let last = wait.lastCount
            let observed = shared.withLock { s in
                let observations = s.order.count + s.mqttConfirmed.count + s.mqttRejections.count
                return observations == last ? nil : (observations, s.order.compactMap { s.firstSeen[$0]?.0 })
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
                $0.alertWait =
                    "not listed within \(waited) after the last reading was answered (waited up to \(awaiting.boundReason))"
            }
        }
    }

    /// A polled alert source that never listed alerts, or lists some the harness cannot read.
    func unusable(_ shared: State) -> Bool {
        alertSource.pushOnly == nil && shared.withLock { $0.health.alertSourceUnusable }
    }

    /// An alert source that only pushes, misconfigured: it pushed messages the harness cannot read,
    /// or nothing at all while the golden file expects alerts.
    func pushProblem(_ result: RunObservation, awaiting: AlertWait?) -> String? {
        guard let channel = alertSource.pushOnly, let delivery = result.alerts.push.first(where: { $0.kind == channel })
        else {
            return nil
        }
        let contract = auth.contract.summary()
        if contract.unreadable > 0 {
            return
                "the SUT pushed \(contract.unreadable) message(s) on \(channel.rawValue) that are not alerts the harness can read (check alerts.fields and alerts.push.item of the SUT profile); first: \(contract.firstUnreadable ?? "")"
        }
        let arrived = delivery.delivered.count + delivery.repeats + contract.outsideRun
        guard arrived == 0, let awaiting, !awaiting.expected.isEmpty else { return nil }
        let there: String
        switch channel {
        case .webhook:
            there =
                "to the webhook receiver (its URL is printed at the start; fix its port with \(names[.webhookPort]))"
        case .sse: there = "on its SSE stream (alerts.push.sse)"
        case .mqtt: there = "under the MQTT topic filter alerts.push.mqtt-topic (\(alertSource.push.mqttTopic))"
        }
        return
            "no alert arrived on \(channel.rawValue) during the run although the golden file expects \(awaiting.expected.count): check that the SUT pushes its alerts \(there)"
    }
}
