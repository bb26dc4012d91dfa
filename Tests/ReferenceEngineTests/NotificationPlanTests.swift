import ReferenceEngine
import VitalSimCore
import XCTest

/// Who has been notified of an alert by a given device time: the first step at once, each later
/// one at its deadline unless an action came strictly before it; `no-response` stops nothing; a
/// severity without steps notifies nobody; the two faults.
final class NotificationPlanTests: XCTestCase {
    let minute: Int64 = 60_000
    let alert = Alert(
        alertID: "a-1",
        patientID: "p",
        rule: "bp.hypertensive-crisis",
        severity: .high,
        raisedAt: 0,
        evidence: []
    )
    let policy = EscalationPolicy(steps: [
        .high: [
            EscalationStep(after: 0, notify: ["ann"]),
            EscalationStep(after: 600_000, notify: ["osei"]),
            EscalationStep(after: 1_800_000, notify: ["on-call", "p"]),
        ]
    ])
    let team = [
        CareTeamMember(id: "ann", role: .caregiver), CareTeamMember(id: "osei", role: .clinician),
        CareTeamMember(id: "on-call", role: .clinician), CareTeamMember(id: "kim", role: .caregiver),
    ]

    func notified(
        at now: Int64,
        _ actions: [(CareAction, Int64)] = [],
        faults: FaultPlan = FaultPlan(),
        alert: Alert? = nil
    ) -> [String] {
        let logged = actions.map { AlertAction(alertID: "a-1", patientID: "p", person: "ann", action: $0.0, at: $0.1) }
        return NotificationPlan.notifications(
            of: alert ?? self.alert,
            policy: policy,
            careTeam: team,
            actions: logged,
            now: now,
            faults: faults
        ).map { "\($0.recipient)@\($0.notifiedAt / minute)" }
    }

    func testEachStepComesAtItsDeadlineOnTheDeviceClock() {
        XCTAssertEqual(notified(at: 0), ["ann@0"])
        XCTAssertEqual(notified(at: 10 * minute - 1), ["ann@0"])
        XCTAssertEqual(notified(at: 10 * minute), ["ann@0", "osei@10"])
        XCTAssertEqual(notified(at: 4 * 60 * minute), ["ann@0", "osei@10", "on-call@30", "p@30"])
    }

    func testAnActionBeforeADeadlineStopsEveryLaterStep() {
        XCTAssertEqual(notified(at: 60 * minute, [(.acknowledge, 5 * minute)]), ["ann@0"])
        XCTAssertEqual(notified(at: 60 * minute, [(.dismiss, 20 * minute)]), ["ann@0", "osei@10"])
        XCTAssertEqual(
            notified(at: 60 * minute, [(.respond, 10 * minute)]),
            ["ann@0", "osei@10"],
            "at the deadline: too late"
        )
        XCTAssertEqual(notified(at: 60 * minute, [(.noResponse, 1)]).count, 4, "no response stops nothing")
    }

    func testASeverityWithoutStepsNotifiesNobody() {
        var medium = alert
        medium.severity = .medium
        XCTAssertEqual(notified(at: 60 * minute, alert: medium), [])
    }

    func testTheFaultsNotifyEveryoneAtOnceOrNobodyLater() {
        var everyone = FaultPlan()
        everyone.everyoneNotified = true
        XCTAssertEqual(notified(at: 0, faults: everyone), ["p@0", "ann@0", "osei@0", "on-call@0", "kim@0"])
        var none = FaultPlan()
        none.noEscalation = true
        XCTAssertEqual(notified(at: 60 * minute, faults: none), ["ann@0"])
    }
}
