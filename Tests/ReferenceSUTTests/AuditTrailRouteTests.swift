import Foundation
import HTTPTypes
import InProcessSUT
import ReferenceEngine
import TestFixtures
import Testing

/// The reference SUT's audit trail, in-process: each granted read or change of a patient's data by
/// a person or an administrator is recorded with who, what and when, refused and anonymous
/// (reader, device) requests are not, `GET /fhir/AuditEvent` is an administrator's and survives a
/// restart and the patient's deletion, and the `no-audit` fault records nothing.
struct AuditTrailRouteTests {
    typealias People = EscalationRouteTests

    /// `action role/agent patient what` of each `AuditEvent` an administrator reads.
    static func trail(_ sut: SUTTestClient, _ query: String = "") async throws -> [String] {
        let bundle = try await sut.get("/fhir/AuditEvent" + query, token: People.admin).object
        #expect(bundle["resourceType"] as? String == "Bundle")
        let entries = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
        return entries.map { e in
            let agent = (e["agent"] as? [[String: Any]])?.first?["who"] as? [String: Any]
            let entity = (e["entity"] as? [[String: Any]])?.first
            let patient = (entity?["what"] as? [String: Any])?["reference"] as? String ?? "?"
            let who = agent?["reference"] as? String ?? agent?["display"] as? String ?? "?"
            #expect(e["recorded"] as? String == "2025-01-01T00:00:00.000Z", "the SUT's own clock (auditClock)")
            return "\(e["action"] ?? "?") \(who) \(patient) \(entity?["description"] ?? "?")"
        }
    }

    static func sut(_ folder: String, faults: [String] = []) throws -> InProcessSUT {
        var sut = try People.sut(folder, faults: faults)
        sut.auditClock = { InProcessSUT.now }
        return sut
    }

    @Test func grantedReadsAndChangesByPeopleAreRecordedAndNothingElse() async throws {
        let folder = People.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Self.sut(folder).test { sut async throws in
            try await People.enrol(sut)
            try await People.temperature(sut, 38.5, minute: 0)
            let id = try await People.alertID(sut)
            #expect(try await sut.get("/api/v1/patients/p-1/readings", token: People.ann).status == 200)
            #expect(try await sut.get("/api/v1/patients/p-1/readings", token: People.lee).status == 403)
            #expect(try await sut.get("/api/v1/patients/p-1/readings", token: People.reader).status == 200)
            #expect(try await sut.get("/api/v1/alerts", token: People.osei).status == 200)
            #expect(try await sut.get("/api/v1/alerts", token: People.lee).status == 200, "an empty list: nothing read")
            let ack = #"{"action": "acknowledge"}"#
            let path = "/api/v1/alerts/\(id)/actions"
            #expect(try await sut.send(path, method: .post, body: ack, token: People.ann).status == 201)
            #expect(try await sut.get("/api/v1/notifications", token: People.ann).status == 200)
            #expect(try await sut.get("/fhir/AuditEvent", token: People.ann).status == 403, "an administrator's")
            #expect(try await sut.get("/fhir/AuditEvent", token: People.reader).status == 403)
            #expect(
                try await Self.trail(sut) == [
                    "C administrator Patient/p-1 patient", "C administrator Patient/p-2 patient",
                    "R RelatedPerson/ann Patient/p-1 readings", "R Practitioner/osei Patient/p-1 alerts",
                    "U RelatedPerson/ann Patient/p-1 alert \(id)", "R RelatedPerson/ann Patient/p-1 notifications",
                ]
            )
            #expect(
                try await Self.trail(sut, "?patient=p-1&agent=ann") == [
                    "R RelatedPerson/ann Patient/p-1 readings", "U RelatedPerson/ann Patient/p-1 alert \(id)",
                    "R RelatedPerson/ann Patient/p-1 notifications",
                ]
            )
            #expect(try await sut.send("/api/v1/patients/p-1", method: .delete, token: People.admin).status == 204)
        }
        // Durable, and kept when the patient is deleted: the deletion is on it.
        try await Self.sut(folder).test { sut async throws in
            let trail = try await Self.trail(sut, "?patient=Patient/p-1")
            #expect(trail.count == 6)
            #expect(trail.last == "D administrator Patient/p-1 patient")
        }
    }

    @Test func theNoAuditFaultRecordsNothing() async throws {
        let folder = People.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Self.sut(folder, faults: ["no-audit"]).test { sut async throws in
            try await People.enrol(sut)
            #expect(try await sut.get("/api/v1/patients/p-1/readings", token: People.ann).status == 200)
            #expect(try await Self.trail(sut) == [])
        }
    }
}
