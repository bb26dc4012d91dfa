import Judge
import RunRecord
import Testing
import VitalSimCore

/// The audit trail judged against the requests the harness made with people's credentials: each
/// required access needs its own entry within the clock tolerance, list reads are allowed but not
/// required, an entry the harness never caused is `audit-invented`, and a trail not read is one
/// skipped check.
struct AuditChecksTests {
    static let t0: Int64 = 1_790_000_000_000
    static let people = [
        AuditPerson(person: "ann", role: .caregiver, inCare: ["721"]),
        AuditPerson(person: "osei", role: .clinician, inCare: ["721", "722"]),
    ]

    /// Ann's granted read of 721's readings at t0 (answered 200 ms later) and her refused read of
    /// 722's; ann acknowledging an alert of 721 at t0 + 5 s; osei's inbox read.
    static func result(_ entries: [AuditEntry], unread: String? = nil) -> RunObservation {
        var result = JudgeFixtures.result([])
        var own = AccessProbe(
            person: "ann",
            role: .caregiver,
            operation: .readReadings,
            patient: "721",
            inCare: true,
            mustGrant: true
        )
        (own.status, own.sentAt, own.answeredAt) = (200, t0, t0 + 200)
        var other = AccessProbe(
            person: "ann",
            role: .caregiver,
            operation: .readReadings,
            patient: "722",
            inCare: false,
            mustGrant: false
        )
        (other.status, other.sentAt, other.answeredAt) = (403, t0 + 300, t0 + 400)
        result.areas[AccessMatrixObservation.self] = AccessMatrixObservation(probes: [own, other])
        var ack = CareActionOutcome(
            action: CareTeamAction(at: 0, person: "ann", patient: "721", action: .acknowledge),
            alert: nil,
            status: 201,
            problem: nil,
            accepted: true
        )
        (ack.sentAt, ack.answeredAt) = (t0 + 5000, t0 + 5100)
        result.areas[CareActionsObservation.self] = CareActionsObservation(outcomes: [ack])
        result.areas[InboxesObservation.self] = InboxesObservation(notifications: nil, readers: ["osei"])
        result.areas[AuditReadBack.self] = AuditReadBack(entries: entries, unread: unread, people: people)
        return result
    }

    static let complete = [
        AuditEntry(agent: "ann", patient: "721", change: false, at: t0 + 100),
        AuditEntry(agent: "ann", patient: "721", change: true, at: t0 + 5050),
        AuditEntry(agent: nil, patient: "721", change: true, at: t0 - 60_000),
        AuditEntry(agent: "osei", patient: "722", change: false, at: t0 + 9000),
    ]

    @Test func aCompleteTrailPassesEachPersonsCheck() {
        let checks = AuditTrailArea().auditChecks(Self.result(Self.complete))
        #expect(checks.map(\.name) == ["audit trail of caregiver ann", "audit trail of clinician osei"])
        #expect(checks.allSatisfy { $0.finding == nil }, "\(checks.map(\.detail))")
        #expect(checks.first?.detail == "every one of 2 granted access(es) recorded; 2 entries, none invented")
    }

    @Test func aMissingReadAnEntryFarFromItsTimeAndOneEntryForTwoAccessesAreMissing() {
        let without = Self.complete.filter { !($0.agent == "ann" && !$0.change) }
        #expect(AuditTrailArea().auditChecks(Self.result(without)).first?.finding == .auditMissing)
        var shifted = Self.complete
        shifted[0].at = Self.t0 + 200 + AuditTrailArea().auditClockTolerance + 1
        let late = AuditTrailArea().auditChecks(Self.result(shifted)).first
        #expect(late?.finding == .auditMissing)
        #expect(late?.detail.contains("check the SUT's clock") == true, "\(late?.detail ?? "")")
        shifted[0].at = Self.t0 + 200 + AuditTrailArea().auditClockTolerance
        #expect(AuditTrailArea().auditChecks(Self.result(shifted)).first?.finding == nil, "within the tolerance")
    }

    @Test func entriesTheHarnessNeverCausedAreInvented() {
        for invented in [
            AuditEntry(agent: "ann", patient: "722", change: false, at: Self.t0 + 350),  // refused: not read
            AuditEntry(agent: "osei", patient: "721", change: true, at: Self.t0),  // osei changed nothing
        ] {
            let checks = AuditTrailArea().auditChecks(Self.result(Self.complete + [invented]))
            let failed = checks.filter { $0.finding != nil }
            #expect(failed.map(\.finding) == [.auditInvented], "\(invented)")
            #expect(failed.first?.detail.contains("patient \(invented.patient)") == true)
        }
    }

    @Test func aTrailNotReadIsOneSkippedCheckAndNoTrailNoCheck() {
        let unread = AuditTrailArea().auditChecks(
            Self.result([], unread: "not read: the SUT profile has no audit section")
        )
        #expect(unread.count == 1)
        #expect(unread.first?.skipped == true && unread.first?.finding == nil)
        var none = Self.result([])
        none.areas[AuditReadBack.self] = nil
        #expect(AuditTrailArea().auditChecks(none).isEmpty)
    }
}
