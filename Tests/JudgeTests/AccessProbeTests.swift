import Judge
import RunRecord
import Testing
import VitalSimCore

/// The access-control matrix as planned from a scenario's care teams, and each probe judged.
struct AccessProbeTests {
    /// 721 in the care of ann (caregiver) and osei (clinician), 722 of osei only.
    static let scenario = {
        var scenario = try! ScenarioLoader.parse(
            """
            name: team
            duration: 1h
            patients:
              - id: "721"
                profile: adult
                care-team: [{id: ann, role: caregiver}, {id: osei, role: clinician}]
                devices: [{id: t1, type: thermometer}]
              - id: "722"
                profile: adult
                care-team: [{id: osei, role: clinician}]
                devices: [{id: t2, type: thermometer}]
            """,
            file: "team.yaml"
        )
        scenario.name = "team"
        return scenario
    }()

    @Test func eachPersonTriesTheirOwnPatientAndAnotherReadsFirstDeletionsLast() {
        let people = AccessProbe.people(of: Self.scenario)
        #expect(people.map(\.person) == ["ann", "osei", "721", "722"])
        let probes = AccessProbe.planned(Self.scenario, people: people, stale: [("ann", .expired)])
        let names = probes.map(\.name)
        // ann: 4 reads and the other's audit trail, ingest/enrol/delete of both; osei: both patients
        // are in care (2 reads), writes of 721 only; each patient: 4 reads and the other's audit
        // trail, enrol and delete of both, ingest of the other only.
        #expect(probes.count == (5 + 6) + (2 + 3) + 2 * (5 + 5) + 1, "\(names)")
        // The audit trails after every other read, so that they hold entries to leak.
        let firstAudit = probes.firstIndex { $0.operation == .readAudit } ?? 0
        #expect(probes[..<firstAudit].allSatisfy { $0.operation == .readReadings || $0.operation == .readAlerts })
        #expect(probes.filter { $0.operation == .readAudit }.allSatisfy { !$0.inCare && !$0.mustGrant })
        let firstWrite = probes.firstIndex { $0.operation.writes } ?? probes.count
        #expect(probes[..<firstWrite].allSatisfy { !$0.operation.writes })
        let firstDeletion = probes.firstIndex { $0.operation == .delete } ?? probes.count
        #expect(probes[firstDeletion...].allSatisfy { $0.operation == .delete })
        #expect(names.contains("access caregiver ann read-readings patient 722 (not in care)"))
        #expect(names.contains("access caregiver ann expired credential read-readings patient 721 (in care)"))
        #expect(!names.contains("access patient 721 ingest patient 721 (in care)"), "a patient's own app may post")
        #expect(names.contains("access patient 721 ingest patient 722 (not in care)"))
        #expect(probes.filter(\.mustGrant).allSatisfy { $0.inCare && !$0.operation.writes && $0.credential == .valid })
    }

    static func probe(_ operation: AccessProbe.Operation, inCare: Bool, status: Int?) -> AccessProbe {
        var probe = AccessProbe(
            person: "ann",
            role: .caregiver,
            operation: operation,
            patient: inCare ? "721" : "722",
            inCare: inCare,
            mustGrant: inCare && !operation.writes
        )
        probe.status = status
        return probe
    }

    @Test func anotherPatientsAuditTrailIsGrantedWronglyOnlyWhenItShowsTheirEntries() {
        var leak = Self.probe(.readAudit, inCare: false, status: 200)
        #expect(AccessMatrixArea().accessChecks([leak]).first?.passed == true, "200 without their entries: filtered")
        leak.leaked = ["2 audit entr(ies) of patient 722"]
        let check = AccessMatrixArea().accessChecks([leak]).first
        #expect(check?.finding == .accessGrantedWrongly)
        #expect(check?.detail.contains("2 audit entr(ies) of patient 722") == true)
        #expect(check.map { AccessMatrixArea().requirements(of: $0) { _ in [] } } == ["access.authorized-only"])
    }

    @Test func aLeakIsGrantedWronglyAndNamesWhatLeaked() throws {
        var leak = Self.probe(.readAlerts, inCare: false, status: 200)
        leak.leaked = ["alert a-9 (temp.fever) of patient 722"]
        let check = try #require(AccessMatrixArea().accessChecks([leak]).first)
        #expect(check.finding == .accessGrantedWrongly)
        #expect(check.detail.contains("patient 722 is not in the care of ann"))
        #expect(check.detail.contains("alert a-9 (temp.fever) of patient 722"))
        // 200 with none of the other patient's alerts is a refusal: the list was filtered.
        #expect(
            AccessMatrixArea().accessChecks([Self.probe(.readAlerts, inCare: false, status: 200)]).first?.passed == true
        )
        #expect(
            AccessMatrixArea().accessChecks([Self.probe(.delete, inCare: true, status: 204)]).first?.finding
                == .accessGrantedWrongly
        )
        #expect(
            AccessMatrixArea().accessChecks([Self.probe(.delete, inCare: false, status: 403)]).first?.passed == true
        )
    }

    @Test func aRefusedOwnReadIsRefusedWronglyAndAnEmptyListIsNotJudged() throws {
        let refused = try #require(
            AccessMatrixArea().accessChecks([Self.probe(.readReadings, inCare: true, status: 403)]).first
        )
        #expect(refused.finding == .accessRefusedWrongly)
        var lacking = Self.probe(.readAlerts, inCare: true, status: 200)
        lacking.lacking = "its list holds none of the 1 alert(s) of patient 721 the reader sees"
        #expect(AccessMatrixArea().accessChecks([lacking]).first?.finding == .accessRefusedWrongly)
        var unseen = Self.probe(.readAlerts, inCare: false, status: nil)
        unseen.unobservable = "not judged: patient 722 raised no alert"
        let skipped = try #require(AccessMatrixArea().accessChecks([unseen]).first)
        #expect(skipped.skipped && skipped.finding == nil)
    }

    @Test func eachProbeTracesToTheRequirementItVerifies() {
        let trace = { (p: AccessProbe) in
            AccessMatrixArea().requirements(of: AccessMatrixArea().accessChecks([p])[0], kinds: { _ in [] })
        }
        #expect(trace(Self.probe(.readReadings, inCare: false, status: 403)) == ["access.authorized-only"])
        #expect(trace(Self.probe(.readReadings, inCare: true, status: 200)) == ["access.authorized-only"])
        #expect(trace(Self.probe(.enrol, inCare: true, status: 403)) == ["access.roles"])
        #expect(trace(Self.probe(.ingest, inCare: false, status: 403)) == ["access.authorized-only", "access.roles"])
        var revoked = Self.probe(.readReadings, inCare: true, status: 401)
        revoked.credential = .revoked
        revoked.mustGrant = false
        #expect(trace(revoked) == ["access.stale-credentials"])
    }
}
