import Foundation
import InProcessSUT
import ReferenceEngine
import TestFixtures
import Testing

/// The faulty modes that change what the routes answer, in-process: each misbehaves as documented,
/// so the harness check it exists for can fail.
struct FaultRouteTests {
    static let invalid = #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 400}"#
    static let valid = #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75}"#

    func sut(_ faults: String...) throws -> InProcessSUT {
        var sut = try InProcessSUT()
        for fault in faults { try sut.faults.add(fault, knownRules: Set(sut.rules.map(\.id))) }
        return sut
    }

    @Test func testUnavailableAnswers503ToEveryIngestion() async throws {
        try await sut("unavailable").test { sut async throws in
            #expect(try await sut.post("/api/iot-heart-rate", Self.valid).status == 503)
            #expect(try await sut.get("/healthz").status == 200, "only ingestion is down")
        }
    }

    @Test func testAcceptInvalidAcknowledgesWhatItShouldRefuse() async throws {
        try await InProcessSUT().test { sut async throws in
            #expect(
                try await sut.post("/api/iot-heart-rate", Self.invalid).status == 400,
                "the healthy baseline refuses it"
            )
        }
        try await sut("accept-invalid").test { sut async throws in
            #expect(try await sut.post("/api/iot-heart-rate", Self.invalid).status == 200)
        }
    }

    @Test func testMissRuleNeverRaisesThatRule() async throws {
        let crisis =
            #"{"readingId": "c1", "patientId": "507", "deviceId": "cuff", "kind": "blood-pressure", "systolic": 185, "diastolic": 95, "unit": "mm[Hg]", "timestamp": "2024-11-07T08:00:00Z"}"#
        try await InProcessSUT().test { sut async throws in
            #expect(try await sut.post("/api/v1/observations", crisis).status == 200)
            #expect(try await sut.alertRules("?patient=507") == ["bp.hypertensive-crisis"])
        }
        try await sut("miss-rule=bp.hypertensive-crisis").test { sut async throws in
            #expect(try await sut.post("/api/v1/observations", crisis).status == 200)
            #expect(try await sut.alertRules("?patient=507") == [])
        }
    }

    @Test func testAlertAPIFaultsBreakTheAlertList() async throws {
        try await sut("alert-api=error").test { sut async throws in
            #expect(try await sut.get("/api/v1/alerts").status == 500)
        }
        try await sut("alert-api=garbage").test { sut async throws in
            let answer = try await sut.get("/api/v1/alerts")
            #expect(answer.status == 200)
            #expect(
                (try? JSONSerialization.jsonObject(with: Data(answer.text.utf8))) == nil,
                "not JSON: \(answer.text)"
            )
        }
    }

    /// A hypertensive crisis (high), a fever (medium) and one invalid reading, as the same traffic
    /// the healthy server handles correctly.
    static let crisis =
        #"{"readingId": "f1", "patientId": "701", "deviceId": "bp", "kind": "blood-pressure", "systolic": 185, "#
        + #""diastolic": 95, "unit": "mm[Hg]", "timestamp": "2024-11-07T08:00:00Z"}"#
    static let fever = observationJSON(
        id: "f2",
        patient: "702",
        device: "th",
        kind: "temperature",
        value: 38.5,
        unit: "Cel",
        at: "2024-11-07T08:00:00Z"
    )
    static let invalidSpO2 = observationJSON(
        id: "f3",
        patient: "702",
        device: "ox",
        kind: "spo2",
        value: 120,
        unit: "%",
        at: "2024-11-07T08:00:00Z"
    )

    /// The answers to the three readings, and the alerts listed after them.
    func exercise(_ faults: String...) async throws -> (statuses: [Int], alerts: [[String: Any]]) {
        var sut = try InProcessSUT()
        try sut.add(faults: faults)
        let (statuses, list) = try await sut.test { sut async throws in
            var statuses: [Int] = []
            for body in [Self.crisis, Self.fever, Self.invalidSpO2] {
                statuses.append(try await sut.post("/api/v1/observations", body).status)
            }
            return (statuses, try await sut.get("/api/v1/alerts"))
        }
        return (statuses, list.objects)
    }

    /// Rules of the listed alerts, sorted.
    static func rules(_ alerts: [[String: Any]]) -> [String] { alerts.compactMap { $0["rule"] as? String }.sorted() }

    @Test func testTheHealthyServerIsTheBaseline() async throws {
        let (statuses, alerts) = try await exercise()
        #expect(statuses == [200, 200, 400])
        #expect(Self.rules(alerts) == ["bp.hypertensive-crisis", "temp.fever"])
    }

    @Test func testDropWrongSeverityAndDuplicateAlertsMisbehave() async throws {
        #expect(Self.rules(try await exercise("drop-alerts=1").alerts) == [], "drop-alerts=1 drops every alert")
        let wrong = try await exercise("wrong-severity").alerts
        let severities = Dictionary(
            wrong.compactMap { a in (a["rule"] as? String).map { ($0, a["severity"] as? String ?? "") } },
            uniquingKeysWith: { a, _ in a }
        )
        #expect(severities == ["bp.hypertensive-crisis": "low", "temp.fever": "high"])
        let duplicated = try await exercise("duplicate-alerts").alerts
        #expect(
            Self.rules(duplicated) == ["bp.hypertensive-crisis", "bp.hypertensive-crisis", "temp.fever", "temp.fever"]
        )
        #expect(Set(duplicated.compactMap { $0["alertId"] as? String }).count == 4, "each copy has its own id")
    }
}
