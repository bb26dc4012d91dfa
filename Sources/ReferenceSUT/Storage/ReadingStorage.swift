import ReferenceEngine
import VitalSimCore

/// Durable storage behind the reference SUT: SQLite (``SQLiteStorage``) or PostgreSQL
/// (``PostgresStorage``). A batch is committed atomically — readings together with the alerts
/// they raised — before any of its readings is acknowledged.
package protocol ReadingStorage: Sendable {
    /// Commits one group of readings and alerts in a single transaction.
    func commit(_ batch: StorageBatch) async throws(StorageError)
    /// Everything stored, in commit order (used to rebuild the alert engine at start).
    func load() async throws(StorageError) -> StoredState
    /// Records (or replaces) a patient's enrolment: its profile, own limits, care team and
    /// escalation policy.
    func enrol(_ enrolment: Enrolment) async throws(StorageError)
    /// Logs a person's action on an alert.
    func record(_ action: AlertAction) async throws(StorageError)
    /// Appends an entry to the audit trail (kept when its patient is deleted: the trail is the
    /// record of who did what, deletions included).
    func record(_ audit: AuditRecord) async throws(StorageError)
    /// Deletes a patient's readings, alerts, the actions on them and enrolment in one transaction;
    /// returns the ids of the readings deleted.
    func forget(patient: String) async throws(StorageError) -> [String]
    /// One page of a patient's stored readings, read from storage (not from memory), in commit order.
    func readings(_ query: ReadingQuery) async throws(StorageError) -> [StoredReading]
    /// How many readings of each kind a patient has per UTC day, from storage: a table kept in the
    /// commit's own transaction, so a count costs no scan of the readings.
    func counts(patient: String) async throws(StorageError) -> [ReadingCount]
    /// Closes connections.
    func close() async
}

/// One group commit.
package struct StorageBatch: Sendable {
    package var observations: [Observation] = []
    package var alerts: [Alert] = []
    package init(observations: [Observation] = [], alerts: [Alert] = []) {
        self.observations = observations
        self.alerts = alerts
    }
    package var isEmpty: Bool { observations.isEmpty && alerts.isEmpty }
}

/// The readings of one kind a patient has on one UTC day.
package struct ReadingCount: Sendable, Equatable {
    /// `YYYY-MM-DD`, of the readings' device time.
    package var day: String
    /// ``StoredReadingJSON/kind(_:)`` of the readings.
    package var kind: String
    package var readings: Int

    package init(day: String, kind: String, readings: Int) {
        self.day = day
        self.kind = kind
        self.readings = readings
    }

    /// The day and kind an observation is counted under.
    static func key(_ o: Observation) -> (day: String, kind: String) {
        (String(CivilTime(unixMilliseconds: o.time).iso8601().prefix(10)), StoredReadingJSON.kind(o))
    }

    /// Counts of `observations`, by patient, day and kind (for a table built from stored readings).
    static func tally(_ observations: [Observation]) -> [(patient: String, day: String, kind: String, readings: Int)] {
        var counts: [[String]: Int] = [:]
        for o in observations {
            let (day, kind) = key(o)
            counts[[o.patientID, day, kind], default: 0] += 1
        }
        return counts.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { ($0[0], $0[1], $0[2], counts[$0] ?? 0) }
    }
}

/// The stored contents, oldest first.
package struct StoredState: Sendable {
    package var observations: [Observation]
    package var alerts: [Alert]
    /// Enrolled patients, their profiles, own limits, care teams and escalation policies.
    package var enrolments: [Enrolment] = []
    /// People's actions on alerts, in the order they came.
    package var actions: [AlertAction] = []
    /// The audit trail, in the order it was recorded.
    package var audit: [AuditRecord] = []
}

/// A patient's enrolment as storage keeps it.
package struct Enrolment: Sendable, Equatable {
    package var patient: String
    package var profile: Profile
    /// The patient's own alert limits.
    package var limits: [ThresholdOverride] = []
    /// The people who care for the patient, and their roles.
    package var careTeam: [CareTeamMember] = []
    /// Who is notified of the patient's alerts, per severity.
    package var escalation = EscalationPolicy()

    package init(
        patient: String,
        profile: Profile,
        limits: [ThresholdOverride] = [],
        careTeam: [CareTeamMember] = [],
        escalation: EscalationPolicy = EscalationPolicy()
    ) {
        self.patient = patient
        self.profile = profile
        self.limits = limits
        self.careTeam = careTeam
        self.escalation = escalation
    }
}

/// A storage failure, naming the backend and what it was doing.
package struct StorageError: Error, Sendable, CustomStringConvertible {
    package var backend: String
    package var operation: String
    package var reason: String
    package init(backend: String, operation: String, reason: String) {
        self.backend = backend
        self.operation = operation
        self.reason = reason
    }
    package var description: String { "\(backend) storage: \(operation) failed: \(reason)" }
}

/// Column encodings shared by the SQL backends.
enum StorageColumns {
    /// `{"heart-rate":72,…}` in ``Signal`` declaration order.
    static func values(_ v: [Signal: Double]) -> String {
        JSONValue.object(Signal.allCases.compactMap { s in v[s].map { (s.rawValue, .double($0)) } }).serialized()
    }

    /// The observation of a `readings` row's columns.
    static func observation(
        _ id: String,
        _ patient: String,
        _ device: String,
        _ time: Int64,
        _ vals: String,
        _ rr: String
    ) -> Observation {
        Observation(
            readingID: id,
            patientID: patient,
            deviceID: device,
            time: time,
            values: parseValues(vals),
            rrIntervals: parseNumbers(rr)
        )
    }

    static func rr(_ r: [Double]) -> String { JSONValue.array(r.map { .double($0) }).serialized() }

    /// A patient's own limits: ``ThresholdOverride/json(_:)`` (`{}` for none).
    static func limits(_ l: [ThresholdOverride]) -> String { ThresholdOverride.json(l).serialized() }

    static func evidence(_ e: [String]) -> String { JSONValue.array(e.map { .string($0) }).serialized() }

    static func parseValues(_ text: String) -> [Signal: Double] {
        guard case let .object(o)? = JSONInput.parse(Array(text.utf8)) else { return [:] }
        var out: [Signal: Double] = [:]
        for (k, v) in o { if let signal = Signal(rawValue: k), let number = v.doubleValue { out[signal] = number } }
        return out
    }

    static func parseNumbers(_ text: String) -> [Double] {
        guard case let .array(a)? = JSONInput.parse(Array(text.utf8)) else { return [] }
        return a.compactMap(\.doubleValue)
    }

    static func parseStrings(_ text: String) -> [String] {
        guard case let .array(a)? = JSONInput.parse(Array(text.utf8)) else { return [] }
        return a.compactMap { if case let .string(s) = $0 { s } else { nil } }
    }

    /// A care team as `[{"person":…,"role":…}]`, in team order.
    static func careTeam(_ team: [CareTeamMember]) -> String {
        JSONValue.array(
            team.map { .object([("person", .string($0.id)), ("role", .string($0.role.rawValue))]) }
        ).serialized()
    }

    /// An escalation policy as ``EscalationJSON/json(_:)`` (`{}` for none).
    static func escalation(_ policy: EscalationPolicy) -> String { EscalationJSON.json(policy).serialized() }

    /// The action of an `alert_actions` row's columns (an unknown action reads as `acknowledge`).
    static func action(
        _ alert: String,
        _ patient: String,
        _ person: String,
        _ action: String,
        _ at: Int64
    ) -> AlertAction {
        AlertAction(
            alertID: alert,
            patientID: patient,
            person: person,
            action: CareAction(rawValue: action) ?? .acknowledge,
            at: at
        )
    }

    /// The care team of a `care_team` column (members it cannot read are left out).
    /// The audit entry of an `audit_events` row's columns (an unknown action reads as a read).
    static func audit(
        _ sequence: Int,
        _ agent: String?,
        _ role: String,
        _ action: String,
        _ patient: String,
        _ what: String,
        _ recorded: Int64
    ) -> AuditRecord {
        AuditRecord(
            sequence: sequence,
            agent: agent,
            role: role,
            action: AuditRecord.Action(rawValue: action) ?? .read,
            patient: patient,
            what: what,
            recorded: recorded
        )
    }

    static func careTeam(_ text: String) -> [CareTeamMember] {
        guard case let .array(a)? = JSONInput.parse(Array(text.utf8)) else { return [] }
        return a.compactMap { member in
            guard case let .object(o) = member, case let .string(person)? = o["person"],
                case let .string(role)? = o["role"], let careRole = CareRole(rawValue: role)
            else { return nil }
            return CareTeamMember(id: person, role: careRole)
        }
    }
}
