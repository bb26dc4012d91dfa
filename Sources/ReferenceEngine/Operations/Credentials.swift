import VitalSimCore

/// Device, reader, admin and people's credentials (bearer tokens). When none are configured the
/// API is open.
package struct Credentials: Sendable {
    /// Device token → (patient, device): a device may post only for its own patient.
    package var devices: [String: (patientID: String, deviceID: String)] = [:]
    /// Tokens allowed to read alerts.
    package var readers: Set<String> = []
    /// Tokens allowed to enrol and delete patients.
    package var admins: Set<String> = []
    /// People's tokens: patients, caregivers and clinicians, each reading only the patients in
    /// their care (``Principal``).
    package var people: [String: PersonCredential] = [:]

    package init() {}

    /// True when any credential is configured (and so every request must carry one).
    package var enforced: Bool { !devices.isEmpty || !readers.isEmpty || !admins.isEmpty || !people.isEmpty }

    /// Who presents `token` at wall-clock time `now` (Unix ms, read only for a person's token), or
    /// why no one valid does; `honourStale` (the `stale-credentials` fault) takes expired and
    /// revoked ones as valid.
    package func principal(
        _ token: String,
        now: @autoclosure () -> Int64,
        honourStale: Bool = false
    ) -> Result<Principal, CredentialProblem> {
        if admins.contains(token) { return .success(.admin) }
        if readers.contains(token) { return .success(.reader) }
        if let device = devices[token] {
            return .success(.device(patientID: device.patientID, deviceID: device.deviceID))
        }
        guard let person = people[token] else { return .failure(.unknown) }
        if person.revoked, !honourStale { return .failure(.revoked) }
        if let end = person.expiresAt, !honourStale, now() >= end { return .failure(.expired) }
        return .success(.person(person))
    }
}

/// Who made a request, by its credential.
package enum Principal: Sendable, Equatable {
    /// A device of one patient: may post that patient's readings.
    case device(patientID: String, deviceID: String)
    /// The service reader (a monitoring dashboard's account): reads every patient's alerts and readings.
    case reader
    /// An administrator: enrols and deletes patients, reads everything.
    case admin
    /// A person: reads the data of the patients in their care only.
    case person(PersonCredential)
}

/// Why a credential is no valid one (each a 401).
package enum CredentialProblem: Error, Sendable, Equatable {
    case unknown
    case expired
    case revoked

    /// The refusal's message.
    package var message: String {
        switch self {
        case .unknown: "the credential is not known"
        case .expired: "the credential has expired"
        case .revoked: "the credential was revoked"
        }
    }
}

extension Credentials {
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
        if let token = bearer(authorization) { return token }
        guard let key = apiKey?.trimmingWhitespace(), !key.isEmpty else { return nil }
        return key
    }

    /// The token of an `Authorization: Bearer …` header value.
    package static func bearer(_ header: String?) -> String? {
        guard let h = header, h.hasPrefix("Bearer ") else { return nil }
        let token = String(h.dropFirst(7)).trimmingWhitespace()
        return token.isEmpty ? nil : token
    }
}
