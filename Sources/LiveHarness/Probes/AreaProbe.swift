import Judge
import RunRecord

/// When a conformance area's probe observes the SUT.
enum ProbePhase: Sendable, Equatable {
    /// During the run, at pauses of its schedule (the care team's actions at their times).
    case duringRun
    /// After the run's last reading and alert, before the lifecycle's reset (read-backs, the access
    /// matrix, people's inboxes, the audit trail).
    case afterRun
    /// After the reset (what is left of deleted patients).
    case afterReset
}

/// The live side of a conformance area (``ConformanceArea/observedBy`` `.probe`): what it observes of
/// the SUT beyond the runner's traffic and alerts, kept in the run's ``RunObservation/areas`` for the
/// area to judge. An area's probe is a conformance of the area's own type, in this module's
/// `Probes` folder; ``ScenarioSession/run(awaiting:)`` carries out every probe of the registry in its
/// order, each at its phase.
protocol AreaProbe: ConformanceArea {
    /// When it observes.
    var phase: ProbePhase { get }
    /// During the run: the pauses of its schedule at which it acts, and how what it saw then goes
    /// into the run's record once the run ends.
    func pauses(in session: ScenarioSession) -> RunPauses
    /// After the run or the reset: what it observes, into `record` (a misconfiguration it reveals
    /// goes to ``RunObservation/misconfiguration``).
    func observe(in session: ScenarioSession, into record: inout RunObservation) async
}

extension AreaProbe {
    func pauses(in session: ScenarioSession) -> RunPauses { RunPauses(barriers: [], record: { _ in }) }
    func observe(in session: ScenarioSession, into record: inout RunObservation) async {}
}

/// What a probe does during a run: pauses of the schedule at which it acts (``RunBarrier``), and what
/// it then records once the run ends.
struct RunPauses: Sendable {
    var barriers: [RunBarrier]
    var record: @Sendable (inout RunObservation) -> Void
}
