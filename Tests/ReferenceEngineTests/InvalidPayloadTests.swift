import ReferenceEngine
import Traffic
import VitalSimCore
import XCTest

/// Every invalid JSON form the harness sends (``Corruption/jsonForms``) to the VitalEdge endpoints and
/// the observation endpoint is one the reference SUT refuses with 400, naming the field the plan
/// expects — and the same payloads uncorrupted are accepted.
final class InvalidPayloadTests: XCTestCase {
    static let text = """
        name: invalid-json
        seed: 3
        duration: 2h
        start: 2024-11-07T23:00:00Z
        patients:
          - id: "801"
            profile: adult
            devices:
              - {id: phone, type: phone-bridge, cadence: 5m}
              - {id: cuff, type: bp-cuff, transport: https, cadence: 10m}
              - {id: thermo, type: thermometer, transport: https, cadence: 10m}
              - {id: patch, type: respiration-monitor, cadence: 10m}
              - {id: diary, type: symptom-diary, spontaneous: 0}
        timeline:
          - at: 1m
            patient: "801"
            event: exercise
            duration: 100m
            symptoms: {palpitations: 1, dizziness: 1, chest-pain: 1, shortness-of-breath: 1, fainting: 1}
          - {at: 1m, fault: corrupt, device: diary, duration: 100m, probability: 1, corruption: mixed}
          - {at: 10m, fault: corrupt, device: phone, duration: 80m, probability: 1}
          - {at: 10m, fault: corrupt, device: cuff, duration: 80m, probability: 1, corruption: mixed}
          - {at: 10m, fault: corrupt, device: thermo, duration: 80m, probability: 1, corruption: mixed}
          - {at: 10m, fault: corrupt, device: patch, duration: 80m, probability: 1, corruption: mixed}
        """

    /// The reference SUT's verdict on one request: nil accepted, else the field it names.
    func refusal(_ plannedRequest: PlannedRequest, now: Int64) -> String? {
        guard let body = JSONInput.parse(plannedRequest.body) else { return "" }
        do throws(ValidationFailure) {
            switch plannedRequest.path {
            case "/api/iot-heart-rate": _ = try PayloadValidation.iotHeartRate(body, now: now)
            case "/api/healthkit": _ = try PayloadValidation.healthKitSummary(body, now: now)
            default:
                if case let .array(items) = body {
                    for item in items { _ = try PayloadValidation.observation(item, now: now) }
                } else {
                    _ = try PayloadValidation.observation(body, now: now)
                }
            }
            return nil
        } catch { return error.field }
    }

    func testEveryInvalidFormIsRefusedNamingTheExpectedField() throws {
        let scenario = try ScenarioLoader.parse(Self.text, file: "invalid-json.yaml")
        let now = scenario.startUnixMilliseconds + 86_400_000
        var formsByPath: [String: Set<String>] = [:]
        var corrupted = 0
        for r in TrafficPlan.requests(for: scenario) {
            let verdict = refusal(r, now: now)
            guard let expected = r.expectedRejection else {
                XCTAssertNil(
                    verdict,
                    "\(r.path) \(r.readings.first?.id ?? ""): \(String(decoding: r.body, as: UTF8.self))"
                )
                continue
            }
            corrupted += 1
            XCTAssertEqual(expected.status, 400)
            XCTAssertEqual(verdict, expected.field, "\(r.path): \(String(decoding: r.body, as: UTF8.self))")
            formsByPath[r.path, default: []].insert(expected.field)
        }
        XCTAssertGreaterThanOrEqual(corrupted, 7 * 4)
        XCTAssertEqual(formsByPath["/api/iot-heart-rate"], ["heartRate", "timestamp", "unexpectedField", ""])
        XCTAssertEqual(formsByPath["/api/healthkit"], ["stepCount"], "the midnight summary is corrupted too")
        XCTAssertEqual(formsByPath["/api/v1/observations"], ["systolic", "value", "timestamp", "unexpectedField", ""])
    }

    /// `mixed` gives each corrupted reading of a kind the next JSON form, every form in turn.
    func testMixedCyclesThroughTheJSONFormsPerKind() throws {
        let scenario = try ScenarioLoader.parse(Self.text, file: "invalid-json.yaml")
        var run = ScenarioRun(scenario: scenario)
        var forms: [Corruption] = []
        while let (reading, _) = run.next() {
            if reading.deviceID == "thermo", reading.kind == .temperature, let corruption = reading.delivery.corruption
            {
                forms.append(corruption)
            }
        }
        XCTAssertEqual(forms, Corruption.jsonForms + [Corruption.jsonForms[0]])
    }

    /// The Health Hearts SRS's feeds: a bottle feed in mL (method optional), a breastfeed in minutes at the
    /// breast; a breastfeed in mL, or another method, is refused naming the field.
    func testBreastAndBottleFeedsAreToldApart() throws {
        func feed(_ extra: String) throws(ValidationFailure) -> Observation {
            let text =
                #"{"readingId": "f1", "patientId": "p", "deviceId": "log", "kind": "feeding", "timestamp": "2024-11-07T09:05:00Z", "#
                + extra + "}"
            return try PayloadValidation.observation(JSONInput.parse(Array(text.utf8))!, now: 1_800_000_000_000)
        }
        XCTAssertEqual(try feed(#""value": 90, "unit": "mL""#).values, [.feeding: 90])
        XCTAssertEqual(try feed(#""method": "bottle", "value": 90, "unit": "mL""#).values, [.feeding: 90])
        XCTAssertEqual(try feed(#""method": "breast", "value": 18, "unit": "min""#).values, [.breastfeeding: 18])
        XCTAssertThrowsError(try feed(#""method": "breast", "value": 90, "unit": "mL""#)) {
            XCTAssertEqual(($0 as? ValidationFailure)?.field, "unit")
        }
        XCTAssertThrowsError(try feed(#""method": "formula", "value": 90, "unit": "mL""#)) {
            XCTAssertEqual(($0 as? ValidationFailure)?.field, "method")
        }
        XCTAssertThrowsError(try feed(#""method": "breast", "value": 0, "unit": "min""#)) {
            XCTAssertEqual(($0 as? ValidationFailure)?.field, "value")
        }
    }

    /// Each JSON form's body, on an observation: what a backend receives.
    func testTheFormsLookAsDocumented() throws {
        let json = JSONValue.object([
            ("readingId", .string("1/t/0")), ("kind", .string("temperature")), ("value", .double(37.1)),
            ("unit", .string("Cel")), ("timestamp", .string("2024-11-07T09:05:00.000Z")),
        ])
        func body(_ corruption: Corruption) -> String {
            String(decoding: ObservationJSON.corrupt(json, corruption).0, as: UTF8.self)
        }
        XCTAssertTrue(body(.wrongType).contains(#""value":"37.1""#), body(.wrongType))
        XCTAssertFalse(body(.missingField).contains(#""value""#), body(.missingField))
        XCTAssertTrue(body(.outOfRange).contains(#""value":-1"#), body(.outOfRange))
        XCTAssertTrue(body(.badTimestamp).contains(#""timestamp":"07/11/2024 09:05:00""#), body(.badTimestamp))
        XCTAssertTrue(
            body(.futureTimestamp).contains(#""timestamp":"2124-11-07T09:05:00.000Z""#),
            body(.futureTimestamp)
        )
        XCTAssertTrue(body(.unknownField).hasSuffix(#""unexpectedField":true}"#), body(.unknownField))
        XCTAssertNil(JSONInput.parse(Array(body(.truncation).utf8)), "a truncated body does not parse")
    }
}

/// The phone bridge's other fields: a user id of the wrong type and negative calories, refused by
/// the reference SUT naming them; on a heart rate, `bad-calories` is the out-of-range form.
final class PhoneFieldCorruptionTests: XCTestCase {
    func testTheUserIdAndCaloriesFormsAreRefusedNamingTheirField() throws {
        let fields: [(String, JSONValue)] = [
            ("userId", .string("501")), ("timestamp", .string("2024-11-08T00:00:00Z")), ("stepCount", .int(9000)),
            ("caloriesBurned", .int(360)),
        ]
        let now = Int64(1_731_024_000_000) + 60_000
        let user = try XCTUnwrap(JSONCorruption.apply(fields, .badUserID, measurement: "stepCount"))
        XCTAssertEqual(
            String(decoding: user.0, as: UTF8.self),
            #"{"userId":501,"timestamp":"2024-11-08T00:00:00Z","stepCount":9000,"caloriesBurned":360}"#
        )
        XCTAssertEqual(user.1.field, "userId")
        let calories = try XCTUnwrap(JSONCorruption.apply(fields, .badCalories, measurement: "stepCount"))
        XCTAssertEqual(calories.1.field, "caloriesBurned")
        for (body, field) in [(user.0, "userId"), (calories.0, "caloriesBurned")] {
            let input = try XCTUnwrap(JSONInput.parse(body))
            XCTAssertThrowsError(try PayloadValidation.healthKitSummary(input, now: now)) { error in
                XCTAssertEqual((error as? ValidationFailure)?.field, field)
            }
        }
        let heartRate: [(String, JSONValue)] = [
            ("userId", .string("501")), ("timestamp", .string("2024-11-08T00:00:00Z")), ("heartRate", .int(72)),
        ]
        let outOfRange = try XCTUnwrap(JSONCorruption.apply(heartRate, .badCalories, measurement: "heartRate"))
        XCTAssertEqual(outOfRange.1.field, "heartRate")
        XCTAssertTrue(String(decoding: outOfRange.0, as: UTF8.self).contains(#""heartRate":-1"#))
    }
}
