import Foundation
import Testing

@testable import Transports

/// Webhook signatures checked against the schemes' own published examples, so that a backend's
/// ordinary webhook library and the harness agree on every byte.
@Suite struct WebhookSignatureTests {
    /// GitHub's documented example ("Validating webhook deliveries"): the secret "It's a Secret to
    /// Everybody" over "Hello, World!".
    @Test func hubSignaturesMatchGitHubsExample() {
        let signature = WebhookSignature(scheme: .hubSHA256, secret: "It's a Secret to Everybody")
        let body = Array("Hello, World!".utf8)
        let expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        #expect(signature.headers(for: body, id: "", timestamp: 0) == ["X-Hub-Signature-256: " + expected])
        let headers = ["x-hub-signature-256": expected]
        #expect(signature.problem(body: body, header: { headers[$0] }, now: Date()) == nil)
        let tampered = Array("Hello, World?".utf8)
        #expect(signature.problem(body: tampered, header: { headers[$0] }, now: Date()) != nil)
        #expect(signature.problem(body: body, header: { _ in nil }, now: Date()) == "no X-Hub-Signature-256 header")
        let notHex = ["x-hub-signature-256": "sha256=zz"]
        #expect(signature.problem(body: body, header: { notHex[$0] }, now: Date()) != nil)
    }

    /// The Standard Webhooks specification's example: its secret, message id, timestamp, payload and
    /// v1 signature.
    @Test func standardWebhooksSignaturesMatchTheSpecificationsExample() {
        let signature = WebhookSignature(scheme: .standardWebhooks, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
        let made = signature.headers(for: body, id: id, timestamp: 1_614_265_330)
        #expect(made.last == "webhook-signature: v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        let sent = [
            "webhook-id": id, "webhook-timestamp": "1614265330",
            "webhook-signature": "v1,bm9ldHU= v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        ]
        let then = Date(timeIntervalSince1970: 1_614_265_330 + 60)
        #expect(signature.problem(body: body, header: { sent[$0] }, now: then) == nil)
        let late = Date(timeIntervalSince1970: 1_614_265_330 + 301)
        #expect(signature.problem(body: body, header: { sent[$0] }, now: late)?.contains("five minutes") == true)
        var otherID = sent
        otherID["webhook-id"] = "msg_other"
        #expect(signature.problem(body: body, header: { otherID[$0] }, now: then) != nil)
    }
}
