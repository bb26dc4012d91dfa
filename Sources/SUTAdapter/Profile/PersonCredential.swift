/// A person's credential in a credentials file's `people:` list (the shape of the reference SUT's
/// `--credentials` file): who holds it, their role, and whether it is still valid.
package struct PersonCredential: Sendable, Equatable {
    /// The person's id at the SUT as the scenario names them (a patient's own id for `patient`).
    package var person: String
    /// `patient`, `caregiver` or `clinician`.
    package var role: String
    package var token: String
    /// `revoked` for `revoked: true`, else `valid` (see ``state(at:)`` for expiry).
    package var state: State = .valid
    /// When the credential expires (`expires:`, Unix ms), if it does.
    package var expiresAt: Int64?

    /// Whether the SUT must honour the credential.
    package enum State: String, Sendable {
        case valid
        case expired
        case revoked
    }

    package init(person: String, role: String, token: String, state: State = .valid) {
        self.person = person
        self.role = role
        self.token = token
        self.state = state
    }

    /// Whether the SUT must honour the credential at wall-clock time `now` (Unix ms): a validity
    /// is about now, not about the scenario's time.
    package func state(at now: Int64) -> State {
        if state == .valid, let expiresAt, expiresAt <= now { return .expired }
        return state
    }

    /// The roles a `people:` entry may have.
    package static let roles = ["patient", "caregiver", "clinician"]
}
