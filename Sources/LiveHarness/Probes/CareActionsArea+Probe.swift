import Judge
import Locking
import RunRecord
import VitalSimCore

/// Carries out the care team's actions of the timeline during the run: a pause of the schedule at
/// each action of the scenario's own patients (a shard's part included; `no-response` sends
/// nothing), where the action is taken on the alert listed by then and its outcome kept.
extension CareActionsArea: AreaProbe {
    var phase: ProbePhase { .duringRun }

    func pauses(in session: ScenarioSession) -> RunPauses {
        let team = session.careTeam
        let acted = Locked<[CareActionOutcome]>([])
        let patients = Set(team.scenario.patients.map(\.id))
        let barriers = team.scenario.careActions.filter { $0.action.stopsEscalation && patients.contains($0.patient) }
            .map { action in
                RunBarrier(at: action.at) { listed in
                    let outcome = await team.perform(action, observed: listed)
                    acted.withLock { $0.append(outcome) }
                }
            }
        return RunPauses(barriers: barriers) { record in
            record.areas[CareActionsObservation.self] = CareActionsObservation(outcomes: acted.withLock { $0 })
        }
    }
}
