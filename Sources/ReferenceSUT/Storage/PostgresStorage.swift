import Foundation
import Logging
import PostgresNIO
import ReferenceEngine
import VitalSimCore

/// PostgreSQL storage through postgres-nio (`--database postgres://USER[:PASSWORD]@HOST:PORT/DB`).
/// Each group commit is one transaction with array-bound multi-row inserts.
package final class PostgresStorage: ReadingStorage {
    let client: PostgresClient
    let runner: Task<Void, Never>
    let logger = Logger(label: "vitalsim.serve.postgres")
    let display: String

    /// Connects, and creates the tables if they do not exist.
    package init(url: String) async throws(StorageError) {
        guard let urlComponents = URLComponents(string: url),
            urlComponents.scheme == "postgres" || urlComponents.scheme == "postgresql", let host = urlComponents.host,
            let user = urlComponents.user
        else {
            throw StorageError(
                backend: "PostgreSQL",
                operation: "parsing the database URL",
                reason: "expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, got \(url)"
            )
        }
        let database = urlComponents.path.hasPrefix("/") ? String(urlComponents.path.dropFirst()) : urlComponents.path
        display = "postgres://\(user)@\(host):\(urlComponents.port ?? 5432)/\(database)"
        let config = PostgresClient.Configuration(
            host: host,
            port: urlComponents.port ?? 5432,
            username: user,
            password: urlComponents.password,
            database: database.isEmpty ? nil : database,
            tls: .disable
        )
        let client = PostgresClient(configuration: config)
        self.client = client
        runner = Task { await client.run() }
        do {
            try await client.query(
                """
                CREATE TABLE IF NOT EXISTS readings (
                    seq BIGSERIAL PRIMARY KEY, reading_id TEXT NOT NULL, patient_id TEXT NOT NULL, device_id TEXT NOT NULL,
                    device_time BIGINT NOT NULL, vals TEXT NOT NULL, rr TEXT NOT NULL)
                """
            )
            // Reading ids are unique per patient; a table from an earlier version loses
            // its global constraint.
            try await client.query("ALTER TABLE readings DROP CONSTRAINT IF EXISTS readings_reading_id_key")
            try await client.query(
                "CREATE UNIQUE INDEX IF NOT EXISTS readings_patient_reading ON readings (patient_id, reading_id)"
            )
            // Read-back pages through one patient's readings in commit order.
            try await client.query("CREATE INDEX IF NOT EXISTS readings_patient_seq ON readings (patient_id, seq)")
            try await client.query(
                """
                CREATE TABLE IF NOT EXISTS alerts (
                    seq BIGSERIAL PRIMARY KEY, alert_id TEXT NOT NULL UNIQUE, patient_id TEXT NOT NULL, rule TEXT NOT NULL,
                    severity TEXT NOT NULL, raised_at BIGINT NOT NULL, evidence TEXT NOT NULL)
                """
            )
            try await client.query(
                "CREATE TABLE IF NOT EXISTS patients (patient_id TEXT PRIMARY KEY, profile TEXT NOT NULL)"
            )
            // A patient's own alert limits, set at enrolment.
            try await client.query("ALTER TABLE patients ADD COLUMN IF NOT EXISTS limits TEXT NOT NULL DEFAULT '{}'")
            try await Self.createCareTables(client)
            try await Self.createCounts(client, logger: logger)
        } catch {
            runner.cancel()
            throw StorageError(
                backend: "PostgreSQL",
                operation: "connecting to \(display)",
                reason: String(reflecting: error)
            )
        }
    }

    /// The care teams, escalation policies, alert actions and audit trail.
    static func createCareTables(_ client: PostgresClient) async throws {
        // A patient's care team, set at enrolment.
        try await client.query("ALTER TABLE patients ADD COLUMN IF NOT EXISTS care_team TEXT NOT NULL DEFAULT '[]'")
        // Who is notified of a patient's alerts, and people's actions on alerts.
        try await client.query(
            "ALTER TABLE patients ADD COLUMN IF NOT EXISTS escalation TEXT NOT NULL DEFAULT '{}'"
        )
        try await client.query(
            """
            CREATE TABLE IF NOT EXISTS alert_actions (
                seq BIGSERIAL PRIMARY KEY, alert_id TEXT NOT NULL, patient_id TEXT NOT NULL, person TEXT NOT NULL,
                action TEXT NOT NULL, at BIGINT NOT NULL)
            """
        )
        // Who read or changed which patient's data, and when: never deleted with a patient.
        try await client.query(
            """
            CREATE TABLE IF NOT EXISTS audit_events (
                seq BIGINT PRIMARY KEY, agent TEXT, role TEXT NOT NULL, action TEXT NOT NULL,
                patient_id TEXT NOT NULL, what TEXT NOT NULL, recorded BIGINT NOT NULL)
            """
        )
    }

    /// Counts per patient, UTC day and kind, so `/readings/counts` costs no scan; a
    /// database from an earlier version has its table built from the readings it holds, in the
    /// same transaction that creates it.
    static func createCounts(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { conn in
            try await conn.query("LOCK TABLE readings IN SHARE ROW EXCLUSIVE MODE", logger: logger)
            var exists = false
            for try await name in try await conn.query("SELECT to_regclass('reading_counts')::text", logger: logger)
                .decode(String?.self)
            {
                exists = name != nil
            }
            guard !exists else { return }
            try await conn.query(
                """
                CREATE TABLE reading_counts (
                    patient_id TEXT NOT NULL, day TEXT NOT NULL, kind TEXT NOT NULL, n BIGINT NOT NULL,
                    PRIMARY KEY (patient_id, day, kind))
                """,
                logger: logger
            )
            var stored: [Observation] = []
            for try await (id, p, d, t, v, r) in try await conn.query(
                "SELECT reading_id, patient_id, device_id, device_time, vals, rr FROM readings",
                logger: logger
            )
            .decode((String, String, String, Int64, String, String).self) {
                stored.append(StorageColumns.observation(id, p, d, t, v, r))
            }
            for c in ReadingCount.tally(stored) {
                try await conn.query(
                    "INSERT INTO reading_counts VALUES (\(c.patient), \(c.day), \(c.kind), \(Int64(c.readings)))",
                    logger: logger
                )
            }
        }
    }

    package func commit(_ batch: StorageBatch) async throws(StorageError) {
        let observations = batch.observations
        let alerts = batch.alerts
        do {
            try await client.withTransaction(logger: logger) { conn in
                if !observations.isEmpty {
                    let ids = observations.map(\.readingID)
                    let patients = observations.map(\.patientID)
                    let devices = observations.map(\.deviceID)
                    let times = observations.map(\.time)
                    let vals = observations.map { StorageColumns.values($0.values) }
                    let rr = observations.map { StorageColumns.rr($0.rrIntervals) }
                    let keys = observations.map(ReadingCount.key)
                    let days = keys.map(\.day)
                    let kinds = keys.map(\.kind)
                    // The readings stored (not those already there) are counted in the same statement.
                    try await conn.query(
                        """
                        WITH stored AS (
                            INSERT INTO readings (reading_id, patient_id, device_id, device_time, vals, rr)
                            SELECT * FROM UNNEST(\(ids)::text[], \(patients)::text[], \(devices)::text[], \(times)::int8[], \(vals)::text[], \(rr)::text[])
                            ON CONFLICT (patient_id, reading_id) DO NOTHING
                            RETURNING reading_id, patient_id),
                        keyed AS (
                            SELECT DISTINCT ON (u.p, u.r) u.p, u.day, u.kind
                            FROM UNNEST(\(ids)::text[], \(patients)::text[], \(days)::text[], \(kinds)::text[]) AS u(r, p, day, kind)
                            JOIN stored s ON s.reading_id = u.r AND s.patient_id = u.p)
                        INSERT INTO reading_counts (patient_id, day, kind, n)
                        SELECT p, day, kind, count(*) FROM keyed GROUP BY p, day, kind
                        ON CONFLICT (patient_id, day, kind) DO UPDATE SET n = reading_counts.n + EXCLUDED.n
                        """,
                        logger: logger
                    )
                }
                if !alerts.isEmpty {
                    let ids = alerts.map(\.alertID)
                    let patients = alerts.map(\.patientID)
                    let rules = alerts.map(\.rule)
                    let sev = alerts.map(\.severity.rawValue)
                    let times = alerts.map(\.raisedAt)
                    let ev = alerts.map { StorageColumns.evidence($0.evidence) }
                    try await conn.query(
                        """
                        INSERT INTO alerts (alert_id, patient_id, rule, severity, raised_at, evidence)
                        SELECT * FROM UNNEST(\(ids)::text[], \(patients)::text[], \(rules)::text[], \(sev)::text[], \(times)::int8[], \(ev)::text[])
                        ON CONFLICT (alert_id) DO NOTHING
                        """,
                        logger: logger
                    )
                }
            }
        } catch {
            throw StorageError(
                backend: "PostgreSQL",
                operation: "commit to \(display)",
                reason: String(reflecting: error)
            )
        }
    }

    package func load() async throws(StorageError) -> StoredState {
        do {
            var obs: [Observation] = []
            for try await (id, p, d, t, v, r) in try await client.query(
                "SELECT reading_id, patient_id, device_id, device_time, vals, rr FROM readings ORDER BY seq"
            )
            .decode((String, String, String, Int64, String, String).self) {
                obs.append(
                    StorageColumns.observation(id, p, d, t, v, r)
                )
            }
            var alerts: [Alert] = []
            for try await (id, p, rule, s, t, e) in try await client.query(
                "SELECT alert_id, patient_id, rule, severity, raised_at, evidence FROM alerts ORDER BY seq"
            )
            .decode((String, String, String, String, Int64, String).self) {
                alerts.append(
                    Alert(
                        alertID: id,
                        patientID: p,
                        rule: rule,
                        severity: Severity(rawValue: s) ?? .medium,
                        raisedAt: t,
                        evidence: StorageColumns.parseStrings(e)
                    )
                )
            }
            var enrolments: [Enrolment] = []
            for try await (p, profile, limits, team, escalation) in try await client.query(
                "SELECT patient_id, profile, limits, care_team, escalation FROM patients ORDER BY patient_id"
            )
            .decode((String, String, String, String, String).self) {
                if let profile = Profile(rawValue: profile) {
                    let careTeam = StorageColumns.careTeam(team)
                    enrolments.append(
                        Enrolment(
                            patient: p,
                            profile: profile,
                            limits: PersonalLimits.stored(limits),
                            careTeam: careTeam,
                            escalation: EscalationJSON.stored(escalation, patient: p, careTeam: careTeam)
                        )
                    )
                }
            }
            var actions: [AlertAction] = []
            for try await (a, p, person, action, at) in try await client.query(
                "SELECT alert_id, patient_id, person, action, at FROM alert_actions ORDER BY seq"
            )
            .decode((String, String, String, String, Int64).self) {
                actions.append(StorageColumns.action(a, p, person, action, at))
            }
            var audit: [AuditRecord] = []
            for try await (seq, agent, role, action, p, what, recorded) in try await client.query(
                "SELECT seq, agent, role, action, patient_id, what, recorded FROM audit_events ORDER BY seq"
            )
            .decode((Int64, String?, String, String, String, String, Int64).self) {
                audit.append(StorageColumns.audit(Int(seq), agent, role, action, p, what, recorded))
            }
            return StoredState(
                observations: obs,
                alerts: alerts,
                enrolments: enrolments,
                actions: actions,
                audit: audit
            )
        } catch {
            throw StorageError(
                backend: "PostgreSQL",
                operation: "reading \(display)",
                reason: String(reflecting: error)
            )
        }
    }

    package func readings(_ query: ReadingQuery) async throws(StorageError) -> [StoredReading] {
        // ReadingQuery.selection with numbered parameters; an absent bound is NULL.
        let sql: PostgresQuery = """
            SELECT seq, reading_id, patient_id, device_id, device_time, vals, rr FROM readings
            WHERE patient_id = \(query.patient) AND seq > \(query.after)
            AND (\(query.from)::int8 IS NULL OR device_time >= \(query.from)::int8)
            AND (\(query.to)::int8 IS NULL OR device_time < \(query.to)::int8)
            AND (\(query.pattern)::text IS NULL OR vals LIKE \(query.pattern)::text) ORDER BY seq LIMIT \(Int64(query.limit))
            """
        do {
            var out: [StoredReading] = []
            for try await (seq, id, p, d, t, v, r) in try await client.query(sql).decode(
                (Int64, String, String, String, Int64, String, String).self
            ) {
                let columns = StorageColumns.observation(id, p, d, t, v, r)
                out.append(StoredReading(seq: seq, observation: columns))
            }
            return out
        } catch {
            throw StorageError(
                backend: "PostgreSQL",
                operation: "querying the readings of \(query.patient) in \(display)",
                reason: String(reflecting: error)
            )
        }
    }

    package func counts(patient: String) async throws(StorageError) -> [ReadingCount] {
        do {
            var out: [ReadingCount] = []
            for try await (day, kind, n) in try await client.query(
                "SELECT day, kind, n FROM reading_counts WHERE patient_id = \(patient) AND n > 0 ORDER BY day, kind"
            )
            .decode((String, String, Int64).self) {
                out.append(ReadingCount(day: day, kind: kind, readings: Int(n)))
            }
            return out
        } catch {
            throw StorageError(
                backend: "PostgreSQL",
                operation: "counting the readings of \(patient) in \(display)",
                reason: String(reflecting: error)
            )
        }
    }

    package func enrol(_ enrolment: Enrolment) async throws(StorageError) {
        let (patient, profile) = (enrolment.patient, enrolment.profile.rawValue)
        let limits = StorageColumns.limits(enrolment.limits)
        let team = StorageColumns.careTeam(enrolment.careTeam)
        let escalation = StorageColumns.escalation(enrolment.escalation)
        do {
            try await client.query(
                """
                INSERT INTO patients (patient_id, profile, limits, care_team, escalation)
                VALUES (\(patient), \(profile), \(limits), \(team), \(escalation))
                ON CONFLICT (patient_id) DO UPDATE
                SET profile = EXCLUDED.profile, limits = EXCLUDED.limits, care_team = EXCLUDED.care_team,
                    escalation = EXCLUDED.escalation
                """
            )
        } catch {
            throw StorageError(
                backend: "PostgreSQL",
                operation: "enrolling patient \(patient) in \(display)",
                reason: String(reflecting: error)
            )
        }
    }

    package func record(_ action: AlertAction) async throws(StorageError) {
        let (alert, patient, person, name, at) = (
            action.alertID, action.patientID, action.person, action.action.rawValue, action.at
        )
        do {
            try await client.query(
                """
                INSERT INTO alert_actions (alert_id, patient_id, person, action, at)
                VALUES (\(alert), \(patient), \(person), \(name), \(at))
                """
            )
        } catch {
            throw StorageError(
                backend: "PostgreSQL",
                operation: "logging an action on alert \(alert) in \(display)",
                reason: String(reflecting: error)
            )
        }
    }

    package func record(_ audit: AuditRecord) async throws(StorageError) {
        let (seq, agent, role, action) = (Int64(audit.sequence), audit.agent, audit.role, audit.action.rawValue)
        let (patient, what, recorded) = (audit.patient, audit.what, audit.recorded)
        do {
            try await client.query(
                """
                INSERT INTO audit_events (seq, agent, role, action, patient_id, what, recorded)
                VALUES (\(seq), \(agent), \(role), \(action), \(patient), \(what), \(recorded))
                """
            )
        } catch {
            throw StorageError(
                backend: "PostgreSQL",
                operation: "recording an audit event in \(display)",
                reason: String(reflecting: error)
            )
        }
    }

    package func forget(patient: String) async throws(StorageError) -> [String] {
        do {
            return try await client.withTransaction(logger: logger) { conn in
                var ids: [String] = []
                for try await id in try await conn.query(
                    "DELETE FROM readings WHERE patient_id = \(patient) RETURNING reading_id",
                    logger: logger
                )
                .decode(String.self) {
                    ids.append(id)
                }
                try await conn.query("DELETE FROM reading_counts WHERE patient_id = \(patient)", logger: logger)
                try await conn.query("DELETE FROM alerts WHERE patient_id = \(patient)", logger: logger)
                try await conn.query("DELETE FROM alert_actions WHERE patient_id = \(patient)", logger: logger)
                try await conn.query("DELETE FROM patients WHERE patient_id = \(patient)", logger: logger)
                return ids
            }
        } catch {
            throw StorageError(
                backend: "PostgreSQL",
                operation: "deleting patient \(patient) from \(display)",
                reason: String(reflecting: error)
            )
        }
    }

    package func close() async { runner.cancel() }
}
