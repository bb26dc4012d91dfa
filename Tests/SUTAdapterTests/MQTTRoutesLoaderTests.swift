import Foundation
import SUTAdapter
import Traffic
import VitalSimCore
import XCTest

/// Routes with a `transport` (MQTT routes with their topic, `gatt`) and `mqtt.confirmations`: parsed,
/// and every mistake named.
final class MQTTRoutesLoaderTests: XCTestCase {
    func parse(_ text: String) throws(ScenarioLoadError) -> SUTProfile {
        try SUTProfileLoader.parse(text, file: "/tmp/p.yaml", environment: [:])
    }

    func problem(_ text: String) -> String {
        do throws(ScenarioLoadError) {
            _ = try parse(text)
            return "loaded"
        } catch { return error.description }
    }

    func testMQTTAndHTTPRoutes() throws {
        let profile = try parse(
            """
            name: gateway
            mqtt:
              topic: "rpm/{patient}/{kind}"
            ingestion:
              routes:
                - {device-types: [heart-rate-strap], transport: mqtt, format: gatt, topic: "ble/{patient}/{device}"}
                - {device-types: [pulse-oximeter], transport: mqtt, format: fhir-observation}
                - {device-types: [thermometer], transport: http, path: /fhir/Observation, format: fhir-observation}
                - {path: /api/v1/observations, format: vitalsim-observation}
            """
        )
        let routes = profile.ingestion.routes.routes
        XCTAssertEqual(routes.map(\.transport), [.mqtt, .mqtt, .http, nil])
        XCTAssertEqual(routes[0].format.name, "gatt")
        XCTAssertEqual(routes[0].topic?.description, "ble/{patient}/{device}")
        XCTAssertEqual(routes[0].batch, 1)
        XCTAssertNil(routes[1].topic, "the profile's mqtt.topic")
        XCTAssertEqual(routes[1].summary, "MQTT mqtt.topic")
        XCTAssertEqual(routes[2].summary, "POST /fhir/Observation")
        XCTAssertEqual(profile.mqttTopics.map(\.description), ["rpm/{patient}/{kind}", "ble/{patient}/{device}"])
        XCTAssertEqual(SUTProfile.vitalsim.mqttTopics, [], "the reference contract's topic alone")
        XCTAssertTrue(profile.ingestion.routes.sendsOverMQTT(.heartRateStrap, scenarioTransport: .ble))
        XCTAssertFalse(profile.ingestion.routes.sendsOverMQTT(.thermometer, scenarioTransport: .mqtt), "moved to HTTP")
        XCTAssertFalse(profile.ingestion.routes.sendsOverMQTT(.bpCuff, scenarioTransport: .ble))
        XCTAssertTrue(
            profile.ingestion.routes.sendsOverMQTT(.bpCuff, scenarioTransport: .mqtt),
            "no route moves it: mqtt.topic"
        )
    }

    func testTheSUTsConfirmationsOfMQTTReadings() throws {
        XCTAssertNil(try parse("name: a\nmqtt:\n  confirmations: none").mqtt.confirmations)
        let reference = SUTProfile.MQTTConfirmations()
        XCTAssertTrue(reference.matches("acks/501"))
        XCTAssertEqual(reference.read(Array(#"{"readingIds": ["a", "b"], "status": 201}"#.utf8)), ["a", "b"])
        XCTAssertEqual(reference.read(Array(#"{"readingId": "c"}"#.utf8)), ["c"])
        XCTAssertEqual(reference.read(Array("not json".utf8)), [])

        let confirmations = try XCTUnwrap(
            try parse("name: a\nmqtt:\n  confirmations: {topic: \"rpm/+/stored\", reading-id: /data/ids}").mqtt
                .confirmations
        )
        XCTAssertTrue(confirmations.matches("rpm/501/stored"))
        XCTAssertFalse(confirmations.matches("acks/501") || confirmations.matches("rpm/501/stored/x"))
        XCTAssertEqual(
            confirmations.read(Array(#"{"data": {"ids": ["x", 7, "y"]}}"#.utf8)),
            ["x", "y"],
            "ids that are not strings are skipped"
        )
        XCTAssertEqual(confirmations.read(Array(#"{"readingIds": ["a"]}"#.utf8)), [], "only where the profile says")
        let two = try XCTUnwrap(
            try parse("name: a\nmqtt:\n  confirmations: {reading-id: [/one, /many]}").mqtt.confirmations
        )
        XCTAssertEqual(two.read(Array(#"{"one": "a", "many": ["b"]}"#.utf8)), ["a", "b"])

        XCTAssertTrue(
            problem("name: a\nmqtt:\n  confirmations: {topic: \"a/#/b\"}").contains(
                "mqtt.confirmations.topic: expected an MQTT topic filter"
            )
        )
        XCTAssertTrue(
            problem("name: a\nmqtt:\n  confirmations: {reading-id: [x]}").contains("mqtt.confirmations.reading-id[0]")
        )
        XCTAssertTrue(problem("name: a\nmqtt:\n  confirmations: {ids: /x}").contains("mqtt.confirmations"))
    }

    func testDeviceCredentialsInMessagesNeedAuthDevices() throws {
        XCTAssertEqual(try parse("name: a\nmqtt:\n  username: u\n").mqtt.deviceCredentials, .none)
        let missing = problem("name: a\nmqtt:\n  device-credentials: user-properties\n")
        XCTAssertTrue(missing.contains("mqtt.device-credentials") && missing.contains("auth.devices"), missing)
        let typo = problem("name: a\nmqtt:\n  device-credentials: user-property\n")
        XCTAssertTrue(typo.contains("did you mean 'user-properties'"), typo)
    }
}
