import Foundation
import GRDB
import InProcessSUT
import TestFixtures
import Testing

/// Hostile bodies at the observation route: each hostile body refused with 400
/// naming what is wrong, the server answering the next request; and reading ids that belong to one
/// patient (another patient's device cannot suppress a reading by claiming its id first), also in
/// a SQLite database an earlier version wrote. (Slow clients, PostgreSQL and MQTT:
/// `IntegrationTests.HostileInputTests`.)
struct HostileBodyRouteTests {
    static func reading(_ id: String, patient: String, at time: String = "2024-11-07T08:00:00Z") -> String {
        observationJSON(id: id, patient: patient, device: "hr", kind: "heart-rate", value: 72, unit: "/min", at: time)
    }

    /// The hostile bodies by name (the names are the test cases: some bodies are too large to print).
    static let hostile = [
        "a duplicate key", "511 levels of nesting", "100,000 levels of nesting", "UTF-16", "a NUL in the reading id",
        "the year 0", "a 250,000-character reading id", "a NUL in the patient id",
    ]

    /// The body called `name`, the field its refusal must name (empty: the body is not JSON the
    /// route can read), and text its message must hold.
    static func body(_ name: String) -> (bytes: [UInt8], field: String, message: String) {
        switch name {
        case "a duplicate key":
            let text =
                #"{"readingId": "d1", "patientId": "501", "deviceId": "hr", "kind": "heart-rate", "value": 72, "unit": "/min", "timestamp": "2024-11-07T08:00:00Z", "value": 9999}"#
            return (Array(text.utf8), "value", "duplicate key")
        case "511 levels of nesting", "100,000 levels of nesting":
            let levels = name.hasPrefix("511") ? 511 : 100_000
            let text = String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
            return (Array(text.utf8), "", "nested deeper than 8 levels (at byte 8)")
        case "UTF-16":
            let bytes = reading("u1", patient: "501").utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            return (bytes, "", "must be UTF-8")
        case "a NUL in the reading id":
            let body = reading(#"n\u0000ul"#, patient: "501")
            return (Array(body.utf8), "readingId", "the control character U+0")
        case "the year 0":
            let body = reading("y0", patient: "501", at: "0000-01-01T00:00:00Z")
            return (Array(body.utf8), "timestamp", "is before 1970-01-01")
        case "a 250,000-character reading id":
            let body = reading(String(repeating: "i", count: 250_000), patient: "501")
            return (Array(body.utf8), "readingId", "1 to 128 characters, got 250000")
        default:
            return (Array(reading("p1", patient: #"50\u00001"#).utf8), "patientId", "the control character U+0")
        }
    }

    @Test(arguments: hostile)
    func aHostileBodyIsRefusedNamingWhatIsWrong(_ name: String) async throws {
        let (bytes, field, message) = Self.body(name)
        try await InProcessSUT().test { sut async throws in
            let refused = try await sut.post("/api/v1/observations", bytes: bytes)
            #expect(refused.status == 400, "\(refused.text.prefix(200))")
            #expect(refused.object["field"] as? String == field, "\(refused.text.prefix(200))")
            #expect(refused.text.contains(message), "\(refused.text.prefix(200))")
            #expect(try await sut.get("/healthz").status == 200)
            #expect(try await sut.get("/api/v1/patients/501").object["readings"] as? Int ?? 0 == 0)
        }
    }

    /// How many readings the route accepted, from its answer.
    static func accepted(_ response: SUTResponse) -> Int? { response.object["accepted"] as? Int }

    /// Patient 502's device claims reading id `r1` first; patient 501's own `r1` is still stored, and
    /// the duplicate of each is acknowledged once.
    static func checkReadingIdsPerPatient(_ sut: SUTTestClient) async throws {
        #expect(accepted(try await sut.post("/api/v1/observations", reading("r1", patient: "502"))) == 1)
        #expect(accepted(try await sut.post("/api/v1/observations", reading("r1", patient: "501"))) == 1)
        #expect(accepted(try await sut.post("/api/v1/observations", reading("r1", patient: "501"))) == 0)
        let batch = "[\(reading("r2", patient: "501")), \(reading("r2", patient: "502"))]"
        #expect(accepted(try await sut.post("/api/v1/observations", batch)) == 2, "one id, two patients")
        #expect(try await sut.get("/api/v1/patients/501").object["readings"] as? Int == 2)
    }

    @Test func readingIdsBelongToOnePatient() async throws {
        try await InProcessSUT().test { sut async throws in try await Self.checkReadingIdsPerPatient(sut) }
    }

    /// A database written before reading ids were scoped per patient (a global UNIQUE on
    /// `reading_id`) and before patients had their own limits is migrated at start: its readings and
    /// enrolments stay, and the scoping holds.
    @Test func anEarlierSQLiteDatabaseIsMigrated() async throws {
        let directory = Fixtures.temporaryDirectory("hostile-migrated")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let old = try DatabaseQueue(path: directory + "/sut.sqlite")
        try await old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE readings (seq INTEGER PRIMARY KEY AUTOINCREMENT, reading_id TEXT NOT NULL UNIQUE,
                        patient_id TEXT NOT NULL, device_id TEXT NOT NULL, device_time INTEGER NOT NULL,
                        vals TEXT NOT NULL, rr TEXT NOT NULL);
                    CREATE TABLE alerts (seq INTEGER PRIMARY KEY AUTOINCREMENT, alert_id TEXT NOT NULL UNIQUE,
                        patient_id TEXT NOT NULL, rule TEXT NOT NULL, severity TEXT NOT NULL, raised_at INTEGER NOT NULL,
                        evidence TEXT NOT NULL);
                    CREATE TABLE patients (patient_id TEXT PRIMARY KEY, profile TEXT NOT NULL);
                    INSERT INTO readings (reading_id, patient_id, device_id, device_time, vals, rr)
                        VALUES ('old', '503', 'hr', 1730966400000, '{"heart-rate":70}', '[]');
                    INSERT INTO patients (patient_id, profile) VALUES ('505', 'copd');
                    """
            )
        }
        try old.close()
        var sut = try InProcessSUT()
        sut.databaseDirectory = directory
        try await sut.test { sut async throws in
            #expect(Self.accepted(try await sut.post("/api/v1/observations", Self.reading("old", patient: "503"))) == 0)
            #expect(Self.accepted(try await sut.post("/api/v1/observations", Self.reading("old", patient: "504"))) == 1)
            try await Self.checkReadingIdsPerPatient(sut)
            let enrolled = try await sut.get("/api/v1/patients/505").object
            #expect(enrolled["profile"] as? String == "copd")
            #expect((enrolled["thresholds"] as? [String: Any])?.count == 0)
            // The counts table is built from the readings the earlier version stored.
            let counts = try await sut.get("/api/v1/patients/503/readings/counts?by=day").object["counts"]
            #expect(
                (counts as? [[String: Any]])?.map { "\($0["period"] ?? "") \($0["readings"] ?? "")" } == [
                    "2024-11-07 1"
                ]
            )
        }
    }
}
