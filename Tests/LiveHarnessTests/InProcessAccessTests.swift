import Foundation
import InProcessSUT
import Judge
import LiveHarness
import SUTAdapter
import Testing
import Traffic
import VitalSimCore

/// The access-control matrix in-process, against the reference SUT with every credential
/// enforced as the embedded one runs: the healthy SUT passes every probe; a SUT that lets every
/// person read every patient (`cross-patient-read`) or honours expired and revoked credentials
/// (`stale-credentials`) fails exactly the probes its fault breaks, as `access-granted-wrongly`,
/// traced to the requirement it breaks. The audit trail holds each person's granted accesses, and
/// a SUT that keeps none (`no-audit`) fails each person's audit check.
struct InProcessAccessTests {
    static let path = InProcessRun.path("core", "caregiver-sees-own-patient-only")

    /// The scenario's verdict with the run's credentials enforced by the SUT and held by the profile.
    static func verdict(faults: [String] = []) async throws -> Verdict {
        let scenario = try TracedScenarioLoader.load(path: path)
        let credentials = RunCredentials(scenario: scenario, naming: .identity)
        return try await InProcessRun.verdict(path, faults: faults) { sut in
            try sut.loadCredentials(credentials.fileText)
        } options: { options in
            options.target.profile.auth.devices = credentials.deviceCredentials(file: "credentials.yaml")
            // As the embedded SUT: the run deletes the patients after the scenario.
            options.target.owned = true
        }
    }

    @Test func theHealthySUTPassesEveryProbe() async throws {
        let verdict = try await Self.verdict()
        #expect(verdict.error == nil)
        #expect(InProcessRun.failures(verdict, latency: false) == [])
        let access = verdict.checks.filter { $0.kind == .access && $0.name.hasPrefix("access ") }
        // Five people (two caregivers, a clinician, two patients) and Ann's two stale credentials;
        // four of them read the other patient's audit trail (refused).
        #expect(access.count == 49, "\(access.map(\.name))")
        #expect(access.filter(\.skipped).isEmpty)
        #expect(
            Set(access.flatMap(\.requirements)) == [
                "access.authorized-only", "access.roles", "access.stale-credentials",
            ]
        )
    }

    @Test func theAuditTrailHoldsEveryPersonsAccessesUnlessTheSUTKeepsNone() async throws {
        let people = [
            "audit trail of caregiver ann", "audit trail of clinician dr-osei", "audit trail of caregiver ben",
            "audit trail of patient 721", "audit trail of patient 722",
        ]
        let healthy = try await Self.verdict().checks.filter { $0.kind == .audit }
        #expect(healthy.map(\.name) == people)
        #expect(healthy.allSatisfy { $0.passed && !$0.skipped && $0.level == .shall }, "\(healthy.map(\.detail))")
        #expect(Set(healthy.flatMap(\.requirements)) == ["access.audit"])
        let none = try await Self.verdict(faults: ["no-audit"])
        #expect(InProcessRun.findings(none, latency: false) == [.auditMissing])
        let failed = none.checks.filter { $0.finding != nil }
        #expect(failed.map(\.name) == people)
        #expect(
            failed.first?.detail.hasPrefix(
                "1 of 1 granted access(es) not recorded, the first: read-readings of patient 721"
            )
                == true,
            "\(failed.first?.detail ?? "")"
        )
    }

    @Test func aDeletedPatientsDataMustNotBeReadableAfterwards() async throws {
        let healthy = try await Self.verdict().checks.filter { $0.name.hasSuffix("readable after deletion") }
        #expect(
            healthy.map(\.name).sorted() == ["721", "722"].map { "nothing of patient \($0) readable after deletion" }
        )
        #expect(healthy.allSatisfy { $0.passed && !$0.skipped && $0.requirements == ["access.deletion"] })
        let kept = try await Self.verdict(faults: ["keep-deleted"])
        #expect(InProcessRun.findings(kept, latency: false) == [.readableAfterDeletion])
        let failed = kept.checks.filter { !$0.passed && $0.kind != .budget }
        #expect(failed.count == 2)
        #expect(failed.allSatisfy { $0.detail.contains("stored reading(s) still listed") }, "\(failed.map(\.detail))")
    }

    @Test func aSUTLettingEveryPersonReadEveryPatientIsCaught() async throws {
        let verdict = try await Self.verdict(faults: ["cross-patient-read"])
        #expect(InProcessRun.findings(verdict, latency: false) == [.accessGrantedWrongly])
        // Latency budgets aside: in-process the run shares the cores with every other test, so its
        // latencies are the machine's (a busy CI once failed reading-to-ack p99 here).
        let failed = verdict.checks.filter { !$0.passed && $0.kind != .budget }
        // Each caregiver's and patient's reads of the other patient: readings, alerts, audit trail.
        #expect(failed.count == 12, "\(failed.map(\.name))")
        #expect(
            failed.allSatisfy { $0.name.hasSuffix("(not in care)") && $0.requirements == ["access.authorized-only"] }
        )
        let ann = failed.first { $0.name == "access caregiver ann read-alerts patient 722 (not in care)" }
        #expect(ann?.detail.contains("of patient 722") == true, "\(ann?.detail ?? "")")
    }

    @Test func aSUTHonouringStaleCredentialsIsCaught() async throws {
        let verdict = try await Self.verdict(faults: ["stale-credentials"])
        #expect(InProcessRun.findings(verdict, latency: false) == [.accessGrantedWrongly])
        let failed = verdict.checks.filter { !$0.passed && $0.kind != .budget }.map(\.name)
        #expect(
            failed == [
                "access caregiver ann expired credential read-readings patient 721 (in care)",
                "access caregiver ann revoked credential read-readings patient 721 (in care)",
            ]
        )
    }
}
