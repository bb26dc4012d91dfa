/// What could still be read of a patient after the scenario deleted them (the profile's lifecycle
/// `reset:`, or the reference contract's `DELETE /api/v1/patients/{id}` for the embedded SUT): the
/// first page of their stored readings and of the alert list, read with the reader's credential
///.
package struct DeletedPatientRead: Sendable, Equatable {
    /// The patient (scenario id).
    package var patient: String
    /// How the stored readings answered: the status, and how many readings the page still listed.
    package var readingsStatus: Int?
    package var readingsListed = 0
    /// The patient's alerts the alert list still showed (their ids at the SUT).
    package var alertsListed: [String] = []
    /// Why it could not be judged (no answer, a 5xx, a deletion that failed), if so.
    package var unobservable: String?

    package init(patient: String) { self.patient = patient }

    /// The check's name.
    package var name: String { "nothing of patient \(patient) readable after deletion" }
}
