import Foundation
import HTTPTypes
import InProcessSUT
import ReferenceEngine
import TestFixtures
import Testing

/// The patients API in-process, over a restart on one SQLite database: enrolment needs an admin
/// token, is durable with the patient's own limits (the engine still judges by them after the
/// restart), and deletion removes the readings, so that the same reading id is new again.
/// PostgreSQL stays live (`IntegrationTests.SharedSUTLifecycleTests`, `PersonalLimitsRunTests`).
struct PatientRouteTests {
    static let device = "device-token-0123456789"
    static let reader = "reader-token-0123456789"
    static let admin = "admin-token-01234567890"

    /// A SUT whose database outlives it in `folder`, with device, reader and admin tokens.
    static func sut(_ folder: String, credentials: Bool = true) throws -> InProcessSUT {
        var sut = try InProcessSUT()
        sut.databaseDirectory = folder
        if credentials {
            try sut.loadCredentials(
                """
                devices:
                  - {token: \(device), patient: p-1, device: oxi-1}
                readers:
                  - {token: \(reader)}
                admins:
                  - {token: \(admin)}
                """
            )
        }
        return sut
    }

    static func folder() -> String { NSTemporaryDirectory() + "vitalsim-patients-\(UInt64.random(in: 0...UInt64.max))" }

    static let reading = observationJSON(
        id: "r-1",
        patient: "p-1",
        device: "oxi-1",
        kind: "spo2",
        value: 95,
        unit: "%",
        at: "2024-11-01T08:00:00Z"
    )

    @Test func enrolmentNeedsAnAdminAndSurvivesARestart() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let body = #"{"profile": "copd", "devices": [{"deviceId": "oxi-1"}]}"#
        try await Self.sut(folder).test { sut async throws in
            #expect(try await sut.send("/api/v1/patients/p-1", method: .put, body: body).status == 401)
            #expect(
                try await sut.send("/api/v1/patients/p-1", method: .put, body: body, token: Self.reader).status == 403
            )
            #expect(
                try await sut.send("/api/v1/patients/p-1", method: .put, body: body, token: Self.device).status == 403
            )
            #expect(
                try await sut.send("/api/v1/patients/p-1", method: .put, body: body, token: Self.admin).status == 201
            )
            #expect(
                try await sut.send("/api/v1/patients/p-1", method: .put, body: body, token: Self.admin).status == 200
            )
            let bad = try await sut.send(
                "/api/v1/patients/p-1",
                method: .put,
                body: #"{"profile": "copdd"}"#,
                token: Self.admin
            )
            #expect(bad.status == 400)
            #expect(
                bad.object["field"] as? String == "profile" && bad.text.contains("unknown profile copdd"),
                "\(bad.text)"
            )
            #expect(
                try await sut.send("/api/v1/patients/a%2Fb", method: .put, body: body, token: Self.admin).status == 400,
                "no '/' in an id"
            )
            #expect(try await sut.post("/api/v1/observations", Self.reading, token: Self.device).status == 200)
            #expect(try await sut.send("/api/v1/patients/p-1", method: .delete, token: Self.reader).status == 403)
        }
        // A second server on the same database.
        try await Self.sut(folder).test { sut async throws in
            let read = try await sut.get("/api/v1/patients/p-1", token: Self.reader)
            #expect(read.status == 200)
            #expect(
                read.text.contains(#""profile":"copd","thresholds":{},"enrolled":true,"readings":1"#),
                "\(read.text)"
            )
            #expect(try await sut.send("/api/v1/patients/p-1", method: .delete, token: Self.admin).status == 204)
            #expect(try await sut.get("/api/v1/patients/p-1", token: Self.reader).status == 404)
            let again = try await sut.post("/api/v1/observations", Self.reading, token: Self.device)
            #expect(
                again.text.contains(#""accepted":1,"duplicates":0"#),
                "a deleted reading id is new again: \(again.text)"
            )
        }
    }

    @Test func enrolledLimitsSurviveARestart() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Self.sut(folder, credentials: false).test { sut async throws in
            let body =
                #"{"profile": "adult", "thresholds": {"bp.hypertensive-crisis": {"systolic": 170}, "hr.tachycardia": 120}}"#
            #expect(try await sut.send("/api/v1/patients/x1", method: .put, body: body).status == 201)
            let refused = try await sut.send(
                "/api/v1/patients/x2",
                method: .put,
                body: #"{"profile": "adult", "thresholds": {"infant.spo2-low": 70}}"#
            )
            #expect(refused.status == 400)
            #expect(refused.object["field"] as? String == "thresholds.infant.spo2-low", "\(refused.text)")
        }
        try await Self.sut(folder, credentials: false).test { sut async throws in
            let kept = try await sut.get("/api/v1/patients/x1")
            #expect(
                kept.text.contains(
                    #""thresholds":{"bp.hypertensive-crisis":{"systolic":170},"hr.tachycardia":{"heart-rate":120}}"#
                ),
                "\(kept.text)"
            )
            // After the restart the engine still judges x1 by its own crisis limit (172 < the default 180).
            let bp =
                #"{"readingId":"b1","patientId":"x1","deviceId":"cuff","kind":"blood-pressure","systolic":172,"diastolic":95,"unit":"mm[Hg]","timestamp":"2024-11-07T08:00:00Z"}"#
            #expect(try await sut.post("/api/v1/observations", bp).status == 200)
            #expect(try await sut.alertRules("?patientId=x1") == ["bp.hypertensive-crisis"])
        }
    }
}
