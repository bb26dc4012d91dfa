import Generation
import VitalSimCore

extension PatientPhysiology {
    /// The physiology of `scenario`'s first patient, drawn from the same stream a run draws it
    /// from, so a test can ask what the patient was doing when a reading was taken.
    static func firstPatient(of scenario: Scenario) -> PatientPhysiology {
        let patient = scenario.patients[0]
        return PatientPhysiology(
            patient: patient,
            events: scenario.events(for: patient.id),
            rng: SeededRandom(seed: scenario.seed).split("patient:" + patient.id),
            clock: DayClock(startUnixMilliseconds: scenario.startUnixMilliseconds)
        )
    }
}
