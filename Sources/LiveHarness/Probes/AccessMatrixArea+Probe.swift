import Judge
import RunRecord
import Traffic

/// Tries the access-control matrix of the scenario's care teams (``AccessMatrix``) after the run,
/// unless it already failed to reach the SUT.
extension AccessMatrixArea: AreaProbe {
    var phase: ProbePhase { .afterRun }

    func observe(in session: ScenarioSession, into record: inout RunObservation) async {
        guard record.reachedTheSUT else { return }
        let setup = session.setup
        let matrix = AccessMatrix(
            scenario: setup.scenario,
            naming: session.naming,
            base: session.base,
            client: session.runner.client,
            profile: setup.options.target.profile,
            lifecycle: session.lifecycle
        ) { patient in
            firstHTTPRequest(of: patient, setup.trafficPlan(naming: session.naming))
        }
        record.areas[AccessMatrixObservation.self] = AccessMatrixObservation(
            probes: await matrix.run(observed: record.alerts.observed)
        )
    }

    /// The first request of `patient`'s traffic that goes over HTTP and must be accepted, among the
    /// plan's first 100,000.
    func firstHTTPRequest(of patient: String, _ plan: TrafficPlanStream) -> PlannedRequest? {
        plan.prefix(100_000).first {
            $0.patientID == patient && $0.topic == nil && $0.expectedRejection == nil && $0.unroutable == nil
        }
    }
}
