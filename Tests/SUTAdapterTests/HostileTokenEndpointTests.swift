import Foundation
import Locking
import Testing
import Transports

@testable import SUTAdapter

/// Token endpoints that answer what no server should: a lifetime that is not a number of seconds
/// (which once crashed the run converting it), a token holding line breaks (which were sent as
/// header lines of their own), a token that lives under `refresh-before` (renewed on every request).
@Suite struct HostileTokenEndpointTests {
    let settings = OAuth2(tokenURL: "/oauth/token", clientID: "ci", clientSecret: "s", secretVariable: "SECRET")

    func token(_ body: String) -> Result<OAuth2Session.Token, CredentialProblem> {
        OAuth2Session.token(
            from: HTTPReply(status: 200, body: Array(body.utf8)),
            url: "http://127.0.0.1:9/oauth/token",
            settings: settings,
            requestedAt: .now
        )
    }

    @Test(arguments: ["1e308", "1e16", "\"inf\"", "\"1e400\"", "86400"])
    func aHugeLifetimeIsADay(_ expiresIn: String) throws {
        let t = try token(#"{"access_token":"abc","expires_in":\#(expiresIn)}"#).get()
        let renewAt = try #require(t.renewAt)
        #expect(renewAt > .now + .seconds(86_000) && renewAt < .now + .seconds(86_401))
    }

    @Test(arguments: ["\"nan\"", "-5", "\"soon\"", "true", "[1]", "0", "0.5"])
    func aLifetimeThatIsNoNumberOfSecondsIsAProblem(_ expiresIn: String) {
        let result = token(#"{"access_token":"abc","expires_in":\#(expiresIn)}"#)
        guard case .failure(let problem) = result else {
            Issue.record("expires_in \(expiresIn) was taken")
            return
        }
        #expect(problem.message.contains("expires_in"), "\(problem.message)")
    }

    @Test func noLifetimeIsATokenKeptUntilRefused() throws {
        #expect(try token(#"{"access_token":"abc"}"#).get().renewAt == nil)
        #expect(try token(#"{"access_token":"abc","expires_in":null}"#).get().renewAt == nil)
        #expect(try token(#"{"access_token":"abc","expires_in":"3600"}"#).get().renewAt != nil)
    }

    @Test(arguments: ["abc\r\nX-Injected: 1", "abc\ndef", "abc\u{0}", "ab\u{7F}", "abç"])
    func aTokenThatWouldBreakTheHeaderIsRefused(_ value: String) throws {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: ["access_token": value]), as: UTF8.self)
        guard case .failure(let problem) = token(json) else {
            Issue.record("token \(value.debugDescription) was taken")
            return
        }
        #expect(problem.message.contains("access_token holding the character U+"), "\(problem.message)")
    }

    /// Header lines are checked by the transport too, whatever their origin.
    @Test func headerLinesWithLineBreaksAreNotSent() {
        #expect(
            HTTPBounds.unsafeHeader(["Authorization: Bearer a\r\nX-Injected: 1"])?.contains("Authorization") == true
        )
        #expect(HTTPBounds.unsafeHeader(["X-Key: a\u{0}b"]) != nil)
        #expect(HTTPBounds.unsafeHeader(["Authorization: Bearer eyJ.a-b_c~d+e/f=", "Accept: */*"]) == nil)
    }

    /// A token living 10 s with `refresh-before` 30 s: renewed after half its life, not before every
    /// request (96–106 token requests in 6 s before). The session reads lifetimes on a test clock.
    @Test func aShortLivedTokenIsNotRenewedOnEveryRequest() async throws {
        // A token endpoint that counts its requests and issues tokens living 10 s.
        let endpoint = HostileReadBoundsTests.ScriptedSUT { _, n in #"{"access_token":"t\#(n)","expires_in":10}"# }
        let start = ContinuousClock.now
        let elapsed = Locked(Duration.zero)
        let session = OAuth2Session(settings, base: "http://127.0.0.1:9", client: endpoint) {
            start + elapsed.withLock { $0 }
        }
        for _ in 0..<50 { _ = try await session.accessToken().get() }
        #expect(endpoint.requests.withLock { $0 } == 1)
        // Just before half its life the token is still used; at half its life it is renewed, once.
        elapsed.withLock { $0 = .milliseconds(4_999) }
        #expect(try await session.accessToken().get() == "t1")
        elapsed.withLock { $0 = .seconds(5) }
        for _ in 0..<10 { #expect(try await session.accessToken().get() == "t2") }
        #expect(endpoint.requests.withLock { $0 } == 2)
        // A token living a day is renewed 30 s (refresh-before) ahead of its end.
        let long = try token(#"{"access_token":"abc","expires_in":3600}"#).get()
        let renewAt = try #require(long.renewAt)
        #expect(renewAt > .now + .seconds(3560) && renewAt <= .now + .seconds(3570))
    }
}
