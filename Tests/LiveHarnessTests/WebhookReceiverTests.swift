import Foundation
import RunRecord
import SUTAdapter
import Testing
import Transports
import VitalSimCore

@testable import LiveHarness

/// The webhook receiver over a real loopback socket takes only the SUT's POSTs: one without the
/// receiver's key, with another key, unsigned or wrongly signed is answered 401, counted and never
/// an alert; the SUT's own, signed as the profile says, is.
struct WebhookReceiverTests {
    let alert: [UInt8] = Array(
        #"{"alertId":"a1","patientId":"508","rule":"bp.crisis","severity":"critical","raisedAt":"2024-11-07T11:00:00Z","evidence":["508/cuff/3"]}"#
            .utf8
    )

    @Test func onlyPostsWithTheKeyAndSignatureAreAlerts() async throws {
        var settings = AlertSource.Webhook()
        settings.signature = WebhookSignature(scheme: .hubSHA256, secret: "s3cret-of-the-run")
        let contract = ContractLog()
        let (observer, url) = try await PushObserver.webhook(settings: settings, contract: contract)
        defer { observer.stop() }
        let key = String(try #require(url.split(separator: "/").last))
        #expect(key.count == 32, "128 random bits in the URL: \(url)")
        let client = HTTPMultiClient(maxConnections: 1)
        defer { client.close() }
        let bare = String(url.dropLast(key.count + 1))
        let signed = settings.signature!.headers(for: alert, id: "", timestamp: 0)
        #expect(try await client.post(bare, body: alert, headers: signed).status == 401, "no key")
        #expect(try await client.post(bare + "/0123456789abcdef", body: alert, headers: signed).status == 401)
        #expect(try await client.post(url, body: alert).status == 401, "unsigned")
        let forged = WebhookSignature(scheme: .hubSHA256, secret: "guessed").headers(for: alert, id: "", timestamp: 0)
        #expect(try await client.post(url, body: alert, headers: forged).status == 401, "another secret")
        #expect(contract.summary().pushRefused == 4)
        #expect(contract.summary().firstPushRefused == "POST /alerts without the receiver's key")
        #expect(try await client.post(url, body: alert, headers: signed).status == 204)
        var alerts = observer.alerts.makeAsyncIterator()
        let received = try #require(await alerts.next())
        #expect(received.alertID == "a1" && received.rule == "bp.crisis")
        #expect(contract.summary().pushRefused == 4)
    }

    @Test func aFixedKeyIsTheURLsAndABodyPastTheBoundIsRefused() async throws {
        var settings = AlertSource.Webhook()
        settings.key = "fixedkeyfixedkey42"
        let (observer, url) = try await PushObserver.webhook(settings: settings)
        defer { observer.stop() }
        #expect(url.hasSuffix("/alerts/fixedkeyfixedkey42"))
        let client = HTTPMultiClient(maxConnections: 1)
        defer { client.close() }
        #expect(try await client.post(url, body: alert).status == 204)
        let huge = [UInt8](repeating: 0x20, count: PushObserver.pushedBodyLimit + 1)
        #expect(try await client.post(url, body: huge).status == 413)
    }
}
