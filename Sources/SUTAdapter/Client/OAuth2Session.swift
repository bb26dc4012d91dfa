import Foundation
import Locking
import RunRecord
import Transports

/// Why a request could not be given its credentials: a token endpoint that refuses or fails, a
/// device without a token. A misconfiguration (exit 3), never a finding about the SUT.
package struct CredentialProblem: Error, Sendable, Equatable {
    package let message: String

    package init(_ message: String) { self.message = message }
}

/// OAuth2 client credentials (RFC 6749 §4.4) for one run: the access token is requested once,
/// shared by every request, requested again ``OAuth2/refreshBefore`` before it expires (but never
/// before half its lifetime has passed, so a short-lived token is not renewed on every request) and
/// after a 401 (``invalidate(_:)``); concurrent requests needing a new token wait for the same
/// request. A token endpoint's answer is checked before it is used: a lifetime that is not a
/// number of seconds, or a token that would put line breaks into a header, is a
/// ``CredentialProblem``.
package final class OAuth2Session: Sendable {
    package let settings: OAuth2
    package let tokenURL: String
    let client: any HTTPExchange
    let contract: ContractLog
    /// The time a token's lifetime is read against (injected by tests).
    let now: @Sendable () -> ContinuousClock.Instant

    struct Token: Sendable {
        var value: String
        /// When the token is requested anew (nil: never, the endpoint gave no lifetime).
        var renewAt: ContinuousClock.Instant?
    }

    /// The longest lifetime taken from `expires_in`: a token said to live longer is renewed after
    /// a day (a run is shorter; a larger number is not converted into a time at all).
    static let longestLifetime = 86_400.0
    /// The shortest lifetime a token may have: one living less cannot carry a run's requests.
    static let shortestLifetime = 1.0

    struct State: Sendable {
        var token: Token?
        var pending: Task<Result<Token, CredentialProblem>, Never>?
    }

    let state = Locked(State())

    /// - Parameters:
    ///   - base: the SUT's base URL, for a token URL given as a path.
    ///   - now: the time tokens' lifetimes are read against (a test's clock; the continuous clock).
    package init(
        _ settings: OAuth2,
        base: String,
        client: any HTTPExchange,
        contract: ContractLog = ContractLog(),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.settings = settings
        self.contract = contract
        self.now = now
        tokenURL = SUTProfile.resolve(settings.tokenURL, base: base)
        self.client = client
    }

    /// The current access token, requesting a new one when there is none or it is about to expire.
    package func accessToken() async -> Result<String, CredentialProblem> {
        let now = now()
        let (cached, task) = state.withLock { s -> (String?, Task<Result<Token, CredentialProblem>, Never>?) in
            if let token = s.token, token.renewAt.map({ now < $0 }) ?? true {
                return (token.value, nil)
            }
            if let pending = s.pending { return (nil, pending) }
            let pending = Task { await self.requestToken() }
            s.pending = pending
            return (nil, pending)
        }
        if let cached { return .success(cached) }
        guard let task else { return .failure(CredentialProblem("no token")) }
        let result = await task.value
        state.withLock { s in
            guard s.pending == task else { return }
            s.pending = nil
            if case .success(let token) = result { s.token = token }
        }
        return result.map(\.value)
    }

    /// Forgets `token` after the SUT refused it (401): the next request gets a new one.
    package func invalidate(_ token: String) {
        state.withLock { s in if s.token?.value == token { s.token = nil } }
    }

    /// One token request: `grant_type=client_credentials` with the client's credentials.
    func requestToken() async -> Result<Token, CredentialProblem> {
        var form = [("grant_type", "client_credentials")]
        if let scope = settings.scope { form.append(("scope", scope)) }
        if let audience = settings.audience { form.append(("audience", audience)) }
        var headers = ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"]
        switch settings.clientAuthentication {
        case .basic:
            let pair =
                OAuth2Session.formEncode(settings.clientID) + ":" + OAuth2Session.formEncode(settings.clientSecret)
            headers.append("Authorization: Basic " + Data(pair.utf8).base64EncodedString())
        case .body:
            form += [("client_id", settings.clientID), ("client_secret", settings.clientSecret)]
        }
        let body = form.map { OAuth2Session.formEncode($0.0) + "=" + OAuth2Session.formEncode($0.1) }.joined(
            separator: "&"
        )
        let started = now()
        let reply: HTTPReply
        do throws(HTTPTransportError) {
            reply = try await client.post(tokenURL, body: Array(body.utf8), headers: headers)
        } catch {
            contract.unanswered(.token, method: "POST", url: tokenURL, reason: error.reason)
            return .failure(
                CredentialProblem("the OAuth2 token endpoint POST \(tokenURL) got no answer: \(error.reason)")
            )
        }
        contract.answered(.token, method: "POST", url: tokenURL, status: reply.status, body: reply.body)
        return OAuth2Session.token(from: reply, url: tokenURL, settings: settings, requestedAt: started)
    }

    /// The token of a token endpoint's answer (RFC 6749 §5.1), or what is wrong with it.
    static func token(
        from reply: HTTPReply,
        url: String,
        settings: OAuth2,
        requestedAt: ContinuousClock.Instant
    ) -> Result<Token, CredentialProblem> {
        guard reply.status == 200 else {
            return .failure(
                CredentialProblem(
                    "the OAuth2 token endpoint POST \(url) refused client \(settings.clientID) with \(reply.status): \(RunHealth.excerpt(reply.body)); "
                        + refusalHint(reply, settings: settings)
                )
            )
        }
        let json: [String: Any]
        do throws(SUTJSON.Problem) {
            guard let object = try SUTJSON.document(reply.body) as? [String: Any] else { throw .notJSON }
            json = object
        } catch {
            let what = error == .notJSON ? "a body that is not a JSON object" : "a body that is \(error)"
            return .failure(
                CredentialProblem(
                    "the OAuth2 token endpoint POST \(url) answered 200 with \(what): \(RunHealth.excerpt(reply.body))"
                )
            )
        }
        // RFC 6749 §7.1: a client must not use a token whose type it does not understand.
        if let type = json["token_type"] as? String, type.lowercased() != "bearer" {
            return .failure(
                CredentialProblem(
                    "the OAuth2 token endpoint POST \(url) answered a token of type '\(RunHealth.excerpt(Array(type.utf8)))': the harness sends Bearer tokens only (RFC 6750), and RFC 6749 §7.1 forbids using a token of a type the client does not understand"
                )
            )
        }
        guard let value = json["access_token"] as? String, !value.isEmpty else {
            return .failure(
                CredentialProblem(
                    "the OAuth2 token endpoint POST \(url) answered 200 without an access_token: \(RunHealth.excerpt(reply.body))"
                )
            )
        }
        if let bad = value.unicodeScalars.first(where: { !(0x20...0x7E).contains($0.value) }) {
            return .failure(
                CredentialProblem(
                    "the OAuth2 token endpoint POST \(url) answered an access_token holding the character U+\(String(format: "%04X", bad.value)) (\(bad.properties.generalCategory == .control ? "a control character such as CR or LF" : "not printable ASCII")): sent in an Authorization header it would break the request into other header lines (RFC 6749 §A.12 allows only printable ASCII), so it is not used"
                )
            )
        }
        switch lifetime(of: json["expires_in"]) {
        case .failure(let why):
            return .failure(
                CredentialProblem(
                    "the OAuth2 token endpoint POST \(url) answered an unusable expires_in: \(why.message)"
                )
            )
        case .success(nil): return .success(Token(value: value, renewAt: nil))
        case .success(let seconds?):
            // Counted from when the request was sent, so the token is never used later than it is
            // valid; renewed `refresh-before` ahead of that, but not before half its lifetime.
            let margin = min(max(settings.refreshBefore, 0), seconds / 2)
            return .success(
                Token(value: value, renewAt: requestedAt + .milliseconds(Int64(((seconds - margin) * 1000).rounded())))
            )
        }
    }

    /// The token's lifetime in seconds from `expires_in` (RFC 6749 §5.1: a number; a string holding
    /// one is taken too), at most ``longestLifetime``; nil when the answer gives none; what is wrong
    /// with it otherwise.
    static func lifetime(of field: Any?) -> Result<Double?, CredentialProblem> {
        let seconds: Double
        switch field {
        case nil, is NSNull: return .success(nil)
        case let number as NSNumber where !FieldSpec.isBoolean(number):
            seconds = number.doubleValue
        case let text as String:
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else {
                return .failure(CredentialProblem("\"\(text.prefix(40))\" is not a number of seconds"))
            }
            seconds = number
        default:
            return .failure(CredentialProblem("\(field.map { "\($0)" }?.prefix(40) ?? "") is not a number of seconds"))
        }
        guard !seconds.isNaN, seconds >= 0 else {
            return .failure(CredentialProblem("\(seconds) is not a number of seconds ≥ 0"))
        }
        guard seconds >= shortestLifetime else {
            return .failure(
                CredentialProblem(
                    "tokens that live \(seconds) s cannot carry a run's requests (VitalSim needs at least \(Int(shortestLifetime)) s)"
                )
            )
        }
        return .success(min(seconds, longestLifetime))
    }

    /// What to fix, from what the token endpoint answered: its status and RFC 6749 §5.2 `error`.
    static func refusalHint(_ reply: HTTPReply, settings: OAuth2) -> String {
        let answer = try? SUTJSON.document(reply.body) as? [String: Any]
        let code = answer?["error"] as? String
        let description = ((answer?["error_description"] as? String) ?? "").lowercased()
        let secret = "the secret in $\(settings.secretVariable) (client-secret-env)"
        let other: OAuth2.ClientAuthentication = settings.clientAuthentication == .basic ? .body : .basic
        let sent =
            settings.clientAuthentication == .basic
            ? "this profile sends the client id and secret as HTTP Basic (client-authentication: basic)"
            : "this profile sends the client id and secret in the form body (client-authentication: body)"
        if [404, 405].contains(reply.status) || (answer == nil && reply.status != 401) {
            return
                "this does not look like an OAuth2 token endpoint (\(reply.status), \(answer == nil ? "no JSON error" : "error \(code ?? "")")): check token-url in the profile (a path on base-url, or an absolute URL)"
        }
        switch code {
        case "invalid_client"
        where description.contains("method") || description.contains("basic")
            || description.contains("client_id") || description.contains("authentication"):
            return
                "the endpoint refuses how the client authenticates: \(sent); try client-authentication: \(other.rawValue)"
        case "invalid_client":
            return
                "client authentication failed: check client-id and \(secret); \(sent) — if the endpoint expects the other way, set client-authentication: \(other.rawValue)"
        case "invalid_request" where settings.clientAuthentication == .basic && description.contains("client"):
            return "the endpoint found no client in the request: \(sent); try client-authentication: body"
        case "invalid_request":
            return
                "the endpoint found the token request malformed: \(sent); check client-authentication, scope and audience"
        case "invalid_scope":
            return "the scope '\(settings.scope ?? "")' is refused: check scope in the profile"
        case "unauthorized_client":
            return
                "client \(settings.clientID) may not use the client-credentials grant: ask the SUT's administrators to allow it"
        case "unsupported_grant_type":
            return "the endpoint does not offer the client-credentials grant (RFC 6749 §4.4) that VitalSim uses"
        case "invalid_grant":
            return "the endpoint refused the grant: check client-id, \(secret), scope and audience"
        default:
            return
                "check client-id, \(secret), client-authentication (now \(settings.clientAuthentication.rawValue)) and scope in the profile"
        }
    }

    /// `application/x-www-form-urlencoded` encoding of one name or value.
    static func formEncode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return (s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s).replacingOccurrences(of: "%20", with: "+")
    }
}
