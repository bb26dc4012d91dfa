import Foundation
import InProcessSUT
import Testing
import VitalSimCore

/// The ingestion routes in-process: seed payloads accepted, invalid payloads refused naming the field,
/// oversized bodies refused, duplicates acknowledged once, alerts raised by device time and listed.
struct IngestionRouteTests {
    @Test func testSeedPayloadsAreAccepted() async throws {
        try await InProcessSUT().test { sut async throws in
            let summary =
                #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "stepCount": 1000, "caloriesBurned": 200}"#
            #expect(try await sut.post("/api/healthkit", summary).status == 200)
            let heartRate = #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75}"#
            let answer = try await sut.post("/api/iot-heart-rate", heartRate)
            #expect(answer.status == 200)
            #expect(answer.object["status"] as? String == "accepted")
            // Other spellings of UTC: an offset of +00:00 and fractions of a second.
            for stamp in ["2024-11-07T12:35:58+00:00", "2024-11-07T12:36:58.5Z", "2024-11-07T12:37:58.123456Z"] {
                let body = #"{"userId": "501", "timestamp": "\#(stamp)", "heartRate": 75}"#
                #expect(try await sut.post("/api/iot-heart-rate", body).status == 200, "\(stamp)")
            }
            #expect(try await sut.get("/healthz").status == 200)
        }
    }

    /// Invalid bodies: the route, the body, and the field its 400 must name.
    static let invalidPayloads: [(String, String, String)] = [
        ("/api/iot-heart-rate", #"{"timestamp": "2024-11-07T12:34:58Z", "heartRate": 75}"#, "userId"),
        (
            "/api/iot-heart-rate", #"{"userId": 501, "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75}"#,
            "userId"
        ),
        (
            "/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": "75"}"#,
            "heartRate"
        ),
        (
            "/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75.5}"#,
            "heartRate"
        ),
        (
            "/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 400}"#,
            "heartRate"
        ),
        (
            "/api/iot-heart-rate", #"{"userId": "501", "timestamp": "07/11/2024 12:34", "heartRate": 75}"#,
            "timestamp"
        ),
        (
            "/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2099-01-01T00:00:00Z", "heartRate": 75}"#,
            "timestamp"
        ),
        (
            "/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07T14:34:58+02:00", "heartRate": 75}"#,
            "timestamp"
        ),
        (
            "/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07t12:34:58z", "heartRate": 75}"#,
            "timestamp"
        ),
        (
            "/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-02-30T12:34:58Z", "heartRate": 75}"#,
            "timestamp"
        ),
        (
            "/api/iot-heart-rate",
            #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75, "bpm": 75}"#, "bpm"
        ),
        (
            "/api/healthkit",
            #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "stepCount": -5, "caloriesBurned": 200}"#,
            "stepCount"
        ),
        (
            "/api/v1/observations",
            #"{"readingId": "a", "patientId": "501", "deviceId": "t", "kind": "temperature", "value": 98.6, "unit": "[degF]", "timestamp": "2024-11-07T12:00:00Z"}"#,
            "unit"
        ),
        (
            "/api/v1/observations",
            #"{"readingId": "a", "patientId": "501", "deviceId": "t", "kind": "spo2", "value": 101, "unit": "%", "timestamp": "2024-11-07T12:00:00Z"}"#,
            "value"
        ),
        (
            "/api/v1/observations",
            #"{"readingId": "a", "patientId": "501", "deviceId": "c", "kind": "blood-pressure", "systolic": 80, "diastolic": 90, "unit": "mm[Hg]", "timestamp": "2024-11-07T12:00:00Z"}"#,
            "diastolic"
        ),
        (
            "/api/v1/observations",
            #"[{"readingId": "a", "patientId": "501", "deviceId": "t", "kind": "spo2", "value": 97, "unit": "%", "timestamp": "2024-11-07T12:00:00Z"}, {"readingId": "b", "patientId": "501", "deviceId": "t", "kind": "mood", "value": 1, "unit": "1", "timestamp": "2024-11-07T12:00:00Z"}]"#,
            "[1].kind"
        ),
        // Patient ids the read-back, search and deletion routes could never serve: refused
        // on arrival, not stored and then answered 400 by every route that reads them.
        ("/api/iot-heart-rate", #"{"userId": "a/b", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75}"#, "userId"),
        (
            "/api/v1/observations",
            #"{"readingId": "r", "patientId": "\#(String(repeating: "p", count: 65))", "deviceId": "t", "kind": "spo2", "value": 97, "unit": "%", "timestamp": "2024-11-07T12:00:00Z"}"#,
            "patientId"
        ),
        ("/api/iot-heart-rate", "not json", ""),
        ("/api/iot-heart-rate", "[1, 2]", ""),
        ("/api/iot-heart-rate", String(repeating: "[", count: 20) + String(repeating: "]", count: 20), ""),
    ]

    @Test(arguments: invalidPayloads)
    func testInvalidPayloadsNameTheField(path: String, body: String, field: String) async throws {
        try await InProcessSUT().test { sut async throws in
            let answer = try await sut.post(path, body)
            #expect(answer.status == 400, "\(path) \(body)")
            #expect(answer.object["field"] as? String == field, "\(path) \(body): \(answer.text)")
            #expect(!((answer.object["error"] as? String ?? "").isEmpty))
        }
    }

    @Test func testOversizedBodiesAreRefusedWith413() async throws {
        let reading =
            #"{"readingId": "x", "patientId": "501", "deviceId": "d", "kind": "spo2", "value": 97, "unit": "%", "timestamp": "2024-11-07T12:00:00Z"}"#
        let big = "[" + Array(repeating: reading, count: 2500).joined(separator: ",") + "]"
        #expect(big.utf8.count > 256 * 1024)
        try await InProcessSUT().test { sut async throws in
            let answer = try await sut.post("/api/v1/observations", big)
            #expect(answer.status == 413)
            #expect((answer.object["error"] as? String ?? "").contains("262144"), "\(answer.text)")
        }
    }

    @Test func testDuplicatesAreAcknowledgedOnceAndAlertsAreListed() async throws {
        let reading =
            #"{"readingId": "504/cgm/1", "patientId": "504", "deviceId": "cgm", "kind": "cgm", "value": 50, "unit": "mg/dL", "timestamp": "2024-11-07T03:00:00Z"}"#
        try await InProcessSUT(profiles: ["504": .diabeticCGM]).test { sut async throws in
            var answer = try await sut.post("/api/v1/observations", reading)
            #expect(answer.status == 200)
            #expect(answer.object["accepted"] as? Int == 1)
            answer = try await sut.post("/api/v1/observations", reading)
            #expect(answer.object["accepted"] as? Int == 0)
            #expect(answer.object["duplicates"] as? Int == 1, "a duplicate is acknowledged and not counted twice")
            let alerts = try await sut.get("/api/v1/alerts?patient=504").objects
            #expect(
                alerts.map { $0["rule"] as? String } == ["glucose.urgent-low"],
                "50 mg/dL is at or below 55; level 2 needs 15 min"
            )
            #expect(alerts.first?["evidence"] as? [String] == ["504/cgm/1"])
            #expect(alerts.first?["raisedAt"] as? String == "2024-11-07T03:00:00.000Z", "judged by device time")
            // Sustained tachycardia over the VitalEdge IoT endpoint (adult profile by default).
            for minute in 0...10 {
                let stamp = String(format: "2024-11-07T12:%02d:00Z", minute)
                let body = #"{"userId": "501", "timestamp": "\#(stamp)", "heartRate": 130}"#
                #expect(try await sut.post("/api/iot-heart-rate", body).status == 200)
            }
            #expect(try await sut.alertRules("?patient=501&since=2024-11-07T00:00:00Z") == ["hr.tachycardia"])
        }
    }

    func fhir(_ code: String, _ quantity: String, patient: String = "501", extra: String = "") -> String {
        #"{"resourceType": "Observation", "status": "final", "code": {"coding": [{"system": "http://loinc.org", "code": "\#(code)"}]}, "subject": {"reference": "Patient/\#(patient)"}, "effectiveDateTime": "2024-11-07T08:00:00Z"\#(quantity.isEmpty ? "" : ", \"valueQuantity\": " + quantity)\#(extra)}"#
    }

    @Test func testFHIRObservationsWithLOINCAndUCUM() async throws {
        let heartRate = fhir(
            "8867-4",
            #"{"value": 72, "unit": "beats/minute", "system": "http://unitsofmeasure.org", "code": "/min"}"#
        )
        let glucose = fhir(
            "15074-8",
            #"{"value": 2.9, "unit": "mmol/L", "system": "http://unitsofmeasure.org", "code": "mmol/L"}"#
        )
        let bp = fhir(
            "85354-9",
            "",
            extra:
                #", "component": [{"code": {"coding": [{"system": "http://loinc.org", "code": "8480-6"}]}, "valueQuantity": {"value": 185, "system": "http://unitsofmeasure.org", "code": "mm[Hg]"}}, {"code": {"coding": [{"system": "http://loinc.org", "code": "8462-4"}]}, "valueQuantity": {"value": 95, "system": "http://unitsofmeasure.org", "code": "mm[Hg]"}}]"#
        )
        let invalid: [(String, String)] = [
            (
                fhir("8867-4", #"{"value": 72, "system": "http://unitsofmeasure.org", "code": "bpm"}"#),
                "valueQuantity.code"
            ),
            (fhir("8867-4", #"{"value": 72, "code": "/min"}"#), "valueQuantity.system"),
            (
                fhir("8867-4", #"{"value": "72", "system": "http://unitsofmeasure.org", "code": "/min"}"#),
                "valueQuantity.value"
            ),
            (fhir("1234-5", #"{"value": 1, "system": "http://unitsofmeasure.org", "code": "1"}"#), "code.coding"),
            (
                fhir("8867-4", #"{"value": 72, "system": "http://unitsofmeasure.org", "code": "/min"}"#, patient: "")
                    .replacingOccurrences(
                        of: "Patient/",
                        with: "Group/"
                    ), "subject.reference"
            ),
            (
                fhir("8867-4", #"{"value": 72, "system": "http://unitsofmeasure.org", "code": "/min"}"#)
                    .replacingOccurrences(
                        of: "\"Observation\"",
                        with: "\"Patient\""
                    ), "resourceType"
            ),
        ]
        try await InProcessSUT().test { sut async throws in
            for body in [heartRate, bp, glucose] {
                let answer = try await sut.post("/fhir/Observation", body)
                #expect(answer.status == 201, "\(answer.text)")
                #expect(answer.object["resourceType"] as? String == "Observation")
            }
            #expect(
                try await sut.alertRules("?patient=501") == ["bp.hypertensive-crisis", "glucose.meter-level2-low"],
                "185 > 180; 2.9 mmol/L = 52.2 mg/dL < 54"
            )
            // A patient id the read-back could never serve.
            let slashed = heartRate.replacingOccurrences(of: "Patient/501", with: "Patient/a/b")
            #expect(slashed != heartRate)
            let refused = try await sut.post("/fhir/Observation", slashed)
            #expect(refused.status == 400 && refused.text.contains("must not contain '/'"), "\(refused.text)")
            for (body, field) in invalid {
                let answer = try await sut.post("/fhir/Observation", body)
                #expect(answer.status == 400, "\(body)")
                #expect(answer.object["resourceType"] as? String == "OperationOutcome")
                let issue = (answer.object["issue"] as? [[String: Any]])?.first
                #expect(issue?["expression"] as? [String] == [field], "\(body)")
            }
        }
    }
}
