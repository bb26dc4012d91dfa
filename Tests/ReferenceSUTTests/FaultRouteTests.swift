import Foundation
import InProcessSUT
import ReferenceEngine
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
}
