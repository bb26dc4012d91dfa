import Judge
import RunRecord

/// Reads every person's notifications after the run (``CareTeamClient/notifications()``) when a
/// patient of the scenario has an escalation policy and the run reached the SUT.
extension RecipientsArea: AreaProbe {
    var phase: ProbePhase { .afterRun }

    func observe(in session: ScenarioSession, into record: inout RunObservation) async {
        let team = session.careTeam
        guard record.reachedTheSUT, !team.people.isEmpty else { return }
        let (notifications, note, misconfiguration) = await team.notifications()
        record.areas[InboxesObservation.self] = InboxesObservation(
            notifications: notifications,
            unread: note,
            readers: notifications == nil ? [] : team.people
        )
        if let misconfiguration { record.misconfiguration = misconfiguration }
    }
}
