import Foundation
import Locking
import RunRecord
import SUTAdapter
import Testing
import Transports
import VitalSimCore

@testable import LiveHarness

/// The FHIR Subscription receiver over a real loopback socket: only an endpoint the harness gave a
/// Subscription is notified; a Backport handshake proves the channel; an event notification's
/// resource is an alert on the observer's stream; an endpoint base set in the profile is what the
/// server is told.
struct SubscriptionReceiverTests {
    let fever = FHIRSubscriptions.Rule(
        rule: "temp.fever",
        severity: "medium",
        criteria: "urn:vitalsim:subscription-topic:temp.fever"
    )

    func notification(_ type: String, count: Int, reading: String? = nil) -> [UInt8] {
        var parameters: [[String: Any]] = [
            ["name": "type", "valueCode": type],
            ["name": "events-since-subscription-start", "valueString": String(count)],
        ]
        var entries: [[String: Any]] = []
        if let reading {
            parameters.append([
                "name": "notification-event",
                "part": [
                    ["name": "event-number", "valueString": String(count)],
                    ["name": "focus", "valueReference": ["reference": "https://127.0.0.1/fhir/Observation/o1"]],
                ],
            ])
            entries.append([
                "resource": [
                    "resourceType": "Observation", "id": "o1",
                    "identifier": [["system": "urn:vitalsim:reading", "value": reading]],
                    "effectiveDateTime": "2024-11-07T11:00:00Z",
                ]
            ])
        }
        let status: [String: Any] = ["resource": ["resourceType": "Parameters", "parameter": parameters]]
        let bundle: [String: Any] = ["resourceType": "Bundle", "type": "history", "entry": [status] + entries]
        return Array(try! JSONSerialization.data(withJSONObject: bundle))
    }

    @Test func onlyTheSubscriptionsEndpointsAreNotifiedAndTheirEventsAreAlerts() async throws {
        var settings = FHIRSubscriptions(style: .backport, rules: [fever])
        settings.payload = .fullResource
        let receiver = try await SubscriptionReceiver.start(settings: settings, port: 0, contract: ContractLog())
        defer { receiver.observer.stop() }
        let key = SubscriptionReceiver.newKey()
        #expect(key.count == 32 && key != SubscriptionReceiver.newKey())
        receiver.notifications.withLock { $0.register(.init(rule: fever, patient: "p-508"), key: key) }
        let client = HTTPMultiClient(maxConnections: 1)
        defer { client.close() }
        let headers = ["Content-Type: application/fhir+json"]
        let stranger = try await client.post(receiver.endpoint("0123"), body: notification("handshake", count: 0))
        #expect(stranger.status == 404, "an endpoint no Subscription was given")
        #expect(!receiver.observer.proven())
        let handshake = try await client.post(
            receiver.endpoint(key),
            body: notification("handshake", count: 0),
            headers: headers
        )
        #expect(handshake.status == 200)
        #expect(receiver.observer.proven(), "the handshake shows the server reaches the receiver")
        let event = try await client.post(
            receiver.endpoint(key),
            body: notification("event-notification", count: 1, reading: "508/thermo-508/11"),
            headers: headers
        )
        #expect(event.status == 200)
        var alerts = receiver.observer.alerts.makeAsyncIterator()
        let alert = try #require(await alerts.next())
        #expect(alert.rule == "temp.fever" && alert.severity == "medium" && alert.evidence == ["508/thermo-508/11"])
        let wrong = try await client.post(receiver.endpoint(key), body: Array("[1]".utf8), headers: headers)
        #expect(wrong.status == 400)
        #expect(receiver.endpoint(key).hasPrefix("http://127.0.0.1:"))
    }

    @Test func theServerIsToldTheProfilesEndpointBase() async throws {
        var settings = FHIRSubscriptions(style: .restHook, rules: [fever])
        settings.endpointBase = "http://127.0.0.1:9/relay/"
        let receiver = try await SubscriptionReceiver.start(settings: settings, port: 0, contract: ContractLog())
        defer { receiver.observer.stop() }
        #expect(receiver.endpoint("k") == "http://127.0.0.1:9/relay/k")
        #expect(receiver.url.hasPrefix("http://127.0.0.1:") && receiver.url.hasSuffix("/fhir/"))
    }
}
