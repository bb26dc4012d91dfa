import VitalSimCore
import XCTest

/// MQTT topic templates: filled in by the harness, turned into a subscription filter and read back
/// by the reference SUT; malformed templates refused with the reason.
final class MQTTTopicTemplateTests: XCTestCase {
    func testFillFilterAndMatch() throws {
        let mqttTopicTemplate = try MQTTTopicTemplate("rpm/{patient}/devices/{device}/{kind}")
        XCTAssertEqual(
            mqttTopicTemplate.topic(patient: "501", device: "hr-strap", kind: "heart-rate"),
            "rpm/501/devices/hr-strap/heart-rate"
        )
        XCTAssertEqual(mqttTopicTemplate.filter, "rpm/+/devices/+/+")
        XCTAssertEqual(
            mqttTopicTemplate.match("rpm/501/devices/hr-strap/heart-rate"),
            ["patient": "501", "device": "hr-strap", "kind": "heart-rate"]
        )
        XCTAssertNil(mqttTopicTemplate.match("rpm/501/device/hr-strap/heart-rate"), "a literal level differs")
        XCTAssertNil(mqttTopicTemplate.match("rpm/501/devices/hr-strap"), "a level is missing")
        XCTAssertNil(mqttTopicTemplate.match("rpm//devices/hr-strap/heart-rate"), "an empty placeholder level")
        XCTAssertEqual(mqttTopicTemplate.description, "rpm/{patient}/devices/{device}/{kind}")
        XCTAssertEqual(MQTTTopicTemplate.vitalsim, try MQTTTopicTemplate("vitals/{patient}/{kind}"))
        XCTAssertTrue(mqttTopicTemplate.names("device"))
        XCTAssertFalse(MQTTTopicTemplate.vitalsim.names("device"))
    }

    func testMalformedTemplatesAreRefused() {
        for (text, reason) in [
            ("vitals/{patient}/+", "no wildcards"), ("vitals//{kind}", "no empty level"),
            ("vitals/p-{patient}", "a whole level"),
            ("vitals/{user}", "unknown placeholder {user}"), ("{patient}/{patient}", "appears twice"),
        ] {
            XCTAssertThrowsError(try MQTTTopicTemplate(text), text) {
                XCTAssertTrue(($0 as? MQTTTopicTemplateError)?.description.contains(reason) == true, "\(text): \($0)")
            }
        }
    }
}
