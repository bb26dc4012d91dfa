import Glibc
import ReferenceEngine

#if canImport(Glibc)
import VitalSimCore
import W3CTraceContext
#endif

/// A reading's identity at the reference SUT: its patient and its reading id.
struct ReadingKey: Hashable, Sendable {
    var patient: String
    var reading: String
    init(patient: String, reading: String) {
        self.patient = patient
        self.reading = reading
    }
    init(_ observation: Observation) { self.init(patient: observation.patientID, reading: observation.readingID) }
}

/// The reference SUT's state behind one actor: idempotent ingestion (by patient and reading id), the alert
/// engine, durable storage with group commit, and alert publication to every channel.
///
/// A reading is acknowledged only after the transaction holding it (and the alerts it raised) has
/// committed; a duplicate is acknowledged only once the original is durable. At start
/// ``recover()`` replays the stored readings through the engine, so its windows and latches
/// survive restarts.
package actor ReferenceStore {
    let engine: AlertEngine
    let storage: any ReadingStorage
    let committer: GroupCommitter
    package nonisolated let hub: AlertHub
    package nonisolated let metrics: ServerMetrics
    let faults: FaultPlan
    var published: [Alert] = []
    /// The sequences in ``published`` of each patient's alerts: a patient's read-back asked for its
    /// alerts, and scanning every alert for each of a 250,000-patient ward's patients took minutes.
    var publishedOf: [String: [Int]] = [:]
    /// Sequences of published alerts whose patient was since deleted (kept in ``published`` so
    /// that SSE sequence numbers stay put).
    var retracted: Set<Int> = []
    /// Readings held, by patient and reading id: reading ids are unique per patient only, so one
    /// patient's device cannot claim (and so suppress) another patient's reading id.
    var seen: Set<ReadingKey> = []
    /// Repeats of each reading stored again by the `store-retries` fault.
    var repeats: [ReadingKey: Int] = [:]
    var accepted = 0
    /// Enrolled patients' profiles.
    var enrolled: [String: Profile] = [:]
    /// Each patient's care team (from enrolment, or a scenario given at start).
    var careTeams: [String: [CareTeamMember]] = [:]
    /// Each patient's escalation policy (from enrolment, or a scenario given at start).
    var escalations: [String: EscalationPolicy] = [:]
    /// People's actions on alerts, in the order they came.
    var actions: [AlertAction] = []
    /// The audit trail, oldest first (``ReferenceStore/audit(_:_:_:what:by:at:)``).
    var auditTrail: [AuditRecord] = []
    /// Each patient's device time: its latest reading's (Unix ms), the only clock escalation runs on.
    var deviceTimes: [String: Int64] = [:]

    /// - Parameters:
    ///   - limits: patients' own alert limits (a scenario's `thresholds:`), by patient.
    ///   - careTeams: patients' care teams (a scenario's `care-team:`), by patient.
    ///   - escalations: patients' escalation policies (a scenario's `escalation:`), by patient.
    package init(
        rules: [AlertRule],
        profiles: [String: Profile],
        limits: [String: [ThresholdOverride]] = [:],
        careTeams: [String: [CareTeamMember]] = [:],
        escalations: [String: EscalationPolicy] = [:],
        storage: any ReadingStorage,
        hub: AlertHub,
        faults: FaultPlan = FaultPlan()
    ) {
        engine = AlertEngine(
            rules: faults.offByOne ? rules.map(\.offByOne) : rules,
            profiles: profiles,
            limits: limits.mapValues { Self.judged($0, faults) }
        )
        self.storage = storage
        self.careTeams = careTeams
        self.escalations = escalations
        committer = GroupCommitter(storage: storage, metrics: hub.metrics)
        self.hub = hub
        metrics = hub.metrics
        self.faults = faults
    }

    /// Loads what storage holds and replays it through the engine; returns the counts.
    @discardableResult
    package func recover() async throws(StorageError) -> (readings: Int, alerts: Int) {
        let state = try await storage.load()
        for e in state.enrolments {
            engine.enrol(e.patient, profile: e.profile, limits: Self.judged(e.limits, faults))
            enrolled[e.patient] = e.profile
            careTeams[e.patient] = e.careTeam
            escalations[e.patient] = e.escalation
        }
        for o in state.observations where seen.insert(ReadingKey(o)).inserted {
            _ = engine.advance(to: o.time, patient: o.patientID)
            _ = engine.ingest(o)
            deviceTimes[o.patientID] = max(deviceTimes[o.patientID] ?? .min, o.time)
        }
        accepted = seen.count
        published = state.alerts
        for (i, a) in published.enumerated() { publishedOf[a.patientID, default: []].append(i) }
        actions = state.actions
        auditTrail = state.audit
        return (state.observations.count, state.alerts.count)
    }

    /// Stores and judges observations; returns which were new (false: a duplicate, acknowledged and
    /// not counted twice). Returns after the storage commit.
    package func ingest(
        _ observations: [Observation],
        receivedAt: ContinuousClock.Instant = .now,
        source: String = "http",
        traces: [String: TraceContext] = [:]
    ) async throws(StorageError) -> [Bool] {
        var fresh: [Observation] = []
        var retried: [Observation] = []
        var raised: [Alert] = []
        var results: [Bool] = []
        for o in observations {
            if let limit = faults.crashAfter, accepted >= limit {
                // The crash-after fault: die as abruptly as `kill -9`.
                kill(getpid(), SIGKILL)
            }
            guard seen.insert(ReadingKey(o)).inserted else {
                // The store-retries fault: the repeat is stored again under an id of its own.
                if faults.storeRetries {
                    var copy = o
                    repeats[ReadingKey(o), default: 0] += 1
                    copy.readingID = FaultPlan.retryID(o.readingID, copy: repeats[ReadingKey(o)] ?? 1)
                    retried.append(copy)
                }
                results.append(false)
                continue
            }
            accepted += 1
            fresh.append(o)
            results.append(true)
            deviceTimes[o.patientID] = max(deviceTimes[o.patientID] ?? .min, o.time)
            raised += engine.advance(to: o.time, patient: o.patientID)
            raised += engine.ingest(o)
        }
        raised = faults.apply(raised)
        do throws(StorageError) {
            try await committer.submit(StorageBatch(observations: faults.stored(fresh) + retried, alerts: raised))
        } catch {
            for o in fresh { seen.remove(ReadingKey(o)) }
            accepted -= fresh.count
            metrics.count(
                "vitalsim_readings_total",
                ["source": source, "outcome": "storage-failed"],
                by: Double(fresh.count)
            )
            throw error
        }
        metrics.count("vitalsim_readings_total", ["source": source, "outcome": "accepted"], by: Double(fresh.count))
        if fresh.count < observations.count {
            metrics.count(
                "vitalsim_readings_total",
                ["source": source, "outcome": "duplicate"],
                by: Double(observations.count - fresh.count)
            )
        }
        if !raised.isEmpty {
            // Each alert's trace: the request's, or (a batch of MQTT messages) its latest evidence's.
            let request = ReferenceTrace.current
            let spans = raised.map { a in request ?? a.evidence.lazy.compactMap { traces[$0] }.last }
            if faults.delayAlertsMilliseconds > 0 {
                let delay = faults.delayAlertsMilliseconds
                Task {
                    try? await Task.sleep(for: .milliseconds(delay))
                    await self.publish(raised, receivedAt: receivedAt, traces: spans)
                }
            } else {
                await publish(raised, receivedAt: receivedAt, traces: spans)
            }
        }
        return results
    }

    /// Stores and judges one observation; false for a duplicate.
    @discardableResult
    package func ingest(
        _ observation: Observation,
        receivedAt: ContinuousClock.Instant = .now,
        source: String = "http"
    ) async throws(StorageError) -> Bool {
        try await ingest([observation], receivedAt: receivedAt, source: source)[0]
    }

    /// Publishes raised alerts to every channel; `traces` holds each one's span (of the request or
    /// message that raised it), if its sender sent a trace context.
    func publish(_ alerts: [Alert], receivedAt: ContinuousClock.Instant, traces: [TraceContext?] = []) async {
        let latency = ContinuousClock.now - receivedAt
        let seconds = Double(latency.components.seconds) + Double(latency.components.attoseconds) * 1e-18
        for (i, a) in alerts.enumerated() {
            publishedOf[a.patientID, default: []].append(published.count)
            published.append(a)
            metrics.count("vitalsim_alerts_total", ["rule": a.rule, "severity": a.severity.rawValue])
            metrics.observeAlertLatency(seconds: seconds)
            await hub.deliver(a, sequence: published.count - 1, trace: i < traces.count ? traces[i] : nil)
        }
    }

    /// Published alerts of a patient (or all), raised at or after `since` (Unix ms, device time).
    package func alerts(patient: String?, since: Int64?) -> [Alert] {
        let since = since ?? .min
        guard let patient else {
            return published.enumerated().compactMap { i, a in a.raisedAt >= since && !retracted.contains(i) ? a : nil }
        }
        return (publishedOf[patient] ?? []).compactMap { i in
            published[i].raisedAt >= since && !retracted.contains(i) ? published[i] : nil
        }
    }

    /// Enrols a patient with a profile, its own limits and its care team (durably); returns false
    /// when it was already enrolled with that profile.
    @discardableResult
    package func enrol(_ enrolment: Enrolment) async throws(StorageError) -> Bool {
        let patient = enrolment.patient
        let known = enrolled[patient]
        try await storage.enrol(enrolment)
        engine.enrol(patient, profile: enrolment.profile, limits: Self.judged(enrolment.limits, faults))
        enrolled[patient] = enrolment.profile
        careTeams[patient] = enrolment.careTeam
        escalations[patient] = enrolment.escalation
        return known != enrolment.profile
    }

    /// The patients in whose care team `person` is.
    package func patients(caredForBy person: String) -> Set<String> {
        Set(careTeams.filter { $0.value.contains { $0.id == person } }.keys)
    }

    /// The limits a patient is judged by: its own, unless the `ignore-limits` fault drops them
    /// (storage keeps them either way).
    static func judged(_ limits: [ThresholdOverride], _ faults: FaultPlan) -> [ThresholdOverride] {
        faults.ignoreLimits ? [] : limits
    }

    /// The rules the engine judges by (to check an enrolment's limits against).
    package var rules: [AlertRule] { engine.rules }

    /// A page of a patient's readings as storage holds them (read from storage, not from memory).
    package nonisolated func storedReadings(_ query: ReadingQuery) async throws(StorageError) -> [StoredReading] {
        try await storage.readings(query)
    }

    /// A patient's counts of readings per UTC day and kind, as storage keeps them.
    package nonisolated func storedCounts(patient: String) async throws(StorageError) -> [ReadingCount] {
        try await storage.counts(patient: patient)
    }

    /// A patient's profile, the readings judged under it and the alerts listed; nil for a patient
    /// the SUT knows nothing of.
    package func patient(_ id: String) -> PatientSummary? {
        let alerts = self.alerts(patient: id, since: nil).count
        let readings = engine.readingCount(of: id)
        guard enrolled[id] != nil || readings > 0 || alerts > 0 else { return nil }
        return PatientSummary(
            profile: engine.profile(of: id),
            limits: engine.limits(of: id),
            enrolled: enrolled[id] != nil,
            readings: readings,
            alerts: alerts
        )
    }

    /// Deletes everything about `patient` (readings, alerts, enrolment, the engine's state), so that
    /// the same id can be used afresh; returns the number of readings deleted.
    package func forget(_ patient: String) async throws(StorageError) -> Int {
        let ids = try await storage.forget(patient: patient)
        for id in ids { seen.remove(ReadingKey(patient: patient, reading: id)) }
        engine.forget(patient)
        enrolled[patient] = nil
        careTeams[patient] = nil
        escalations[patient] = nil
        deviceTimes[patient] = nil
        actions.removeAll { $0.patientID == patient }
        for i in publishedOf[patient] ?? [] { retracted.insert(i) }
        publishedOf[patient] = nil
        return ids.count
    }

    /// An SSE feed: alerts published after sequence `after` (all when nil), then live ones, as
    /// `(sequence, alert)` with increasing sequences.
    package func feed(patient: String?, after: Int?) async -> AsyncStream<(Int, Alert)> {
        let (_, live) = await hub.subscribe(patient: patient)
        let start = (after ?? -1) + 1
        let backlog =
            start < published.count
            ? Array(published[start...].enumerated()).map { ($0.offset + start, $0.element) } : []
        let snapshotEnd = published.count - 1
        return AsyncStream { continuation in
            let task = Task {
                for (i, a) in backlog where patient == nil || a.patientID == patient {
                    if !self.isRetracted(i) { continuation.yield((i, a)) }
                }
                for await (i, a) in live where i > snapshotEnd { continuation.yield((i, a)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func isRetracted(_ sequence: Int) -> Bool { retracted.contains(sequence) }

    /// Number of readings accepted (including those recovered from storage).
    package var acceptedCount: Int { accepted }
}
