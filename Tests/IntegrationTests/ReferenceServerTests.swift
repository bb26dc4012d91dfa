import Foundation
import ReferenceEngine
import XCTest

/// `vitalsim serve` started for real on an ephemeral port: seed payloads accepted, invalid payloads
/// rejected with the offending field, duplicates acknowledged once, alerts raised and polled.
final class ReferenceServerTests: XCTestCase {
    var server: SUTProcess?
    var base = ""
    var directory = ""

    override func setUpWithError() throws {
        directory = TestSupport.temporaryDirectory("sut")
        let s = try SUTProcess(["--patient", "504=diabetic-cgm", "--database", directory + "/sut.sqlite"], directory: directory)
        XCTAssertTrue(s.base.hasPrefix("http://127.0.0.1:"), s.base)
        server = s
        base = s.base
    }

    override func tearDown() {
        XCTAssertEqual(server?.stop(), 0, "SIGTERM ends the server cleanly")
        try? FileManager.default.removeItem(atPath: directory)
    }

    func post(_ path: String, _ body: String) throws -> (Int, [String: Any]) {
        let r = try TestSupport.run(
            "curl",
            ["-s", "-w", "\n%{http_code}", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", body, base + path]
        )
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let json = (try? JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8))) as? [String: Any] ?? [:]
        return (status, json)
    }

    func testSeedPayloadsAreAccepted() throws {
        var (status, _) = try post(
            "/api/healthkit",
            #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "stepCount": 1000, "caloriesBurned": 200}"#
        )
        XCTAssertEqual(status, 200)
        (status, _) = try post("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75}"#)
        XCTAssertEqual(status, 200)
        // Other spellings of UTC: an offset of +00:00 and fractions of a second.
        for ts in ["2024-11-07T12:35:58+00:00", "2024-11-07T12:36:58.5Z", "2024-11-07T12:37:58.123456Z"] {
            (status, _) = try post("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "\#(ts)", "heartRate": 75}"#)
            XCTAssertEqual(status, 200, ts)
        }
        let health = try TestSupport.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", base + "/healthz"])
        XCTAssertEqual(health.out, "200")
    }

    func testInvalidPayloadsNameTheField() throws {
        let cases: [(String, String, String)] = [
            ("/api/iot-heart-rate", #"{"timestamp": "2024-11-07T12:34:58Z", "heartRate": 75}"#, "userId"),
            ("/api/iot-heart-rate", #"{"userId": 501, "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75}"#, "userId"),
            ("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": "75"}"#, "heartRate"),
            ("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75.5}"#, "heartRate"),
            ("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 400}"#, "heartRate"),
            ("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "07/11/2024 12:34", "heartRate": 75}"#, "timestamp"),
            ("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2099-01-01T00:00:00Z", "heartRate": 75}"#, "timestamp"),
            ("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07T14:34:58+02:00", "heartRate": 75}"#, "timestamp"),
            ("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07t12:34:58z", "heartRate": 75}"#, "timestamp"),
            ("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-02-30T12:34:58Z", "heartRate": 75}"#, "timestamp"),
            ("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75, "bpm": 75}"#, "bpm"),
            (
                "/api/healthkit", #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "stepCount": -5, "caloriesBurned": 200}"#,
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
            ("/api/iot-heart-rate", "not json", ""),
            ("/api/iot-heart-rate", "[1, 2]", ""),
            ("/api/iot-heart-rate", String(repeating: "[", count: 20) + String(repeating: "]", count: 20), ""),
        ]
        for (path, body, field) in cases {
            let (status, json) = try post(path, body)
            XCTAssertEqual(status, 400, "\(path) \(body)")
            XCTAssertEqual(json["field"] as? String, field, "\(path) \(body): \(json)")
            XCTAssertFalse((json["error"] as? String ?? "").isEmpty)
        }
    }

    func testOversizedBodiesAreRefusedWith413() throws {
        let big =
            "["
            + Array(
                repeating:
                    #"{"readingId": "x", "patientId": "501", "deviceId": "d", "kind": "spo2", "value": 97, "unit": "%", "timestamp": "2024-11-07T12:00:00Z"}"#,
                count: 2500
            ).joined(separator: ",") + "]"
        XCTAssertGreaterThan(big.utf8.count, 256 * 1024)
        let path = TestSupport.write(big, to: directory, name: "big.json")
        let r = try TestSupport.run(
            "curl",
            [
                "-s", "-w", "\n%{http_code}", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@" + path,
                base + "/api/v1/observations",
            ]
        )
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.last, "413")
        let body = try JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8)) as? [String: Any]
        XCTAssertTrue((body?["error"] as? String ?? "").contains("262144"), "\(String(describing: body))")
    }

    func testDuplicatesAreAcknowledgedOnceAndAlertsArePolled() throws {
        let reading =
            #"{"readingId": "504/cgm/1", "patientId": "504", "deviceId": "cgm", "kind": "cgm", "value": 50, "unit": "mg/dL", "timestamp": "2024-11-07T03:00:00Z"}"#
        var (status, json) = try post("/api/v1/observations", reading)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["accepted"] as? Int, 1)
        (status, json) = try post("/api/v1/observations", reading)
        XCTAssertEqual(json["duplicates"] as? Int, 1, "a duplicate is acknowledged and not counted twice")
        let r = try TestSupport.run("curl", ["-s", base + "/api/v1/alerts?patient=504"])
        let alerts = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [[String: Any]]
        XCTAssertEqual(alerts.map { $0["rule"] as? String }, ["glucose.urgent-low"], "50 mg/dL is at or below 55; level 2 needs 15 minutes")
        XCTAssertEqual(alerts.first?["evidence"] as? [String], ["504/cgm/1"])
        XCTAssertEqual(alerts.first?["raisedAt"] as? String, "2024-11-07T03:00:00.000Z", "judged by device time")
        // Sustained tachycardia over the VitalEdge IoT endpoint (adult profile by default).
        for m in 0...10 {
            let ts = String(format: "2024-11-07T12:%02d:00Z", m)
            XCTAssertEqual(try post("/api/iot-heart-rate", #"{"userId": "501", "timestamp": "\#(ts)", "heartRate": 130}"#).0, 200)
        }
        let t = try TestSupport.run("curl", ["-s", base + "/api/v1/alerts?patient=501&since=2024-11-07T00:00:00Z"])
        let rules = (try JSONSerialization.jsonObject(with: Data(t.out.utf8)) as! [[String: Any]]).map { $0["rule"] as? String }
        XCTAssertEqual(rules, ["hr.tachycardia"])
    }

    func fhir(_ code: String, _ quantity: String, patient: String = "501", extra: String = "") -> String {
        #"{"resourceType": "Observation", "status": "final", "code": {"coding": [{"system": "http://loinc.org", "code": "\#(code)"}]}, "subject": {"reference": "Patient/\#(patient)"}, "effectiveDateTime": "2024-11-07T08:00:00Z"\#(quantity.isEmpty ? "" : ", \"valueQuantity\": " + quantity)\#(extra)}"#
    }

    func testFHIRObservationsWithLOINCAndUCUM() throws {
        XCTAssertEqual(
            try post(
                "/fhir/Observation",
                fhir("8867-4", #"{"value": 72, "unit": "beats/minute", "system": "http://unitsofmeasure.org", "code": "/min"}"#)
            ).0,
            201
        )
        let bp = fhir(
            "85354-9",
            "",
            extra:
                #", "component": [{"code": {"coding": [{"system": "http://loinc.org", "code": "8480-6"}]}, "valueQuantity": {"value": 185, "system": "http://unitsofmeasure.org", "code": "mm[Hg]"}}, {"code": {"coding": [{"system": "http://loinc.org", "code": "8462-4"}]}, "valueQuantity": {"value": 95, "system": "http://unitsofmeasure.org", "code": "mm[Hg]"}}]"#
        )
        XCTAssertEqual(try post("/fhir/Observation", bp).0, 201)
        XCTAssertEqual(
            try post(
                "/fhir/Observation",
                fhir("15074-8", #"{"value": 2.9, "unit": "mmol/L", "system": "http://unitsofmeasure.org", "code": "mmol/L"}"#)
            ).0,
            201
        )
        let r = try TestSupport.run("curl", ["-s", base + "/api/v1/alerts?patient=501"])
        let rules = (try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [[String: Any]]).map { $0["rule"] as? String }
        XCTAssertEqual(rules, ["bp.hypertensive-crisis", "glucose.meter-level2-low"], "185 > 180; 2.9 mmol/L = 52.2 mg/dL < 54")

        let invalid: [(String, String)] = [
            (fhir("8867-4", #"{"value": 72, "system": "http://unitsofmeasure.org", "code": "bpm"}"#), "valueQuantity.code"),
            (fhir("8867-4", #"{"value": 72, "code": "/min"}"#), "valueQuantity.system"),
            (fhir("8867-4", #"{"value": "72", "system": "http://unitsofmeasure.org", "code": "/min"}"#), "valueQuantity.value"),
            (fhir("1234-5", #"{"value": 1, "system": "http://unitsofmeasure.org", "code": "1"}"#), "code.coding"),
            (
                fhir("8867-4", #"{"value": 72, "system": "http://unitsofmeasure.org", "code": "/min"}"#, patient: "").replacingOccurrences(
                    of: "Patient/",
                    with: "Group/"
                ), "subject.reference"
            ),
            (
                fhir("8867-4", #"{"value": 72, "system": "http://unitsofmeasure.org", "code": "/min"}"#).replacingOccurrences(
                    of: "\"Observation\"",
                    with: "\"Patient\""
                ), "resourceType"
            ),
        ]
        for (body, field) in invalid {
            let (status, json) = try post("/fhir/Observation", body)
            XCTAssertEqual(status, 400, body)
            XCTAssertEqual(json["resourceType"] as? String, "OperationOutcome")
            let issue = (json["issue"] as? [[String: Any]])?.first
            XCTAssertEqual(issue?["expression"] as? [String], [field], body)
        }
    }
}
