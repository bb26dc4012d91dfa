import GRDB
import ReferenceEngine
import VitalSimCore

/// SQLite storage through GRDB: a WAL-mode database pool with `synchronous = FULL`, so a committed
/// group survives a crash of the process (and of the machine).
package final class SQLiteStorage: ReadingStorage {
    let pool: DatabasePool
    let path: String

    /// Opens (creating if needed) the database at `path`.
    package init(path: String) throws(StorageError) {
        self.path = path
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        do {
            pool = try DatabasePool(path: path, configuration: config)
            try Self.migrator.migrate(pool)
        } catch {
            throw StorageError(backend: "SQLite", operation: "opening \(path)", reason: "\(error)")
        }
    }

    /// The schema, version by version; a database written by an earlier version is brought up to date.
    static var migrator: DatabaseMigrator {
        var databaseMigrator = DatabaseMigrator()
        databaseMigrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS readings (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT, reading_id TEXT NOT NULL UNIQUE, patient_id TEXT NOT NULL,
                        device_id TEXT NOT NULL, device_time INTEGER NOT NULL, vals TEXT NOT NULL, rr TEXT NOT NULL);
                    CREATE TABLE IF NOT EXISTS alerts (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT, alert_id TEXT NOT NULL UNIQUE, patient_id TEXT NOT NULL, rule TEXT NOT NULL,
                        severity TEXT NOT NULL, raised_at INTEGER NOT NULL, evidence TEXT NOT NULL);
                    CREATE TABLE IF NOT EXISTS patients (patient_id TEXT PRIMARY KEY, profile TEXT NOT NULL);
                    """
            )
        }
        // Reading ids are unique per patient, not across patients.
        databaseMigrator.registerMigration("v2 reading ids per patient") { db in
            try db.execute(
                sql: """
                    CREATE TABLE readings_v2 (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT, reading_id TEXT NOT NULL, patient_id TEXT NOT NULL,
                        device_id TEXT NOT NULL, device_time INTEGER NOT NULL, vals TEXT NOT NULL, rr TEXT NOT NULL,
                        UNIQUE (patient_id, reading_id));
                    INSERT INTO readings_v2 SELECT seq, reading_id, patient_id, device_id, device_time, vals, rr FROM readings;
                    DROP TABLE readings;
                    ALTER TABLE readings_v2 RENAME TO readings;
                    """
            )
        }
        // Read-back pages through one patient's readings in commit order.
        databaseMigrator.registerMigration("v3 readings by patient") { db in
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS readings_patient_seq ON readings (patient_id, seq)")
        }
        // A patient's own alert limits, set at enrolment.
        databaseMigrator.registerMigration("v4 patient limits") { db in
            try db.execute(sql: "ALTER TABLE patients ADD COLUMN limits TEXT NOT NULL DEFAULT '{}'")
        }
        // Counts per patient, UTC day and kind: `/readings/counts` without a scan.
        databaseMigrator.registerMigration("v5 reading counts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE reading_counts (
                        patient_id TEXT NOT NULL, day TEXT NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL,
                        PRIMARY KEY (patient_id, day, kind))
                    """
            )
            let stored = try Row.fetchAll(
                db,
                sql: "SELECT reading_id, patient_id, device_id, device_time, vals, rr FROM readings"
            ).map { row in StorageColumns.observation(row[0], row[1], row[2], row[3], row[4], row[5]) }
            for c in ReadingCount.tally(stored) {
                try db.execute(
                    sql: "INSERT INTO reading_counts (patient_id, day, kind, n) VALUES (?, ?, ?, ?)",
                    arguments: [c.patient, c.day, c.kind, c.readings]
                )
            }
        }
        registerCareMigrations(&databaseMigrator)
        return databaseMigrator
    }

    /// The migrations of the care teams, escalation policies, alert actions and audit trail.
    static func registerCareMigrations(_ databaseMigrator: inout DatabaseMigrator) {
        // A patient's care team, set at enrolment.
        databaseMigrator.registerMigration("v6 care teams") { db in
            try db.execute(sql: "ALTER TABLE patients ADD COLUMN care_team TEXT NOT NULL DEFAULT '[]'")
        }
        // Who is notified of a patient's alerts, and people's actions on alerts.
        databaseMigrator.registerMigration("v7 escalation and alert actions") { db in
            try db.execute(
                sql: """
                    ALTER TABLE patients ADD COLUMN escalation TEXT NOT NULL DEFAULT '{}';
                    CREATE TABLE alert_actions (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT, alert_id TEXT NOT NULL, patient_id TEXT NOT NULL,
                        person TEXT NOT NULL, action TEXT NOT NULL, at INTEGER NOT NULL);
                    """
            )
        }
        // Who read or changed which patient's data, and when: never deleted with a patient.
        databaseMigrator.registerMigration("v8 audit trail") { db in
            try db.execute(
                sql: """
                    CREATE TABLE audit_events (
                        seq INTEGER PRIMARY KEY, agent TEXT, role TEXT NOT NULL, action TEXT NOT NULL,
                        patient_id TEXT NOT NULL, what TEXT NOT NULL, recorded INTEGER NOT NULL);
                    """
            )
        }
    }

    package func commit(_ batch: StorageBatch) async throws(StorageError) {
        do {
            try await pool.write { db in
                let insertReading = try db.makeStatement(
                    sql:
                        "INSERT OR IGNORE INTO readings (reading_id, patient_id, device_id, device_time, vals, rr) VALUES (?, ?, ?, ?, ?, ?)"
                )
                let counted = try db.makeStatement(
                    sql: """
                        INSERT INTO reading_counts (patient_id, day, kind, n) VALUES (?, ?, ?, 1)
                        ON CONFLICT (patient_id, day, kind) DO UPDATE SET n = n + 1
                        """
                )
                for o in batch.observations {
                    try insertReading.execute(arguments: [
                        o.readingID, o.patientID, o.deviceID, o.time, StorageColumns.values(o.values),
                        StorageColumns.rr(o.rrIntervals),
                    ])
                    // Counted only when stored (a duplicate id is ignored).
                    guard db.changesCount > 0 else { continue }
                    let (day, kind) = ReadingCount.key(o)
                    try counted.execute(arguments: [o.patientID, day, kind])
                }
                let insertAlert = try db.makeStatement(
                    sql:
                        "INSERT OR IGNORE INTO alerts (alert_id, patient_id, rule, severity, raised_at, evidence) VALUES (?, ?, ?, ?, ?, ?)"
                )
                for x in batch.alerts {
                    try insertAlert.execute(arguments: [
                        x.alertID, x.patientID, x.rule, x.severity.rawValue, x.raisedAt,
                        StorageColumns.evidence(x.evidence),
                    ])
                }
            }
        } catch {
            throw StorageError(backend: "SQLite", operation: "commit to \(path)", reason: "\(error)")
        }
    }

    package func load() async throws(StorageError) -> StoredState {
        do {
            return try await pool.read { db in
                let obs = try Row.fetchAll(
                    db,
                    sql: "SELECT reading_id, patient_id, device_id, device_time, vals, rr FROM readings ORDER BY seq"
                ).map { row in
                    StorageColumns.observation(row[0], row[1], row[2], row[3], row[4], row[5])
                }
                let alerts = try Row.fetchAll(
                    db,
                    sql: "SELECT alert_id, patient_id, rule, severity, raised_at, evidence FROM alerts ORDER BY seq"
                ).map { row in
                    Alert(
                        alertID: row[0],
                        patientID: row[1],
                        rule: row[2],
                        severity: Severity(rawValue: row[3]) ?? .medium,
                        raisedAt: row[4],
                        evidence: StorageColumns.parseStrings(row[5])
                    )
                }
                let enrolments = try Row.fetchAll(
                    db,
                    sql: "SELECT patient_id, profile, limits, care_team, escalation FROM patients ORDER BY patient_id"
                )
                .compactMap { row -> Enrolment? in
                    let team = StorageColumns.careTeam(row[3])
                    return Profile(rawValue: row[1]).map {
                        Enrolment(
                            patient: row[0],
                            profile: $0,
                            limits: PersonalLimits.stored(row[2]),
                            careTeam: team,
                            escalation: EscalationJSON.stored(row[4], patient: row[0], careTeam: team)
                        )
                    }
                }
                let actions = try Row.fetchAll(
                    db,
                    sql: "SELECT alert_id, patient_id, person, action, at FROM alert_actions ORDER BY seq"
                ).map { row in StorageColumns.action(row[0], row[1], row[2], row[3], row[4]) }
                let audit = try Row.fetchAll(
                    db,
                    sql: "SELECT seq, agent, role, action, patient_id, what, recorded FROM audit_events ORDER BY seq"
                ).map { row in StorageColumns.audit(row[0], row[1], row[2], row[3], row[4], row[5], row[6]) }
                return StoredState(
                    observations: obs,
                    alerts: alerts,
                    enrolments: enrolments,
                    actions: actions,
                    audit: audit
                )
            }
        } catch {
            throw StorageError(backend: "SQLite", operation: "reading \(path)", reason: "\(error)")
        }
    }

    package func readings(_ query: ReadingQuery) async throws(StorageError) -> [StoredReading] {
        let arguments: StatementArguments = [
            "patient": query.patient, "after": query.after, "from": query.from, "to": query.to,
            "pattern": query.pattern,
            "limit": query.limit,
        ]
        do {
            return try await pool.read { db in
                try Row.fetchAll(db, sql: ReadingQuery.selection, arguments: arguments).map { row in
                    StoredReading(
                        seq: row[0],
                        observation: StorageColumns.observation(row[1], row[2], row[3], row[4], row[5], row[6])
                    )
                }
            }
        } catch {
            throw StorageError(
                backend: "SQLite",
                operation: "querying the readings of \(query.patient)",
                reason: "\(error)"
            )
        }
    }

    package func counts(patient: String) async throws(StorageError) -> [ReadingCount] {
        do {
            return try await pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: "SELECT day, kind, n FROM reading_counts WHERE patient_id = ? AND n > 0 ORDER BY day, kind",
                    arguments: [patient]
                ).map { ReadingCount(day: $0[0], kind: $0[1], readings: $0[2]) }
            }
        } catch {
            throw StorageError(backend: "SQLite", operation: "counting the readings of \(patient)", reason: "\(error)")
        }
    }

    package func enrol(_ enrolment: Enrolment) async throws(StorageError) {
        do {
            try await pool.write { db in
                try db.execute(
                    sql:
                        "INSERT OR REPLACE INTO patients (patient_id, profile, limits, care_team, escalation) VALUES (?, ?, ?, ?, ?)",
                    arguments: [
                        enrolment.patient, enrolment.profile.rawValue, StorageColumns.limits(enrolment.limits),
                        StorageColumns.careTeam(enrolment.careTeam), StorageColumns.escalation(enrolment.escalation),
                    ]
                )
            }
        } catch {
            throw StorageError(
                backend: "SQLite",
                operation: "enrolling patient \(enrolment.patient) in \(path)",
                reason: "\(error)"
            )
        }
    }

    package func record(_ action: AlertAction) async throws(StorageError) {
        do {
            try await pool.write { db in
                try db.execute(
                    sql: "INSERT INTO alert_actions (alert_id, patient_id, person, action, at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [action.alertID, action.patientID, action.person, action.action.rawValue, action.at]
                )
            }
        } catch {
            throw StorageError(
                backend: "SQLite",
                operation: "logging an action on alert \(action.alertID) in \(path)",
                reason: "\(error)"
            )
        }
    }

    package func record(_ audit: AuditRecord) async throws(StorageError) {
        do {
            try await pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO audit_events (seq, agent, role, action, patient_id, what, recorded)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        audit.sequence, audit.agent, audit.role, audit.action.rawValue, audit.patient, audit.what,
                        audit.recorded,
                    ]
                )
            }
        } catch {
            throw StorageError(backend: "SQLite", operation: "recording an audit event in \(path)", reason: "\(error)")
        }
    }

    package func forget(patient: String) async throws(StorageError) -> [String] {
        do {
            return try await pool.write { db in
                let ids = try String.fetchAll(
                    db,
                    sql: "SELECT reading_id FROM readings WHERE patient_id = ?",
                    arguments: [patient]
                )
                for table in ["readings", "reading_counts", "alerts", "alert_actions", "patients"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE patient_id = ?", arguments: [patient])
                }
                return ids
            }
        } catch {
            throw StorageError(
                backend: "SQLite",
                operation: "deleting patient \(patient) from \(path)",
                reason: "\(error)"
            )
        }
    }

    package func close() async { try? pool.close() }
}
