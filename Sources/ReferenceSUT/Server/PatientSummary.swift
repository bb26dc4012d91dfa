import VitalSimCore

/// What the reference SUT knows of one patient (`GET /api/v1/patients/{id}`).
package struct PatientSummary: Sendable, Equatable {
    /// The profile its readings are judged under.
    package var profile: Profile
    /// Its own alert limits (empty: the rules' values).
    package var limits: [ThresholdOverride]
    /// Whether it was enrolled (rather than known from readings or the start-up scenario only).
    package var enrolled: Bool
    /// Readings judged under its profile.
    package var readings: Int
    /// Alerts listed for it.
    package var alerts: Int
}
