import Judge
import Testing

@testable import LiveHarness

/// Every conformance area that observes more than the runner's traffic and alerts has a probe on the
/// live side, and the probes run in the registry's order at their phase.
@Suite struct AreaProbeTests {
    @Test func everyAreaObservedByAProbeHasOne() {
        for area in ConformanceRegistry.standard.areas {
            let probe = area as? any AreaProbe
            switch area.observedBy {
            case .probe: #expect(probe != nil, "\(area.name) is observed by a probe, but LiveHarness has none for it")
            case .runner: #expect(probe == nil, "\(area.name) is observed by the runner, yet has a probe")
            }
        }
    }

    /// The audit trail is read after everything whose requests it must hold: the access matrix, the
    /// care team's actions and the people's inboxes; deletion is read after the reset.
    @Test func theAuditTrailProbeFollowsTheProbesWhoseRequestsItJudges() throws {
        let probes = ConformanceRegistry.standard.areas.compactMap { $0 as? any AreaProbe }
        let order = probes.map(\.name)
        let audit = try #require(order.firstIndex(of: AuditTrailArea().name))
        for earlier in [AccessMatrixArea().name, CareActionsArea().name, RecipientsArea().name] {
            #expect((order.firstIndex(of: earlier) ?? .max) < audit, "\(earlier) before the audit trail")
        }
        #expect(probes.first { $0.name == DeletionArea().name }?.phase == .afterReset)
        #expect(probes.first { $0.name == CareActionsArea().name }?.phase == .duringRun)
    }
}
