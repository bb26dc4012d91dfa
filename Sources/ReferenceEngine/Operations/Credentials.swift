import VitalSimCore

/// Device and reader credentials (bearer tokens). When none are configured the API is open.
package struct Credentials: Sendable {
    /// Device token → (patient, device): a device may post only for its own patient.
    package var devices: [String: (patientID: String, deviceID: String)] = [:]
    /// Tokens allowed to read alerts.
    package var readers: Set<String> = []
    /// Tokens allowed to enrol and delete patients.
    package var admins: Set<String> = []

    package init() {}

    /// True when any credential is configured (and so every request must carry one).
    package var enforced: Bool { !devices.isEmpty || !readers.isEmpty || !admins.isEmpty }

    /// Demo credentials for `--dev`: one device token per patient (its VitalEdge phone), a reader
    /// token and an admin token.
    package static func demo(patients: [String]) -> Credentials {
        var credentials = Credentials()
        for p in patients { credentials.devices[token()] = (p, "vitaledge-\(p)") }
        credentials.readers.insert(token())
        credentials.admins.insert(token())
        return credentials
    }

    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<32).map { _ in digits[Int(generator.next() % 16)] })
    }

    /// The credential of a request: the bearer token, or else the `X-API-Key` value.
    package static func token(_ authorization: String?, apiKey: String?) -> String? {
        if let t = bearer(authorization) { return t }
        guard let k = apiKey?.trimmingWhitespace(), !k.isEmpty else { return nil }
        return k
    }

    /// The token of an `Authorization: Bearer …` header value.
    package static func bearer(_ header: String?) -> String? {
        guard let h = header, h.hasPrefix("Bearer ") else { return nil }
        let t = String(h.dropFirst(7)).trimmingWhitespace()
        return t.isEmpty ? nil : t
    }
}
