import Crypto
import Foundation

/// How a webhook POST proves it comes from whoever holds a shared secret, as the common webhook
/// schemes sign: an HMAC-SHA256 of the body in one header (GitHub's `X-Hub-Signature-256:
/// sha256=<hex>`), or Standard Webhooks' `webhook-id`, `webhook-timestamp` and `webhook-signature:
/// v1,<base64>` over `id.timestamp.body` with a `whsec_` secret. The reference SUT signs with it; the
/// harness's receivers check it (comparing in constant time).
package struct WebhookSignature: Sendable, Equatable {
    /// The signing scheme.
    package enum Scheme: String, Sendable, CaseIterable {
        /// `header: sha256=<lowercase hex of HMAC-SHA256(secret, body)>` (the secret's UTF-8 bytes).
        case hubSHA256 = "hub-sha256"
        /// Standard Webhooks v1: the key is the base64 after `whsec_` (or the secret's bytes without
        /// that prefix); signatures older or newer than ``StandardWebhooks/tolerance`` are refused.
        case standardWebhooks = "standard-webhooks"
    }

    /// Standard Webhooks' header names and timestamp tolerance.
    package enum StandardWebhooks {
        package static let id = "webhook-id"
        package static let timestamp = "webhook-timestamp"
        package static let signature = "webhook-signature"
        /// How far a signature's timestamp may be from the receiver's clock: five minutes, as the
        /// specification's libraries default.
        package static let tolerance: TimeInterval = 300
    }

    package var scheme: Scheme
    /// The HMAC key.
    package var key: [UInt8]
    /// The header holding a `hub-sha256` signature.
    package var header: String
    /// The environment variable the secret was read from, to hand to a process that signs.
    package var secretVariable: String?

    /// - Parameter secret: the shared secret as configured (`whsec_…` for Standard Webhooks).
    package init(scheme: Scheme, secret: String, header: String = "X-Hub-Signature-256") {
        self.scheme = scheme
        self.header = header
        if scheme == .standardWebhooks, secret.hasPrefix("whsec_"),
            let decoded = Data(base64Encoded: String(secret.dropFirst(6)))
        {
            key = Array(decoded)
        } else {
            key = Array(secret.utf8)
        }
    }

    /// The headers signing `body` (`Name: value`); `id` and `timestamp` (seconds since 1970) are
    /// Standard Webhooks' and ignored by `hub-sha256`.
    package func headers(for body: [UInt8], id: String, timestamp: Int) -> [String] {
        switch scheme {
        case .hubSHA256:
            return ["\(header): sha256=" + Self.hex(mac(body))]
        case .standardWebhooks:
            let signature = Data(mac(Array("\(id).\(timestamp).".utf8) + body)).base64EncodedString()
            return [
                "\(StandardWebhooks.id): \(id)", "\(StandardWebhooks.timestamp): \(timestamp)",
                "\(StandardWebhooks.signature): v1,\(signature)",
            ]
        }
    }

    /// Why a POST with `body` and headers (looked up by lowercase name) is not signed with this
    /// secret, or nil when it is. `now` is the receiver's clock, for Standard Webhooks' timestamp.
    package func problem(body: [UInt8], header value: (String) -> String?, now: Date) -> String? {
        switch scheme {
        case .hubSHA256:
            guard let given = value(header.lowercased()) else { return "no \(header) header" }
            guard given.hasPrefix("sha256="), let bytes = Self.bytes(hex: String(given.dropFirst(7))) else {
                return "\(header) is not sha256=<hex>"
            }
            return valid(bytes, for: body) ? nil : "\(header) does not match the body"
        case .standardWebhooks:
            guard let id = value(StandardWebhooks.id), let stamp = value(StandardWebhooks.timestamp),
                let signatures = value(StandardWebhooks.signature)
            else { return "no webhook-id, webhook-timestamp and webhook-signature headers" }
            guard let seconds = Int(stamp) else { return "webhook-timestamp is not whole seconds" }
            guard abs(now.timeIntervalSince1970 - Double(seconds)) <= StandardWebhooks.tolerance else {
                return "webhook-timestamp \(stamp) is more than five minutes from the receiver's clock"
            }
            let signed = Array("\(id).\(seconds).".utf8) + body
            // A space-separated list of `version,signature`; any v1 one that matches will do.
            let matches = signatures.split(separator: " ").contains { entry in
                guard entry.hasPrefix("v1,"), let bytes = Data(base64Encoded: String(entry.dropFirst(3))) else {
                    return false
                }
                return valid(Array(bytes), for: signed)
            }
            return matches ? nil : "webhook-signature holds no v1 signature matching the body"
        }
    }

    func mac(_ message: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    func valid(_ code: [UInt8], for message: [UInt8]) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: message, using: SymmetricKey(data: key))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }
}
