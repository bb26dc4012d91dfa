import Foundation
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// Routes with a `transport`: a device moved from HTTP to MQTT (in a JSON format or as raw GATT) or
/// from MQTT to HTTP, while a route without one leaves MQTT devices on the broker.
final class RouteTransportTests: XCTestCase {
    let core = Fixtures.repositoryRoot + "/scenarios/core/"

    func requests(_ name: String, _ routes: [IngestionRoute]) throws -> [PlannedRequest] {
        let scenario = try ScenarioLoader.load(path: core + name)
        return Array(TrafficPlanStream(for: scenario, routes: IngestionRoutes(routes: routes)))
    }

    func testEveryGeneratedReadingIsOfAKindItsDeviceTypeDeclares() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: core).sorted() where name.hasSuffix(".yaml") {
            var run = ScenarioRun(scenario: try ScenarioLoader.load(path: core + name))
            while let (reading, _) = run.next() {
                XCTAssertTrue(
                    reading.deviceType.kinds.contains(reading.kind),
                    "\(name): \(reading.kind) of a \(reading.deviceType)"
                )
            }
        }
    }

    func testAnMQTTRouteSendsFHIRObservationsOnItsTopicWithTheUsualProperties() throws {
        var mqtt = IngestionRoute(path: "", format: .fhirObservation)
        mqtt.transport = .mqtt
        mqtt.topic = try MQTTTopicTemplate("rpm/{patient}/{device}/{kind}")
        mqtt.deviceTypes = [.cgm, .heartRateStrap]
        let http = IngestionRoute(path: "/api/v1/observations", format: .vitalsimObservation)
        let all = try requests("corrupt-and-duplicate-payloads.yaml", [mqtt, http])
        let messages = all.filter { $0.topic != nil }
        XCTAssertFalse(messages.isEmpty)
        XCTAssertTrue(all.contains { $0.topic == nil && $0.path == "/api/v1/observations" }, "the cuff stays on HTTP")
        for m in messages {
            XCTAssertTrue(
                ["cgm", "heart-rate", "battery"].contains(m.topic!.split(separator: "/").last.map(String.init) ?? ""),
                m.topic!
            )
            XCTAssertEqual(m.readings.count, 1, "one reading per message")
            XCTAssertEqual(m.userProperties.map(\.name), ["reading-id", "device-id", "device-time", "emit-time"])
            XCTAssertTrue(m.topic!.hasPrefix("rpm/\(m.patientID)/\(m.deviceID)/"), m.topic!)
        }
        let valid = try XCTUnwrap(messages.first { $0.expectedRejection == nil && !$0.topic!.hasSuffix("/battery") })
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(valid.body)) as? [String: Any])
        XCTAssertEqual(object["resourceType"] as? String, "Observation")
        let corrupt = try XCTUnwrap(messages.first { $0.expectedRejection != nil })
        XCTAssertTrue(
            corrupt.expectedRejection!.spellings.contains { $0.hasPrefix("valueQuantity") },
            "\(corrupt.expectedRejection!.spellings)"
        )
    }

    func testAGATTRouteCarriesRawValuesAndNamesTheCharacteristic() throws {
        var gatt = IngestionRoute(path: "", format: .gatt)
        gatt.transport = .mqtt
        gatt.kinds = [.heartRate]
        let rest = IngestionRoute(path: "/api/v1/observations", format: .vitalsimObservation)
        let all = try requests("adult-tachycardia-episode.yaml", [gatt, rest])
        let hr = all.filter { $0.topic != nil }
        XCTAssertFalse(hr.isEmpty)
        for m in hr.prefix(50) {
            XCTAssertTrue(
                m.topic!.hasPrefix("vitals/") && m.topic!.hasSuffix("/heart-rate"),
                "the profile's mqtt.topic: \(m.topic!)"
            )
            XCTAssertEqual(m.userProperties.last?.name, "characteristic")
            XCTAssertEqual(m.userProperties.last?.value, "2A37")
            XCTAssertNotEqual(m.body.first, UInt8(ascii: "{"), "raw GATT bytes, not JSON")
        }
        XCTAssertTrue(
            all.contains { $0.topic == nil && $0.path == "/api/v1/observations" },
            "the other kinds stay on HTTP"
        )
    }

    func testARouteWithoutTransportLeavesMQTTDevicesOnTheBrokerAndOneWithHTTPMovesThem() throws {
        let any = IngestionRoute(path: "/fhir/Observation", format: .fhirObservation)
        let kept = try requests("copd-desaturation.yaml", [any])
        XCTAssertTrue(kept.contains { $0.topic != nil }, "MQTT devices keep the broker")
        XCTAssertTrue(kept.filter { $0.topic != nil }.allSatisfy { $0.topic!.hasPrefix("vitals/") })

        var moved = any
        moved.transport = .http
        let relayed = try requests("copd-desaturation.yaml", [moved])
        XCTAssertFalse(relayed.contains { $0.topic != nil }, "every reading relayed over HTTP")
        XCTAssertTrue(relayed.allSatisfy { $0.path == "/fhir/Observation" || $0.unroutable != nil })
        XCTAssertEqual(kept.reduce(0) { $0 + $1.readings.count }, relayed.reduce(0) { $0 + $1.readings.count })
    }

    func testAFormatWithoutAFormForTheReadingIsUnroutable() throws {
        var gatt = IngestionRoute(path: "", format: .gatt)
        gatt.transport = .mqtt
        let all = try requests("vitaledge-daily-summary.yaml", [gatt])
        let reason = try XCTUnwrap(all.first { $0.unroutable != nil }?.unroutable)
        XCTAssertTrue(reason.contains("(MQTT mqtt.topic)") && reason.contains("format gatt has no form"), reason)
    }

    func testWhichScenariosSendOverMQTT() throws {
        let copd = try ScenarioLoader.load(path: core + "copd-desaturation.yaml")
        let tachy = try ScenarioLoader.load(path: core + "adult-tachycardia-episode.yaml")
        XCTAssertTrue(copd.sendsOverMQTT())
        XCTAssertFalse(tachy.sendsOverMQTT())
        var toHTTP = IngestionRoute(path: "/x", format: .vitalsimObservation)
        toHTTP.transport = .http
        XCTAssertFalse(copd.sendsOverMQTT(IngestionRoutes(routes: [toHTTP])))
        var weightOverMQTT = IngestionRoute(path: "", format: .fhirObservation)
        weightOverMQTT.transport = .mqtt
        weightOverMQTT.kinds = [.weight]
        let routes = IngestionRoutes(routes: [weightOverMQTT, IngestionRoute(path: "/x", format: .vitalsimObservation)])
        XCTAssertFalse(tachy.sendsOverMQTT(routes), "no device of the scenario reads weight")
        let infant = try ScenarioLoader.load(path: core + "chd-infant-interstage.yaml")
        XCTAssertTrue(infant.sendsOverMQTT(routes))
    }
}
