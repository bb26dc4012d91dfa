import Foundation
import Testing
import Transports

@testable import SUTAdapter

/// What `vitalsim run` tells the user when the OAuth2 token endpoint refuses: a hint from what it
/// answered, not always "check client-id, secret and scope".
@Suite struct OAuth2RefusalHintTests {
    let settings = OAuth2(tokenURL: "/oauth/token", clientID: "ci", clientSecret: "s", secretVariable: "SECRET")

    func problem(_ status: Int, _ body: String, _ settings: OAuth2? = nil) -> String {
        let reply = HTTPReply(status: status, body: Array(body.utf8))
        let result = OAuth2Session.token(
            from: reply,
            url: "https://127.0.0.1/oauth/token",
            settings: settings ?? self.settings,
            requestedAt: .now
        )
        guard case .failure(let problem) = result else { return "no problem" }
        return problem.message
    }

    @Test func aWrongTokenURLSaysTokenURL() {
        let html = problem(404, "<html>Not Found</html>")
        #expect(html.contains("check token-url"), "\(html)")
        #expect(!html.contains("client-id"), "\(html)")
        #expect(problem(405, "").contains("check token-url"))
    }

    @Test func aRefusedBasicAuthenticationSaysClientAuthentication() {
        let basic = problem(
            401,
            #"{"error":"invalid_client","error_description":"client authentication method not allowed"}"#
        )
        #expect(
            basic.contains("HTTP Basic (client-authentication: basic); try client-authentication: body"),
            "\(basic)"
        )
        let missing = problem(400, #"{"error":"invalid_request","error_description":"missing client_id"}"#)
        #expect(missing.contains("try client-authentication: body"), "\(missing)")
        var body = settings
        body.clientAuthentication = .body
        let plain = problem(401, #"{"error":"invalid_client"}"#, body)
        #expect(plain.contains("check client-id and the secret in $SECRET"), "\(plain)")
        #expect(plain.contains("set client-authentication: basic"), "\(plain)")
    }

    @Test func otherErrorsNameWhatTheyAreAbout() {
        var scoped = settings
        scoped.scope = "vitals.read"
        #expect(problem(400, #"{"error":"invalid_scope"}"#, scoped).contains("the scope 'vitals.read' is refused"))
        #expect(problem(400, #"{"error":"unsupported_grant_type"}"#).contains("client-credentials grant"))
        #expect(problem(400, #"{"error":"unauthorized_client"}"#).contains("may not use the client-credentials grant"))
    }
}
