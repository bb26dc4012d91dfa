import Judge
import RunRecord
import SUTAdapter

/// Reads the audit trail (``AuditTrailReader``) after the access matrix and the inboxes, when the
/// run made requests with people's credentials (the profile's `people:`; without them the SUT cannot
/// tell who did what) and reached the SUT; a trail that cannot be read as the profile says makes the
/// run a misconfiguration, not a finding about the SUT.
extension AuditTrailArea: AreaProbe {
    var phase: ProbePhase { .afterRun }

    func observe(in session: ScenarioSession, into record: inout RunObservation) async {
        let setup = session.setup
        guard record.reachedTheSUT, setup.options.target.profile.auth.devices?.people.isEmpty == false else { return }
        let acted =
            (record.areas[AccessMatrixObservation.self]?.probes ?? []).contains { $0.status != nil }
            || (record.areas[CareActionsObservation.self]?.outcomes ?? []).contains { $0.status != nil }
            || !(record.areas[InboxesObservation.self]?.readers ?? []).isEmpty
        guard acted else { return }
        let reader = AuditTrailReader(
            scenario: setup.scenario,
            naming: session.naming,
            base: session.base,
            client: session.runner.client,
            profile: setup.options.target.profile,
            lifecycle: session.lifecycle
        )
        switch await reader.read() {
        case .success(let trail): record.areas[AuditReadBack.self] = trail
        case .failure(let problem): record.misconfiguration = problem.message
        }
    }
}
