import ReferenceEngine
import Traffic
import VitalSimCore
import XCTest

/// Symptom reports as the reference SUT takes them: observation JSON (`kind: symptom`, the symptom
/// named, its severity 1...3 as the value) and FHIR (SNOMED CT finding and severity), every malformed
/// form refused naming its field.
final class SymptomPayloadTests: XCTestCase {
    let now: Int64 = 1_800_000_000_000

    func observation(_ extra: String) throws(ValidationFailure) -> Observation {
        let text =
            #"{"readingId": "s1", "patientId": "p", "deviceId": "diary", "kind": "symptom", "timestamp": "2024-11-07T09:05:00Z", "#
            + extra + "}"
        return try PayloadValidation.observation(JSONInput.parse(Array(text.utf8))!, now: now)
    }

    func refusedField(_ extra: String) -> String? {
        do throws(ValidationFailure) {
            _ = try observation(extra)
            return nil
        } catch { return error.field }
    }

    func testObservationJSON() throws {
        XCTAssertEqual(
            try observation(#""symptom": "chest-pain", "value": 3, "unit": "{severity}""#).values,
            [.chestPain: 3]
        )
        XCTAssertEqual(
            try observation(#""symptom": "palpitations", "value": 1.0, "unit": "{severity}""#).values,
            [.palpitations: 1]
        )
        XCTAssertEqual(refusedField(#""symptom": "headache", "value": 1, "unit": "{severity}""#), "symptom")
        XCTAssertEqual(refusedField(#""value": 1, "unit": "{severity}""#), "symptom")
        XCTAssertEqual(refusedField(#""symptom": "dizziness", "value": 4, "unit": "{severity}""#), "value")
        XCTAssertEqual(refusedField(#""symptom": "dizziness", "value": 0, "unit": "{severity}""#), "value")
        XCTAssertEqual(refusedField(#""symptom": "dizziness", "value": 1.5, "unit": "{severity}""#), "value")
        XCTAssertEqual(refusedField(#""symptom": "dizziness", "value": 2, "unit": "/min""#), "unit")
        XCTAssertEqual(
            refusedField(#""symptom": "dizziness", "value": 2, "unit": "{severity}", "method": "breast""#),
            "method"
        )
    }

    func reading(_ symptom: SymptomKind, _ severity: SymptomSeverity) -> Reading {
        Reading(
            source: DeviceIdentity(patientID: "p", deviceID: "diary", deviceType: .symptomDiary),
            seq: 4,
            measuredAt: 3_600_000,
            deviceTime: 3_600_000,
            intendedEmitTime: 4_000_000,
            measurement: .symptom(symptom, severity: severity),
            truth: Double(severity.rawValue)
        )
    }

    func testFHIRObservationRoundTripsEverySymptomAndSeverity() throws {
        let start: Int64 = 1_731_000_000_000
        for symptom in SymptomKind.allCases {
            for severity in SymptomSeverity.allCases {
                let json = try XCTUnwrap(FHIRObservationJSON.encode(reading(symptom, severity), start: start))
                let text = json.serialized()
                XCTAssertTrue(
                    text.contains(#""system":"http://snomed.info/sct","code":"\#(symptom.snomed.code)""#),
                    text
                )
                let observation = try FHIRObservation.parse(JSONInput.parse(Array(text.utf8))!, now: now)
                XCTAssertEqual(observation.values, [symptom.signal: Double(severity.rawValue)])
                XCTAssertEqual(observation.time, start + 3_600_000, "effectiveDateTime is the onset")
                XCTAssertEqual(observation.readingID, "p/diary/4")
            }
        }
    }

    func testCorruptedFHIRSymptomsAreRefusedNamingTheirField() throws {
        let json = try XCTUnwrap(FHIRObservationJSON.encode(reading(.fainting, .severe), start: 1_731_000_000_000))
        for c in Corruption.jsonForms + [.badFlags, .badCRC] {
            let (body, expected) = FHIRObservationJSON.corrupt(json, c)
            guard let input = JSONInput.parse(body) else {
                XCTAssertEqual(c, .truncation, "only a truncated body does not parse")
                continue
            }
            do throws(ValidationFailure) {
                _ = try FHIRObservation.parse(input, now: now)
                XCTFail("\(c) accepted: \(String(decoding: body, as: UTF8.self))")
            } catch {
                XCTAssertEqual(expected.canonical(error.field), expected.field, "\(c): the SUT named \(error.field)")
            }
        }
    }
}

/// Equipment log entries as the reference SUT takes them: the item's setting in its unit, with
/// the action; a wrong item, action, unit or setting refused naming its field.
final class EquipmentPayloadTests: XCTestCase {
    func refusedField(_ extra: String) -> String? {
        let text =
            #"{"readingId": "k1", "patientId": "p", "deviceId": "kit", "kind": "equipment", "timestamp": "2024-11-07T09:05:00Z", "#
            + extra + "}"
        do throws(ValidationFailure) {
            _ = try PayloadValidation.observation(JSONInput.parse(Array(text.utf8))!, now: 1_800_000_000_000)
            return nil
        } catch { return error.field }
    }

    func testEquipmentEntries() throws {
        let text =
            #"{"readingId": "k1", "patientId": "p", "deviceId": "kit", "kind": "equipment", "timestamp": "2024-11-07T09:05:00Z", "item": "oxygen", "action": "adjusted", "value": 1.5, "unit": "L/min"}"#
        XCTAssertEqual(
            try PayloadValidation.observation(JSONInput.parse(Array(text.utf8))!, now: 1_800_000_000_000).values,
            [.oxygenFlow: 1.5]
        )
        XCTAssertNil(refusedField(#""item": "ng-tube", "action": "replaced", "value": 8, "unit": "[Ch]""#))
        XCTAssertEqual(refusedField(#""item": "ventilator", "action": "in-use", "value": 1, "unit": "1""#), "item")
        XCTAssertEqual(refusedField(#""item": "oxygen", "action": "broken", "value": 1, "unit": "L/min""#), "action")
        XCTAssertEqual(refusedField(#""item": "oxygen", "value": 1, "unit": "L/min""#), "action")
        XCTAssertEqual(refusedField(#""item": "oxygen", "action": "in-use", "value": 1, "unit": "mL/h""#), "unit")
        XCTAssertEqual(refusedField(#""item": "oxygen", "action": "in-use", "value": 30, "unit": "L/min""#), "value")
    }
}
