import Clocks
import Foundation
import Locking
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// The runner's alert observer: polls the SUT's alert list (every page, paced on what a read costs:
/// ``PollPacing``) through the run and the wait for quiet at its end, and records what each push
/// channel delivers. Alerts of patients outside the run are left out (another scenario's or
/// shard's), the rest renamed to the scenario's ids and placed on device time; an answer that is not
/// an alert list is the run's health, a misconfiguration, never a clinical finding.
struct AlertObserver: Sendable {
    let clock: AnyClock<Duration>
    let base: String
    let client: any HTTPExchange
    let auth: RequestAuth
    /// Where alerts are read, and how their names map to VitalSim's.
    let source: AlertSource
    let mapping: SUTProfile.NameMapping
    /// The ids of the run's patients and devices at the SUT.
    let naming: WireNaming
    /// Whether an alert of this (scenario) patient belongs to the run.
    let keepsPatient: @Sendable (String) -> Bool
    /// How long the alert list must stay unchanged at the end.
    let quiet: Duration
    /// Messages for the user: what the run waits for at its end.
    let note: @Sendable (String) -> Void
    let names: SettingNames
    /// Whether the run has said what the SUT lists beside its alerts (an OperationOutcome): once.
    let saidOutcome = Locked(false)

    /// Polls the alert source until the run stops, the wait for quiet at its end takes the polling
    /// over, or a bound the SUT's answers passed (polling on would only read them again).
    func poll(_ shared: SharedRunState) async {
        guard source.polls else { return }
        while shared.withLock({ $0.keepsPolling }) {
            let began = clock.now
            await pollOnce(shared)
            let took = clock.now - began
            try? await clock.sleep(for: shared.withLock { $0.pacing.pause(after: took) })
        }
    }

    /// One read of the alert source (every page): new alerts are recorded with the moment first seen.
    func pollOnce(_ shared: SharedRunState) async {
        guard source.polls else { return }
        let (read, _) = await AlertList.fetch(client, base: base, source: source, mapping: mapping, auth: auth)
        let list: AlertList
        switch read {
        case .success(let fetched): list = fetched
        case .failure(let problem):
            shared.withLock { $0.pollFailed(problem.text, atBound: problem.atBound) }
            return
        }
        let now = shared.since(clock.now)
        var outside: [String] = []
        // Alerts outside the run: another run's on a shared SUT, or another shard's patients'.
        let alerts = list.alerts.compactMap { alert in
            let mine = scenarioAlert(alert)
            if mine == nil { outside.append(alert.alertID) }
            return mine
        }
        auth.contract.listed(read: alerts, outside: outside)
        auth.contract.unreadable(list.unreadable, first: list.firstUnreadable)
        let firstOutcome = list.outcomes.first.flatMap { outcome in
            saidOutcome.withLock { said in
                defer { said = true }
                return said ? nil : outcome
            }
        }
        if let outcome = firstOutcome {
            note("the alert list holds an OperationOutcome beside the alerts, passed over: \(outcome)")
        }
        let onDeviceTime = shared.alertClock.map { clock in alerts.map(clock.onDeviceTime) } ?? alerts
        shared.withLock { $0.polled(onDeviceTime, at: now, unreadable: list) }
    }

    /// Records what push observer `index` sees: each alert's first arrival, and repeats; when it is
    /// the only alert source, what it pushes is what the SUT lists.
    func collect(_ observer: PushObserver, index: Int, _ shared: SharedRunState) async {
        let only = observer.kind == source.pushOnly
        for await wire in observer.alerts {
            let mine = scenarioAlert(wire)
            if only { auth.contract.listed(read: mine.map { [$0] } ?? [], outside: mine == nil ? [wire.alertID] : []) }
            guard let mine else { continue }
            let now = shared.since(clock.now)
            let alert = shared.alertClock?.onDeviceTime(mine) ?? mine
            if shared.withLock({ $0.pushed(alert, on: index, onlySource: only, at: now) }) == .stop {
                observer.stop()
                break
            }
        }
        if let problem = observer.boundReached { shared.withLock { $0.reachBound(problem) } }
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

    /// The alerts of the run's patients that the SUT lists before the run has sent anything: left
    /// by an earlier run on a SUT that keeps its state. Empty for a push-only source, and when the
    /// list cannot be read (the run itself reports that), unless the read passed one of the
    /// harness's bounds: that is the problem thrown, before anything is sent.
    func leftOverAlerts() async throws(HarnessError) -> [ObservedAlert] {
        guard source.polls else { return [] }
        let (read, _) = await AlertList.fetch(client, base: base, source: source, mapping: mapping, auth: auth)
        switch read {
        case .success(let list): return list.alerts.compactMap(scenarioAlert)
        case .failure(let problem) where problem.atBound:
            throw .infrastructure("a bound of the harness was reached: \(problem.text)")
        case .failure: return []
        }
    }

    /// Says so when a slow alert list stretched the pauses between polls: reading → alert latency is
    /// then known only to within the longest cycle.
    func notePollCycle(_ shared: SharedRunState) {
        let (pause, cycle) = shared.withLock { ($0.pacing.longestPauseTaken, $0.pacing.longestCycle) }
        guard pause > shared.withLock({ $0.pacing.interval }) else { return }
        func ms(_ duration: Duration) -> Int { Int((duration / .milliseconds(1)).rounded()) }
        note(
            "the alert list was slow to read, so it was polled less often: pauses of up to \(ms(pause)) ms, up to \(ms(cycle)) ms from one poll's start to the next's, the resolution of reading → alert latency in this run"
        )
    }

    /// A polled alert source that never listed alerts, or lists some the harness cannot read.
    func unusable(_ shared: SharedRunState) -> Bool {
        source.polls && shared.withLock { $0.health.alertSourceUnusable }
    }
}
