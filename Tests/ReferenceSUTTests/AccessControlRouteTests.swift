import Foundation
import HTTPTypes
import InProcessSUT
import ReferenceEngine
import TestFixtures
import Testing

/// Who may see what at the reference SUT, in-process: people read only the patients in their care
/// (a patient: their own data), whose care teams come with the enrolment and survive a restart;
/// people neither post readings nor enrol nor delete; expired and revoked credentials are refused;
/// and the faulty modes that break each rule (`cross-patient-read`, `stale-credentials`).
struct AccessControlRouteTests {
    static let admin = "admin-token-01234567890"
    static let reader = "reader-token-0123456789"
    static let device = "device-token-0123456789"
    static let ann = "caregiver-ann-012345678"
    static let osei = "clinician-osei-01234567"
    static let patient = "patient-p1-012345678901"
    static let expired = "caregiver-ann-expired-01"
    static let revoked = "caregiver-ann-revoked-01"

    /// A SUT with an admin, a reader, p-1's device, caregiver ann (p-1's), clinician osei (p-2's),
    /// patient p-1 and ann's expired and revoked credentials; `faults` as `--fault` takes them.
    static func sut(_ folder: String, faults: [String] = []) throws -> InProcessSUT {
        var sut = try InProcessSUT()
        sut.databaseDirectory = folder
        try sut.loadCredentials(
            """
            devices:
              - {token: \(device), patient: p-1, device: oxi-1}
            readers:
              - {token: \(reader)}
            admins:
              - {token: \(admin)}
            people:
              - {token: \(ann), person: ann, role: caregiver}
              - {token: \(osei), person: osei, role: clinician}
              - {token: \(patient), person: p-1, role: patient}
              - {token: \(expired), person: ann, role: caregiver, expires: 2024-12-31T23:59:59Z}
              - {token: \(revoked), person: ann, role: caregiver, revoked: true}
            """
        )
        try sut.add(faults: faults)
        return sut
    }

    static func folder() -> String { NSTemporaryDirectory() + "vitalsim-access-\(UInt64.random(in: 0...UInt64.max))" }

    /// Enrols p-1 (ann's) and p-2 (osei's), and stores one reading of p-1 and one of p-2.
    static func enrolBoth(_ sut: SUTTestClient) async throws {
        let teams = [("p-1", "ann", "caregiver"), ("p-2", "osei", "clinician")]
        for (patient, person, role) in teams {
            let body = #"{"profile": "adult", "careTeam": [{"person": "\#(person)", "role": "\#(role)"}]}"#
            let enrolled = try await sut.send("/api/v1/patients/\(patient)", method: .put, body: body, token: admin)
            #expect(enrolled.status == 201, "\(enrolled.text)")
        }
        let r1 = observationJSON(
            id: "r-1",
            patient: "p-1",
            device: "oxi-1",
            kind: "temperature",
            value: 38.5,
            unit: "Cel",
            at: "2024-11-01T08:00:00Z"
        )
        #expect(try await sut.post("/api/v1/observations", r1, token: device).status == 200)
    }

    static func readings(_ patient: String) -> String { "/api/v1/patients/\(patient)/readings" }

    @Test func peopleReadOnlyThePatientsInTheirCareAcrossARestart() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Self.sut(folder).test { sut async throws in try await Self.enrolBoth(sut) }
        // The care teams were stored with the enrolments: a new process knows them.
        try await Self.sut(folder).test { sut async throws in
            #expect(try await sut.get(Self.readings("p-1"), token: Self.ann).status == 200)
            #expect(try await sut.get(Self.readings("p-1"), token: Self.patient).status == 200)
            #expect(try await sut.get(Self.readings("p-2"), token: Self.ann).status == 403)
            #expect(try await sut.get(Self.readings("p-2"), token: Self.patient).status == 403)
            #expect(try await sut.get(Self.readings("p-1"), token: Self.osei).status == 403)
            #expect(try await sut.get("/api/v1/patients/p-2", token: Self.ann).status == 403)
            #expect(try await sut.get("/api/v1/patients/p-1/readings/counts?by=day", token: Self.osei).status == 403)
            #expect(try await sut.get("/fhir/Observation?patient=p-1", token: Self.osei).status == 403)
            #expect(try await sut.get("/api/v1/alerts?patient=p-1", token: Self.osei).status == 403)
            // The whole alert list, filtered to the patients in the person's care.
            let all = try await sut.get("/api/v1/alerts", token: Self.reader).objects
            #expect(all.contains { $0["patientId"] as? String == "p-1" }, "the 38.5 °C reading raised an alert")
            let anns = try await sut.get("/api/v1/alerts", token: Self.ann).objects
            #expect(anns.count == all.count)
            #expect(try await sut.get("/api/v1/alerts", token: Self.osei).objects.isEmpty)
            // A device reads nothing.
            #expect(try await sut.get(Self.readings("p-1"), token: Self.device).status == 403)
        }
    }

    @Test func peopleNeitherPostNorEnrolNorDelete() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Self.sut(folder).test { sut async throws in
            try await Self.enrolBoth(sut)
            let body = #"{"profile": "adult"}"#
            for token in [Self.ann, Self.osei, Self.patient] {
                #expect(
                    try await sut.send("/api/v1/patients/p-1", method: .put, body: body, token: token).status == 403
                )
                #expect(try await sut.send("/api/v1/patients/p-1", method: .delete, token: token).status == 403)
                let r2 = observationJSON(
                    id: "r-2",
                    patient: "p-1",
                    device: "oxi-1",
                    kind: "spo2",
                    value: 97,
                    unit: "%",
                    at: "2024-11-01T08:05:00Z"
                )
                #expect(try await sut.post("/api/v1/observations", r2, token: token).status == 403)
            }
            let items = try await sut.get(Self.readings("p-1"), token: Self.reader).object["items"] as? [Any]
            #expect(items?.count == 1, "nothing a person sent was stored")
        }
    }

    @Test func expiredAndRevokedCredentialsAreRefusedUnlessTheFaultHonoursThem() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Self.sut(folder).test { sut async throws in
            try await Self.enrolBoth(sut)
            for token in [Self.expired, Self.revoked] {
                let answer = try await sut.get(Self.readings("p-1"), token: token)
                #expect(answer.status == 401)
                #expect(answer.text.contains(token == Self.expired ? "expired" : "revoked"))
            }
        }
        try await Self.sut(folder, faults: ["stale-credentials"]).test { sut async throws in
            #expect(try await sut.get(Self.readings("p-1"), token: Self.expired).status == 200)
            #expect(try await sut.get(Self.readings("p-1"), token: Self.revoked).status == 200)
        }
    }

    @Test func crossPatientReadLetsEveryPersonReadEveryPatient() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Self.sut(folder, faults: ["cross-patient-read"]).test { sut async throws in
            try await Self.enrolBoth(sut)
            #expect(try await sut.get(Self.readings("p-1"), token: Self.osei).status == 200)
            #expect(try await sut.get("/api/v1/alerts", token: Self.osei).objects.isEmpty == false)
        }
    }

    @Test func aCareTeamIsCheckedAtEnrolment() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Self.sut(folder).test { sut async throws in
            let cases = [
                (#"{"profile": "adult", "careTeam": {}}"#, "careTeam"),
                (#"{"profile": "adult", "careTeam": [{"person": "ann", "role": "nurse"}]}"#, "careTeam[0].role"),
                (#"{"profile": "adult", "careTeam": [{"person": "a/b", "role": "caregiver"}]}"#, "careTeam[0].person"),
                (
                    #"{"profile": "adult", "careTeam": [{"person": "ann", "role": "caregiver"}, {"person": "ann", "role": "clinician"}]}"#,
                    "careTeam[1].person"
                ),
            ]
            for (body, field) in cases {
                let answer = try await sut.send("/api/v1/patients/p-1", method: .put, body: body, token: Self.admin)
                #expect(answer.status == 400)
                #expect(answer.object["field"] as? String == field, "\(answer.text)")
            }
        }
    }
}
