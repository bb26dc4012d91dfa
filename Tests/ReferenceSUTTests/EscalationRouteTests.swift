import Foundation
import HTTPTypes
import InProcessSUT
import ReferenceEngine
import TestFixtures
import Testing

/// Who the reference SUT notifies of an alert, in-process: the first step of the patient's
/// escalation policy when the alert is raised, the next once the patient's device time has passed
/// its deadline, unless a person in the care team acted on the alert before; each person reads
/// their own notifications; actions are logged durably; and the faulty modes `everyone-notified`
/// and `no-escalation` break exactly that.
struct EscalationRouteTests {
    static let admin = "admin-token-01234567890"
    static let reader = "reader-token-0123456789"
    static let device = "device-token-0123456789"
    static let ann = "caregiver-ann-012345678"
    static let osei = "clinician-osei-01234567"
    static let kim = "caregiver-kim-012345678"
    static let lee = "clinician-lee-012345678"

    /// p-1's thermometer, its care team ann (caregiver, notified first), osei (clinician, ten minutes
    /// later) and kim (caregiver, in no step); lee cares for p-2.
    static func sut(_ folder: String, faults: [String] = []) throws -> InProcessSUT {
        var sut = try InProcessSUT()
        sut.databaseDirectory = folder
        try sut.loadCredentials(
            """
            devices:
              - {token: \(device), patient: p-1, device: thermo-1}
            readers:
              - {token: \(reader)}
            admins:
              - {token: \(admin)}
            people:
              - {token: \(ann), person: ann, role: caregiver}
              - {token: \(osei), person: osei, role: clinician}
              - {token: \(kim), person: kim, role: caregiver}
              - {token: \(lee), person: lee, role: clinician}
            """
        )
        try sut.add(faults: faults)
        return sut
    }

    static func folder() -> String {
        NSTemporaryDirectory() + "vitalsim-escalation-\(UInt64.random(in: 0...UInt64.max))"
    }

    static func enrol(_ sut: SUTTestClient) async throws {
        let team =
            #"[{"person": "ann", "role": "caregiver"}, {"person": "osei", "role": "clinician"}, "#
            + #"{"person": "kim", "role": "caregiver"}]"#
        let policy = #"{"medium": [{"notify": ["ann"]}, {"afterSeconds": 600, "notify": ["osei"]}]}"#
        let body = #"{"profile": "adult", "careTeam": \#(team), "escalation": \#(policy)}"#
        let enrolled = try await sut.send("/api/v1/patients/p-1", method: .put, body: body, token: admin)
        #expect(enrolled.status == 201, "\(enrolled.text)")
        let other = #"{"profile": "adult", "careTeam": [{"person": "lee", "role": "clinician"}]}"#
        #expect(try await sut.send("/api/v1/patients/p-2", method: .put, body: other, token: admin).status == 201)
    }

    /// Posts p-1's temperature at 08:MM.
    static func temperature(_ sut: SUTTestClient, _ value: Double, minute: Int) async throws {
        let reading = observationJSON(
            id: "t-\(minute)",
            patient: "p-1",
            device: "thermo-1",
            kind: "temperature",
            value: value,
            unit: "Cel",
            at: String(format: "2024-11-01T08:%02d:00Z", minute)
        )
        #expect(try await sut.post("/api/v1/observations", reading, token: device).status == 200)
    }

    /// `recipient step notifiedAt` of each notification the reader sees.
    static func notified(_ sut: SUTTestClient) async throws -> [String] {
        let list = try await sut.get("/api/v1/notifications", token: reader).object["notifications"] as? [[String: Any]]
        return (list ?? []).map { "\($0["recipient"] ?? "") \($0["step"] ?? "") \($0["notifiedAt"] ?? "")" }
    }

    static func alertID(_ sut: SUTTestClient) async throws -> String {
        try #require(try await sut.get("/api/v1/alerts", token: reader).objects.first?["alertId"] as? String)
    }

    @Test func anUnacknowledgedAlertEscalatesWhenTheDeviceTimePassesItsDeadline() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Self.sut(folder).test { sut async throws in
            try await Self.enrol(sut)
            try await Self.temperature(sut, 38.5, minute: 0)
            #expect(try await Self.notified(sut) == ["ann 0 2024-11-01T08:00:00.000Z"])
            try await Self.temperature(sut, 36.8, minute: 9)
            #expect(try await Self.notified(sut).count == 1, "08:09, before the deadline: osei is not notified yet")
            try await Self.temperature(sut, 36.8, minute: 10)
            #expect(
                try await Self.notified(sut) == ["ann 0 2024-11-01T08:00:00.000Z", "osei 1 2024-11-01T08:10:00.000Z"]
            )
            // Each person reads their own inbox; kim, in no step, has none.
            let anns = try await sut.get("/api/v1/notifications", token: Self.ann).object["notifications"] as? [Any]
            #expect(anns?.count == 1)
            let kims = try await sut.get("/api/v1/notifications", token: Self.kim).object["notifications"] as? [Any]
            #expect(kims?.isEmpty == true)
            #expect(try await sut.get("/api/v1/notifications?recipient=osei", token: Self.ann).status == 403)
            #expect(try await sut.get("/api/v1/notifications?recipient=osei", token: Self.reader).status == 200)
            #expect(try await sut.get("/api/v1/notifications", token: Self.device).status == 403)
            #expect(try await sut.get("/api/v1/notifications", token: Self.admin).status == 403)
        }
    }

    @Test func anAcknowledgedAlertDoesNotEscalateAndTheActionIsLoggedAcrossARestart() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Self.sut(folder).test { sut async throws in
            try await Self.enrol(sut)
            try await Self.temperature(sut, 38.5, minute: 0)
            try await Self.temperature(sut, 36.8, minute: 5)
            let id = try await Self.alertID(sut)
            let path = "/api/v1/alerts/\(id)/actions"
            let acted = try await sut.send(path, method: .post, body: #"{"action": "acknowledge"}"#, token: Self.ann)
            #expect(acted.status == 201, "\(acted.text)")
            #expect(acted.object["at"] as? String == "2024-11-01T08:05:00.000Z", "the patient's device time")
            #expect(acted.object["person"] as? String == "ann")
            // Who may not act, and what is no action.
            let ack = #"{"action": "acknowledge"}"#
            #expect(try await sut.send(path, method: .post, body: ack, token: Self.lee).status == 403)
            #expect(try await sut.send(path, method: .post, body: ack, token: Self.device).status == 403)
            #expect(try await sut.send(path, method: .post, body: ack, token: Self.reader).status == 403)
            #expect(
                try await sut.send("/api/v1/alerts/nope/actions", method: .post, body: ack, token: Self.ann).status
                    == 404
            )
            for bad in [#"{"action": "ignore"}"#, #"{"action": "no-response"}"#, #"{"action": "acknowledge", "x": 1}"#]
            {
                #expect(try await sut.send(path, method: .post, body: bad, token: Self.ann).status == 400, "\(bad)")
            }
            let other = #"{"action": "acknowledge", "person": "kim"}"#
            #expect(try await sut.send(path, method: .post, body: other, token: Self.ann).status == 400)
            try await Self.temperature(sut, 36.8, minute: 15)
        }
        try await Self.sut(folder).test { sut async throws in
            try await Self.temperature(sut, 36.9, minute: 20)
            #expect(try await Self.notified(sut) == ["ann 0 2024-11-01T08:00:00.000Z"], "acknowledged at 08:05")
            let id = try await Self.alertID(sut)
            let log =
                try await sut.get("/api/v1/alerts/\(id)/actions", token: Self.osei).object["actions"]
                as? [[String: Any]]
            #expect(log?.map { $0["action"] as? String } == ["acknowledge"])
            #expect(try await sut.get("/api/v1/alerts/\(id)/actions", token: Self.lee).status == 403)
        }
    }

    @Test func everyoneNotifiedAndNoEscalationAreTheFaultsTheyName() async throws {
        for (fault, expected) in [
            (
                "everyone-notified",
                [
                    "p-1 0 2024-11-01T08:00:00.000Z", "ann 0 2024-11-01T08:00:00.000Z",
                    "osei 0 2024-11-01T08:00:00.000Z", "kim 0 2024-11-01T08:00:00.000Z",
                ]
            ),
            ("no-escalation", ["ann 0 2024-11-01T08:00:00.000Z"]),
        ] {
            let folder = Self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try await Self.sut(folder, faults: [fault]).test { sut async throws in
                try await Self.enrol(sut)
                try await Self.temperature(sut, 38.5, minute: 0)
                try await Self.temperature(sut, 36.8, minute: 30)
                #expect(try await Self.notified(sut) == expected, "\(fault)")
            }
        }
    }

    @Test func anEnrolmentsPolicyNamesOnlyItsPeople() async throws {
        try await Self.sut(Self.folder()).test { sut async throws in
            let cases = [
                (#"{"urgent": [{"notify": ["ann"]}]}"#, "escalation.urgent"),
                (#"{"high": [{"notify": ["zed"]}]}"#, "escalation.high[0].notify[0]"),
                (#"{"high": [{"afterSeconds": 60, "notify": ["ann"]}]}"#, "escalation.high[0].afterSeconds"),
                (
                    #"{"high": [{"notify": ["ann"]}, {"afterSeconds": 0, "notify": ["p-1"]}]}"#,
                    "escalation.high[1].afterSeconds"
                ),
                (#"{"high": []}"#, "escalation.high"),
            ]
            for (policy, field) in cases {
                let body =
                    #"{"profile": "adult", "careTeam": [{"person": "ann", "role": "caregiver"}], "escalation": \#(policy)}"#
                let answer = try await sut.send("/api/v1/patients/p-1", method: .put, body: body, token: Self.admin)
                #expect(answer.status == 400, "\(policy)")
                #expect(answer.object["field"] as? String == field, "\(policy): \(answer.text)")
            }
        }
    }
}
