import Foundation
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// Ids at the SUT (`lifecycle.patient-id` / `device-id`): the traffic carries them, the plan and
/// the digest keep the scenario's, and what the SUT reports maps back.
final class WireNamingTests: XCTestCase {
    let crisis = Fixtures.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"
    let vitaledge = Fixtures.repositoryRoot + "/scenarios/core/vitaledge-daily-summary.yaml"

    func testTrafficCarriesTheSUTsIdsWhileThePlanKeepsTheScenarios() throws {
        let scenario = try ScenarioLoader.load(path: crisis)
        let naming = try WireNaming(
            patientTemplate: "r7-{scenario}-{patient}",
            deviceTemplate: "{device}-x",
            run: "r7",
            scenario: scenario
        )
        let plain = Array(TrafficPlanStream(for: scenario))
        let renamed = Array(TrafficPlanStream(for: scenario, naming: naming))
        XCTAssertEqual(plain.count, renamed.count)
        for (a, b) in zip(plain, renamed) {
            XCTAssertEqual(a.patientID, b.patientID)
            XCTAssertEqual(a.deviceID, b.deviceID)
            XCTAssertEqual(a.readings.map(\.id), b.readings.map(\.id))
            XCTAssertEqual(a.sendAt, b.sendAt)
            let body = String(decoding: b.body, as: UTF8.self)
            XCTAssertTrue(body.contains(#""patientId":"r7-hypertensive-crisis-507""#), body)
            XCTAssertTrue(body.contains(#""deviceId":"cuff-507-x""#), body)
            XCTAssertFalse(body.contains(#""patientId":"507""#), body)
            XCTAssertEqual(
                String(decoding: a.body, as: UTF8.self).replacingOccurrences(
                    of: "507/cuff-507/",
                    with: "r7-hypertensive-crisis-507/cuff-507-x/"
                )
                .replacingOccurrences(of: #""patientId":"507""#, with: #""patientId":"r7-hypertensive-crisis-507""#)
                .replacingOccurrences(of: #""deviceId":"cuff-507""#, with: #""deviceId":"cuff-507-x""#),
                body,
                "only the ids change"
            )
        }
        XCTAssertEqual(naming.scenarioPatient("r7-hypertensive-crisis-507"), "507")
        XCTAssertNil(naming.scenarioPatient("507"), "a patient outside the run is not the run's")
        XCTAssertNil(naming.scenarioPatient("r6-hypertensive-crisis-507"))
        XCTAssertEqual(naming.scenarioReadingID("r7-hypertensive-crisis-507/cuff-507-x/12"), "507/cuff-507/12")
        XCTAssertEqual(
            naming.scenarioReadingID("r7-hypertensive-crisis-507/cuff-507-x/battery/3"),
            "507/cuff-507/battery/3"
        )
        XCTAssertEqual(naming.scenarioReadingID("someone-else/cuff/1"), "someone-else/cuff/1")
    }

    func testIdsTheSUTDerivesFromThePatientMapBack() throws {
        let scenario = try ScenarioLoader.load(path: vitaledge)
        let naming = try WireNaming(patientTemplate: "a-{patient}", deviceTemplate: nil, run: "a", scenario: scenario)
        let patient = try XCTUnwrap(scenario.patients.first?.id)
        XCTAssertEqual(
            naming.scenarioReadingID("a-\(patient)/iot-heart-rate/1700000000000"),
            "\(patient)/iot-heart-rate/1700000000000"
        )
        let bodies = TrafficPlanStream(for: scenario, naming: naming).prefix(20).map {
            String(decoding: $0.body, as: UTF8.self)
        }
        XCTAssertTrue(bodies.contains { $0.contains(#""userId":"a-\#(patient)""#) }, bodies.joined(separator: "\n"))
    }

    func testIdentityAndCollisions() throws {
        let scenario = try ScenarioLoader.load(path: crisis)
        let same = try WireNaming(patientTemplate: nil, deviceTemplate: nil, run: "x", scenario: scenario)
        XCTAssertTrue(same.isIdentity)
        XCTAssertEqual(same.scenarioPatient("anyone"), "anyone", "without renaming every patient is the run's")
        XCTAssertThrowsError(
            try WireNaming(patientTemplate: "{patient}/{run}", deviceTemplate: nil, run: "x", scenario: scenario)
        ) {
            XCTAssertTrue(($0 as? WireNamingError)?.description.contains("contains '/'") == true, "\($0)")
        }
        var two = scenario
        two.patients[0].devices.append(two.patients[0].devices[0])
        two.patients[0].devices[1].id = "second"
        XCTAssertThrowsError(try WireNaming(patientTemplate: nil, deviceTemplate: "fixed", run: "x", scenario: two)) {
            XCTAssertEqual(($0 as? WireNamingError), .shared("fixed", "devices cuff-507 and second of patient 507"))
        }
        XCTAssertEqual(WireNaming.idSafe("t1d_nocturnal hypo"), "t1d-nocturnal-hypo")
    }
}
