import ReferenceEngine
import Traffic
import VitalSimCore
import XCTest

/// ECG recordings as the reference SUT takes them: observation JSON with HealthKit's fields and a
/// FHIR Observation with the waveform as SampledData; the average heart rate and the rhythm are
/// stored, every malformed form refused naming its field; `ecg.af-classified` is raised once per
/// episode and re-armed only by a recording classified sinus rhythm.
final class ECGPayloadTests: XCTestCase {
    let now: Int64 = 1_800_000_000_000

    func reading(_ classification: ECGClassification, hr: Int = 118, samples: Int = 15_360) -> Reading {
        let recording = ECGRecording(
            classification: classification,
            averageHeartRate: hr,
            samplingFrequency: 512,
            microvolts: (0..<samples).map { Int16(($0 % 400) - 100) },
            symptomatic: true,
            beats: []
        )
        return Reading(
            source: DeviceIdentity(patientID: "p", deviceID: "watch", deviceType: .ecgWatch),
            seq: 2,
            measuredAt: 0,
            deviceTime: 0,
            intendedEmitTime: 60_000,
            measurement: .ecg(recording),
            truth: Double(hr)
        )
    }

    func observation(_ reading: Reading) throws(ValidationFailure) -> Observation {
        let json = ObservationJSON.encode(reading, start: 1_731_000_000_000)!
        return try PayloadValidation.observation(JSONInput.parse(Array(json.serialized().utf8))!, now: now)
    }

    func refusal(_ edit: (inout [(String, JSONValue)]) -> Void) -> String? {
        guard case var .object(f)? = ObservationJSON.encode(reading(.sinusRhythm), start: 1_731_000_000_000) else {
            return "?"
        }
        edit(&f)
        do throws(ValidationFailure) {
            _ = try PayloadValidation.observation(
                JSONInput.parse(Array(JSONValue.object(f).serialized().utf8))!,
                now: now
            )
            return nil
        } catch { return error.field }
    }

    func testObservationJSONCarriesHealthKitFieldsAndStoresRateAndRhythm() throws {
        XCTAssertEqual(try observation(reading(.atrialFibrillation)).values, [.ecgHeartRate: 118, .ecgAF: 1])
        XCTAssertEqual(try observation(reading(.sinusRhythm, hr: 64)).values, [.ecgHeartRate: 64, .ecgAF: 0])
        XCTAssertEqual(
            try observation(reading(.inconclusivePoorReading)).values,
            [.ecgHeartRate: 118],
            "no rhythm from a poor reading"
        )
        func set(_ key: String, _ value: JSONValue) -> (inout [(String, JSONValue)]) -> Void {
            { f in if let position = f.firstIndex(where: { $0.0 == key }) { f[position].1 = value } }
        }
        XCTAssertEqual(refusal(set("classification", .string("normal"))), "classification")
        XCTAssertEqual(refusal(set("samplingFrequency", .int(20))), "samplingFrequency")
        XCTAssertEqual(
            refusal(set("voltageMeasurements", .array([.int(1), .int(2)]))),
            "voltageMeasurements",
            "under a second"
        )
        XCTAssertEqual(refusal(set("voltageMeasurements", .string("1 2 3"))), "voltageMeasurements")
        XCTAssertEqual(refusal(set("symptomsStatus", .string("maybe"))), "symptomsStatus")
        XCTAssertEqual(refusal(set("unit", .string("{AF}"))), "unit")
        XCTAssertEqual(refusal { $0.removeAll { $0.0 == "classification" } }, "classification")
        XCTAssertEqual(
            refusal { f in
                if let i = f.firstIndex(where: { $0.0 == "voltageMeasurements" }), case var .array(v) = f[i].1 {
                    v[100] = .int(20_000)
                    f[i].1 = .array(v)
                }
            },
            "voltageMeasurements[100]"
        )
    }

    func testFHIRObservationWithSampledData() throws {
        for c in ECGClassification.allCases {
            let json = try XCTUnwrap(FHIRObservationJSON.encode(reading(c), start: 1_731_000_000_000))
            let text = json.serialized()
            XCTAssertTrue(
                text.contains(#""valueSampledData":{"origin":{"value":0,"unit":"uV""#),
                String(text.prefix(2000))
            )
            let observation = try FHIRObservation.parse(JSONInput.parse(Array(text.utf8))!, now: now)
            XCTAssertEqual(observation.values[.ecgHeartRate], 118)
            XCTAssertEqual(observation.values[.ecgAF], c.afValue, c.rawValue)
        }
        let good = try XCTUnwrap(FHIRObservationJSON.encode(reading(.atrialFibrillation), start: 1_731_000_000_000))
        for c in Corruption.jsonForms + [.badFlags, .badCRC] {
            let (body, expected) = FHIRObservationJSON.corrupt(good, c)
            guard let input = JSONInput.parse(body) else {
                XCTAssertEqual(c, .truncation)
                continue
            }
            do throws(ValidationFailure) {
                _ = try FHIRObservation.parse(input, now: now)
                XCTFail("\(c) accepted")
            } catch {
                XCTAssertEqual(expected.canonical(error.field), expected.field, "\(c): the SUT named \(error.field)")
            }
        }
        let short = try XCTUnwrap(
            FHIRObservationJSON.encode(reading(.sinusRhythm, samples: 100), start: 1_731_000_000_000)
        )
        XCTAssertThrowsError(try FHIRObservation.parse(JSONInput.parse(Array(short.serialized().utf8))!, now: now)) {
            XCTAssertEqual(($0 as? ValidationFailure)?.field, "component[1].valueSampledData.data")
        }
    }

    func testAFClassifiedOncePerEpisodeRearmedBySinusOnly() throws {
        let alertEngine = AlertEngine(rules: try RuleSetLoader.defaultRules(), profiles: ["p": .adult])
        var count = 0
        func ecg(_ ecgClassification: ECGClassification, at minutes: Int64) -> [String] {
            count += 1
            var values: [Signal: Double] = [.ecgHeartRate: 110]
            values[.ecgAF] = ecgClassification.afValue
            let observation = Observation(
                readingID: "e\(count)",
                patientID: "p",
                deviceID: "w",
                time: minutes * 60_000,
                values: values
            )
            return alertEngine.ingest(observation).map(\.rule)
        }
        XCTAssertEqual(ecg(.sinusRhythm, at: 0), [])
        XCTAssertEqual(ecg(.atrialFibrillation, at: 60), ["ecg.af-classified"])
        XCTAssertEqual(ecg(.atrialFibrillation, at: 90), [], "the same episode")
        XCTAssertEqual(ecg(.inconclusivePoorReading, at: 100), [])
        XCTAssertEqual(ecg(.atrialFibrillation, at: 110), [], "an inconclusive recording does not re-arm")
        XCTAssertEqual(ecg(.sinusRhythm, at: 200), [])
        XCTAssertEqual(ecg(.atrialFibrillation, at: 300), ["ecg.af-classified"], "a new episode after sinus rhythm")
    }
}
