import Foundation
import RunRecord
import SUTAdapter
import Testing
import VitalSimCore

/// FHIR Subscription notifications read as alerts: one alert per episode with the entry's rule and
/// severity, a notification delivered twice read once, Backport's handshake, heartbeat and event
/// count, and everything that is not a notification refused with the reason.
struct SubscriptionNotificationsTests {
    let fever = FHIRSubscriptions.Rule(
        rule: "temp.fever",
        severity: "medium",
        criteria: "Observation?patient=Patient/{patient}&code=http://loinc.org|8310-5&value-quantity=ge38"
    )

    /// A temperature Observation as VitalSim sends it, `minutes` after 10:00.
    func observation(_ reading: String, minutes: Int, id: String = "o1") -> [String: Any] {
        [
            "resourceType": "Observation", "id": id,
            "identifier": [["system": "urn:vitalsim:reading", "value": reading]],
            "effectiveDateTime": String(format: "2024-11-07T%02d:%02d:00Z", 10 + minutes / 60, minutes % 60),
            "valueQuantity": ["value": 38.4, "unit": "Cel"],
        ]
    }

    func bytes(_ object: Any) -> [UInt8] { Array(try! JSONSerialization.data(withJSONObject: object)) }

    func restHook() -> SubscriptionNotifications {
        var notifications = SubscriptionNotifications(FHIRSubscriptions(style: .restHook, rules: [fever]))
        notifications.register(.init(rule: fever, patient: "p-508"), key: "k1")
        return notifications
    }

    @Test func theNotificationsOfOneEpisodeAreOneAlert() {
        var notifications = restHook()
        let first = notifications.receive(key: "k1", body: bytes(observation("r1", minutes: 0)))
        #expect(first.status == 200)
        let alert = try! #require(first.alerts.first)
        #expect(alert.rule == "temp.fever" && alert.severity == "medium" && alert.patientID == "p-508")
        #expect(alert.evidence == ["r1"])
        #expect(alert.raisedAt == CivilTime.unixMilliseconds(rfc3339: "2024-11-07T10:00:00Z"))
        // 5 and 10 minutes later: the same episode; the first again (a retry): nothing new.
        #expect(notifications.receive(key: "k1", body: bytes(observation("r2", minutes: 5))).alerts.isEmpty)
        #expect(notifications.receive(key: "k1", body: bytes(observation("r3", minutes: 10))).alerts.isEmpty)
        #expect(notifications.receive(key: "k1", body: bytes(observation("r1", minutes: 0))).alerts.isEmpty)
        // Ids without a sequence number: 41 minutes after the last (the gap is 30) is a new episode,
        // a new alert with its own id.
        let second = notifications.receive(key: "k1", body: bytes(observation("r4", minutes: 51)))
        #expect(second.alerts.map(\.evidence) == [["r4"]])
        #expect(second.alerts.first?.alertID != alert.alertID)
    }

    @Test func readingsThatFollowOneAnotherInTheirStreamAreOneEpisode() {
        var notifications = restHook()
        let stream = "s1-fever-spike-508/thermo-508/"
        // Hourly readings 11, 12, 13 all notified: one alert, hours apart though the gap is 30 minutes.
        let first = notifications.receive(key: "k1", body: bytes(observation(stream + "11", minutes: 0)))
        #expect(first.alerts.map(\.evidence) == [[stream + "11"]])
        #expect(notifications.receive(key: "k1", body: bytes(observation(stream + "12", minutes: 60))).alerts.isEmpty)
        #expect(notifications.receive(key: "k1", body: bytes(observation(stream + "13", minutes: 120))).alerts.isEmpty)
        // 14 was not notified (it missed the criteria): 15 starts another episode.
        let again = notifications.receive(key: "k1", body: bytes(observation(stream + "15", minutes: 240)))
        #expect(again.alerts.map(\.evidence) == [[stream + "15"]])
        // 17 delivered before 16: 17 starts one, 16 then joins the episodes either side of it. The
        // battery's 16 is another stream's: an episode of its own.
        #expect(
            notifications.receive(key: "k1", body: bytes(observation(stream + "17", minutes: 360))).alerts.count == 1
        )
        #expect(notifications.receive(key: "k1", body: bytes(observation(stream + "16", minutes: 300))).alerts.isEmpty)
        let battery = "s1-fever-spike-508/thermo-508/battery/16"
        #expect(notifications.receive(key: "k1", body: bytes(observation(battery, minutes: 300))).alerts.count == 1)
    }

    @Test func notificationsDeliveredOutOfOrderSettleIntoOneAlertFromTheFirstReading() {
        var notifications = restHook()
        let stream = "508/thermo-508/"
        let twelve = notifications.receive(key: "k1", body: bytes(observation(stream + "12", minutes: 60)))
        #expect(notifications.receive(key: "k1", body: bytes(observation(stream + "11", minutes: 0))).alerts.isEmpty)
        let fourteen = notifications.receive(key: "k1", body: bytes(observation(stream + "14", minutes: 180)))
        #expect(notifications.receive(key: "k1", body: bytes(observation(stream + "13", minutes: 120))).alerts.isEmpty)
        let (first, second) = (try! #require(twelve.alerts.first), try! #require(fourteen.alerts.first))
        let settled = notifications.settledAlerts()
        let kept = try! #require(settled[first.alertID] ?? nil)
        #expect(kept.evidence == [stream + "11"])
        #expect(kept.raisedAt == CivilTime.unixMilliseconds(rfc3339: "2024-11-07T10:00:00Z"))
        #expect(settled[second.alertID] == .some(nil), "14 was of the same episode: merged")
    }

    @Test func whatIsNotANotificationIsRefusedWithItsReason() {
        var notifications = restHook()
        #expect(notifications.receive(key: "other", body: bytes(observation("r1", minutes: 0))).status == 404)
        let empty = notifications.receive(key: "k1", body: [])
        #expect(empty.status == 400 && empty.refusal?.contains("without a body") == true)
        #expect(notifications.receive(key: "k1", body: Array("not json".utf8)).status == 400)
        var undated = observation("r1", minutes: 0)
        undated["effectiveDateTime"] = nil
        let refused = notifications.receive(key: "k1", body: bytes(undated))
        #expect(refused.status == 400 && refused.refusal?.contains("effectiveDateTime") == true)
        #expect(refused.alerts.isEmpty)
    }

    /// A Backport notification Bundle of `type`, counting `count` events, with `events` (number,
    /// focus) and `resources` as its further entries.
    func bundle(_ type: String, count: Int, events: [(Int, String)] = [], resources: [[String: Any]] = []) -> [UInt8] {
        var parameters: [[String: Any]] = [
            ["name": "subscription", "valueReference": ["reference": "https://127.0.0.1/fhir/Subscription/s1"]],
            ["name": "status", "valueCode": "active"], ["name": "type", "valueCode": type],
            ["name": "events-since-subscription-start", "valueString": String(count)],
        ]
        for (number, focus) in events {
            parameters.append([
                "name": "notification-event",
                "part": [
                    ["name": "event-number", "valueString": String(number)],
                    ["name": "focus", "valueReference": ["reference": "https://127.0.0.1/fhir/" + focus]],
                ],
            ])
        }
        let entries: [[String: Any]] =
            [["fullUrl": "urn:uuid:1", "resource": ["resourceType": "Parameters", "parameter": parameters]]]
            + resources.map { ["resource": $0] }
        return bytes(["resourceType": "Bundle", "type": "history", "entry": entries])
    }

    func backport(_ payload: FHIRSubscriptions.Payload) -> SubscriptionNotifications {
        var settings = FHIRSubscriptions(style: .backport, rules: [fever])
        settings.payload = payload
        var notifications = SubscriptionNotifications(settings)
        notifications.register(.init(rule: fever, patient: "p-508"), key: "k1")
        return notifications
    }

    @Test func backportHandshakeEventsAndTheEventsThatNeverArrived() {
        var notifications = backport(.fullResource)
        #expect(!notifications.handshaken("k1"))
        #expect(notifications.problems() == ["the Subscription for temp.fever of patient p-508 received no handshake"])
        #expect(notifications.receive(key: "k1", body: bundle("handshake", count: 0)).status == 200)
        #expect(notifications.handshaken("k1"))
        #expect(notifications.receive(key: "k1", body: bundle("heartbeat", count: 0)).alerts.isEmpty)
        let one = bundle(
            "event-notification",
            count: 1,
            events: [(1, "Observation/o1")],
            resources: [observation("r1", minutes: 0)]
        )
        #expect(notifications.receive(key: "k1", body: one).alerts.map(\.evidence) == [["r1"]])
        #expect(notifications.receive(key: "k1", body: one).alerts.isEmpty, "the same event number twice is one event")
        #expect(notifications.problems().isEmpty)
        // Event 2 never arrives; event 3 does, an hour later: a new episode, and one event lost.
        let three = bundle(
            "event-notification",
            count: 3,
            events: [(3, "Observation/o3")],
            resources: [observation("r3", minutes: 60, id: "o3")]
        )
        #expect(notifications.receive(key: "k1", body: three).alerts.count == 1)
        #expect(
            notifications.problems() == [
                "the Subscription for temp.fever of patient p-508: the server counted 3 event(s) (events-since-subscription-start), 2 arrived"
            ]
        )
    }

    @Test func anIdOnlyNotificationAsksForItsFocusAndTheFocusIsTheAlert() {
        var notifications = backport(.idOnly)
        _ = notifications.receive(key: "k1", body: bundle("handshake", count: 0))
        let reception = notifications.receive(
            key: "k1",
            body: bundle("event-notification", count: 1, events: [(1, "Observation/o1")])
        )
        #expect(reception.alerts.isEmpty)
        #expect(reception.fetch == ["https://127.0.0.1/fhir/Observation/o1"])
        #expect(
            notifications.resolved(key: "k1", resource: observation("r1", minutes: 0)).alerts.map(\.evidence) == [
                ["r1"]
            ]
        )
    }

    @Test func aBundleThatIsNotABackportNotificationIsRefused() {
        var notifications = backport(.fullResource)
        let searchset = bytes(["resourceType": "Bundle", "type": "searchset", "entry": []])
        let refused = notifications.receive(key: "k1", body: searchset)
        #expect(refused.status == 400 && refused.refusal?.contains("history Bundle") == true)
    }

    @Test func theSubscriptionsAreWrittenAsR4AndTheBackportIGSay() {
        let restHook = FHIRSubscriptions(style: .restHook, rules: [fever])
        #expect(
            restHook.resource(for: fever, patient: "p-508", endpoint: "http://127.0.0.1:9/fhir/k1").serialized()
                == #"{"resourceType":"Subscription","status":"requested","reason":"VitalSim alert source: temp.fever of patient p-508","criteria":"Observation?patient=Patient/p-508&code=http://loinc.org|8310-5&value-quantity=ge38","channel":{"type":"rest-hook","endpoint":"http://127.0.0.1:9/fhir/k1","payload":"application/fhir+json"}}"#
        )
        let topic = FHIRSubscriptions.Rule(
            rule: "temp.fever",
            severity: "medium",
            criteria: "http://example.org/SubscriptionTopic/fever",
            filters: ["Observation?patient=Patient/{patient}"]
        )
        var backport = FHIRSubscriptions(style: .backport, rules: [topic])
        backport.payload = .idOnly
        backport.heartbeatSeconds = 20
        let base = FHIRSubscriptions.backportBase
        #expect(
            backport.resource(for: topic, patient: "p-508", endpoint: "http://127.0.0.1:9/fhir/k1").serialized()
                == #"{"resourceType":"Subscription","meta":{"profile":["\#(base)backport-subscription"]},"status":"requested","reason":"VitalSim alert source: temp.fever of patient p-508","criteria":"http://example.org/SubscriptionTopic/fever","_criteria":{"extension":[{"url":"\#(base)backport-filter-criteria","valueString":"Observation?patient=Patient/p-508"}]},"channel":{"extension":[{"url":"\#(base)backport-heartbeat-period","valueUnsignedInt":20}],"type":"rest-hook","endpoint":"http://127.0.0.1:9/fhir/k1","payload":"application/fhir+json","_payload":{"extension":[{"url":"\#(base)backport-payload-content","valueCode":"id-only"}]}}}"#
        )
    }
}

/// `alerts.source: fhir-subscription` in a profile: the shipped example, and each mistake named.
struct SubscriptionProfileTests {
    func problem(_ alerts: String) -> String {
        let text = "name: p\nalerts:\n" + alerts
        do throws(ScenarioLoadError) {
            _ = try SUTProfileLoader.parse(text, file: "/tmp/p.yaml", environment: [:])
            return "loaded"
        } catch { return error.description }
    }

    @Test func theShippedProfileSubscribesPerRuleAndClaimsThoseRules() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let profile = try SUTProfileLoader.load(
            path: root.appendingPathComponent("profiles/fhir-subscriptions.yaml").path,
            environment: [:]
        )
        let settings = try #require(profile.alerts.subscriptions)
        #expect(settings.style == .backport && settings.payload == .fullResource && settings.fhirBase == "/fhir")
        #expect(settings.rules.map(\.rule) == ["temp.fever", "bp.hypertensive-crisis"])
        #expect(profile.alerts.pushOnly == .webhook && !profile.alerts.polls)
        #expect(profile.conformance.rules == ["temp.fever", "bp.hypertensive-crisis"])
        #expect(profile.lifecycle.enrol.map(\.summary).contains("PUT /fhir/Basic/vitalsim-temp-fever"))
    }

    @Test func mistakesAreNamedWithTheirField() {
        let entry = "    rules: [{rule: temp.fever, severity: medium, criteria: \"Observation?code=8310-5\"}]\n"
        #expect(problem("  source: fhir-subscription\n  subscription:\n    style: rest-hook\n" + entry) == "loaded")
        #expect(
            problem(
                "  source: fhir-subscription\n  subscription:\n    style: rest-hook\n    payload: id-only\n" + entry
            )
            .contains("alerts.subscription.payload")
        )
        #expect(
            problem("  source: fhir-subscription\n  subscription:\n    style: backport\n" + entry)
                .contains("topic's canonical URL")
        )
        let unknownRule = "    rules: [{rule: temp.fevr, severity: medium, criteria: \"Observation?code=1\"}]\n"
        #expect(
            problem("  source: fhir-subscription\n  subscription:\n    style: rest-hook\n" + unknownRule)
                .contains("did you mean temp.fever?")
        )
        let badSeverity = "    rules: [{rule: temp.fever, severity: urgent, criteria: \"Observation?code=1\"}]\n"
        #expect(
            problem("  source: fhir-subscription\n  subscription:\n    style: rest-hook\n" + badSeverity).contains(
                "severity"
            )
        )
        #expect(problem("  source: fhir-subscription\n").contains("subscription"))
        let relay = "  source: fhir-subscription\n  subscription:\n    style: rest-hook\n    endpoint-base: "
        #expect(problem(relay + "relay.local/\n" + entry).contains("alerts.subscription.endpoint-base"))
        #expect(problem(relay + "http://127.0.0.1:9/relay\n" + entry) == "loaded")
    }
}
