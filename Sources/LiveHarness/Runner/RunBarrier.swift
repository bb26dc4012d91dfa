import Judge
import RunRecord

/// A moment of the scenario at which a run pauses (a care-team action of the timeline): every
/// request due before it is sent and answered, then `act` runs with the alerts listed so far, then
/// the traffic goes on, its schedule moved on by the pause.
package struct RunBarrier: Sendable {
    /// Scenario time (virtual ms from the start), as a request's `sendAt`.
    package var at: Int64
    /// What happens there; it is given the alerts listed so far (read when it calls).
    package var act: @Sendable (_ listed: @escaping @Sendable () -> [ObservedAlert]) async -> Void

    package init(
        at: Int64,
        act: @escaping @Sendable (_ listed: @escaping @Sendable () -> [ObservedAlert]) async -> Void
    ) {
        self.at = at
        self.act = act
    }
}
