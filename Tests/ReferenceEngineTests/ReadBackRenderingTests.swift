import ReferenceEngine
import VitalSimCore
import XCTest

/// How stored readings are named when read back: the kind of a multi-value observation, and the
/// LOINC codes a FHIR search accepts.
final class ReadBackRenderingTests: XCTestCase {
    func observation(_ values: [Signal: Double]) -> Observation {
        Observation(readingID: "r", patientID: "501", deviceID: "d", time: 0, values: values)
    }

    func testTheKindOfAMultiValueObservation() {
        XCTAssertEqual(
            StoredReadingJSON.kind(observation([.systolic: 120, .diastolic: 80, .heartRate: 70])),
            "blood-pressure"
        )
        XCTAssertEqual(StoredReadingJSON.kind(observation([.spo2: 97, .heartRate: 70])), "spo2")
        XCTAssertEqual(StoredReadingJSON.kind(observation([.steps: 9000, .calories: 300])), "steps")
        XCTAssertEqual(StoredReadingJSON.kind(observation([.battery: 80])), "battery")
        XCTAssertEqual(StoredReadingJSON.kind(observation([.respirationRate: 18])), "respiration-rate")
    }

    func testSearchCodes() {
        XCTAssertEqual(FHIRObservationSearch.signal(code: "8867-4"), .heartRate)
        XCTAssertEqual(
            FHIRObservationSearch.signal(code: "http://loinc.org|85354-9"),
            .systolic,
            "the panel is blood pressure"
        )
        XCTAssertNil(FHIRObservationSearch.signal(code: "8480-6"), "a component is not searched on its own")
        XCTAssertNil(FHIRObservationSearch.signal(code: "http://snomed.info/sct|8867-4"))
        XCTAssertNil(
            FHIRObservationSearch.resource(observation([.battery: 80]), seq: 1),
            "a battery level is no patient observation"
        )
        guard case let .object(f)? = FHIRObservationSearch.resource(observation([.temperature: 37.25]), seq: 7) else {
            return XCTFail("a temperature is listed")
        }
        XCTAssertEqual(f.first { $0.0 == "id" }?.1, .string("r7"))
    }
}
