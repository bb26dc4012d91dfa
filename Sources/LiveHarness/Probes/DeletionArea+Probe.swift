import Judge
import RunRecord
import SUTAdapter

/// After the scenario's reset, reads back what is left of its patients (``DeletionReadBack``) when
/// they were deleted: by a step of the profile's lifecycle `reset:` that deletes them
/// (``LifecycleStep/deletes``), or here when the run owns a SUT of the
/// reference contract (the embedded one, or one a test marks ``LiveOptions/Target/owned``).
extension DeletionArea: AreaProbe {
    var phase: ProbePhase { .afterReset }

    func observe(in session: ScenarioSession, into record: inout RunObservation) async {
        let options = session.setup.options
        let owned = options.target.url == nil || options.target.owned
        guard record.reachedTheSUT else { return }
        let reader = DeletionReadBack(
            scenario: session.setup.scenario,
            naming: session.naming,
            base: session.base,
            client: session.runner.client,
            profile: options.target.profile,
            lifecycle: session.lifecycle,
            auth: session.runner.auth
        )
        let deleteHere = reader.deletesHere(owned: owned)
        guard deleteHere || options.target.profile.lifecycle.resetDeletesPatients else { return }
        record.areas[DeletionObservation.self] = DeletionObservation(reads: await reader.read(delete: deleteHere))
    }
}
