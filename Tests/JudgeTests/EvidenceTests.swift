import Foundation
import Judge
import RunRecord
import Traffic
import VitalSimCore
import XCTest

/// `wrong-evidence`: the readings an alert cites must be its patient's, sent and accepted, and for a
/// rule the oracle knows include one of a signal the rule reads inside its window.
final class EvidenceTests: XCTestCase {
    /// 2024-11-07T10:00:00Z.
    let t0: Int64 = 1_730_973_600_000
    let minute: Int64 = 60_000

    /// Patient 1's cuff readings at t0 (accepted) and t0 − 2 h, its CGM reading at t0, one rejected
    /// reading, one never answered, and patient 2's cuff reading at t0.
    var catalog: EvidenceCatalog {
        EvidenceCatalog(
            readings: [
                "1/cuff/5": .init(patientID: "1", signals: [.systolic, .diastolic], time: t0, status: 201),
                "1/cuff/1": .init(
                    patientID: "1",
                    signals: [.systolic, .diastolic],
                    time: t0 - 120 * minute,
                    status: 201
                ),
                "1/cgm/9": .init(patientID: "1", signals: [.cgm], time: t0, status: 201),
                "1/cuff/6": .init(patientID: "1", signals: [.systolic, .diastolic], time: t0, status: 422),
                "1/cuff/7": .init(patientID: "1", signals: [.systolic, .diastolic], time: t0, status: nil),
                "2/cuff/5": .init(patientID: "2", signals: [.systolic, .diastolic], time: t0, status: 201),
            ],
            linkedDevices: ["1/strap", "2/strap"],
            selfNamingPatients: ["3"]
        )
    }

    func alert(
        _ rule: String = "bp.hypertensive-crisis",
        at t: Int64? = nil,
        citing evidence: [String]
    ) -> ObservedAlert {
        ObservedAlert(alertID: "a", patientID: "1", rule: rule, severity: "high", raisedAt: t ?? t0, evidence: evidence)
    }

    func checks(_ observedAlert: ObservedAlert) -> [Check] {
        EvidenceArea().evidenceChecks([observedAlert], catalog: catalog)
    }

    func detail(_ observedAlert: ObservedAlert) -> String {
        checks(observedAlert).map(\.detail).joined(separator: " | ")
    }

    func testEvidenceOfThePatientInsideTheWindowPasses() {
        let made = checks(alert(citing: ["1/cuff/1", "1/cuff/5"]))
        XCTAssertEqual(made.map(\.finding), [nil])
        XCTAssertEqual(made.map(\.kind), [.evidence])
        XCTAssertEqual(made.first?.name, "alert evidence")
        // Rules the oracle does not know are checked for patient, sending and acceptance only.
        XCTAssertEqual(checks(alert("team.own-rule", citing: ["1/cuff/1"])).map(\.finding), [nil])
        // A device carried over a live BLE link: its gateway names the readings; the patient is checked.
        XCTAssertEqual(checks(alert("hr.tachycardia", citing: ["1/strap/ble/2a37/17-3"])).map(\.finding), [nil])
        // A patient with a phone bridge (VitalEdge payloads carry no id): the SUT's own ids are accepted.
        var own = alert("hr.tachycardia", citing: ["3/iot-heart-rate/1730973600000"])
        own.patientID = "3"
        XCTAssertEqual(checks(own).map(\.finding), [nil])
    }

    func testEachWayEvidenceCanBeWrongIsOneFinding() {
        let cases: [([String], String)] = [
            ([], "cites no evidence readings"),
            (["2/cuff/5"], "2/cuff/5 is a reading of patient 2"),
            (["1/cuff/6"], "1/cuff/6 was rejected with 422"),
            (["1/cuff/7"], "1/cuff/7 never reached the SUT"),
            (["1/cuff/99"], "1/cuff/99 is not a reading the harness sent"),
            (["2/strap/ble/2a37/1-1"], "2/strap/ble/2a37/1-1 is a device of another patient"),
            (["1/cuff/1"], "none of its evidence is a diastolic or systolic reading at 2024-11-07T10:00:00.000Z"),
            (["1/cgm/9"], "(it cites 1/cgm/9: cgm at 2024-11-07T10:00:00.000Z)"),
        ]
        for (evidence, expected) in cases {
            let made = checks(alert(citing: evidence))
            XCTAssertEqual(made.map(\.finding), [.wrongEvidence], "\(evidence)")
            XCTAssertEqual(
                made.first?.name,
                "evidence of alert bp.hypertensive-crisis patient 1",
                "named without a time, so the same failure keeps its name run after run"
            )
            XCTAssertTrue(
                detail(alert(citing: evidence)).contains(expected),
                "\(evidence): \(detail(alert(citing: evidence)))"
            )
        }
        // One good reading among bad ones does not excuse them.
        XCTAssertEqual(checks(alert(citing: ["1/cuff/5", "2/cuff/5"])).map(\.finding), [.wrongEvidence])
    }

    func testTheWindowIsTheRulesOwn() {
        // Tachycardia persists 10 min: a heart-rate reading 10 min before raisedAt is inside, 11 min is not.
        XCTAssertEqual(
            Oracle.evidenceScope(rule: "hr.tachycardia"),
            EvidenceScope(signals: [.heartRate], lookback: 10 * minute)
        )
        XCTAssertEqual(
            Oracle.evidenceScope(rule: "glucose.fall-rate"),
            EvidenceScope(signals: [.cgm], lookback: 15 * minute)
        )
        XCTAssertEqual(
            Oracle.evidenceScope(rule: "device.data-gap"),
            EvidenceScope(signals: nil, lookback: 30 * minute)
        )
        XCTAssertNil(Oracle.evidenceScope(rule: "team.own-rule"))
        let scope = EvidenceScope(signals: [.heartRate], lookback: 10 * minute)
        XCTAssertTrue(scope.covers(signals: [.heartRate], at: t0 - 10 * minute, raisedAt: t0))
        XCTAssertFalse(scope.covers(signals: [.heartRate], at: t0 - 11 * minute, raisedAt: t0))
        XCTAssertFalse(
            scope.covers(signals: [.heartRate], at: t0 + 2_000, raisedAt: t0),
            "a reading after the alert is no evidence"
        )
        XCTAssertFalse(scope.covers(signals: [.spo2], at: t0, raisedAt: t0))
        let news = Oracle.evidenceScope(rule: "news2.urgent")
        XCTAssertEqual(news?.signals, [.respirationRate, .spo2, .systolic, .heartRate, .temperature])
    }

    /// A reading's answer is the best any request carrying it got: a duplicate delivery accepted after
    /// a rejected one makes it accepted.
    func testAReadingsStatusIsTheBestAnswerAnyCarrierGot() {
        func request(_ ids: [String]) -> SentRequest {
            SentRequest(
                PlannedRequest(
                    path: "/p",
                    body: [],
                    readings: ids.map { ($0, 0) },
                    patientID: "1",
                    sendAt: 0,
                    expectedRejection: nil
                )
            )
        }
        let sent = [request(["1/cuff/1", "1/cuff/2"]), request(["1/cuff/2"]), request(["1/cuff/3"]), request(["x"])]
        let outcomes = [
            RequestOutcome(status: 422), RequestOutcome(status: 201), RequestOutcome(status: nil),
            RequestOutcome(status: 400),
        ]
        let statuses = EvidenceCatalog.statuses(
            of: ["1/cuff/1", "1/cuff/2", "1/cuff/3", "x"],
            sent: sent,
            outcomes: outcomes
        )
        XCTAssertEqual(statuses, ["1/cuff/1": 422, "1/cuff/2": 201, "x": 400])
    }

    /// The judge adds the evidence checks when given a catalog, and reports them under their own kind.
    func testTheVerdictCarriesEvidenceChecks() {
        let golden = JudgeFixtures.golden(alerts: [
            .init(patientID: "1", rule: "bp.hypertensive-crisis", severity: .high, from: t0 - minute, to: t0 + minute)
        ])
        let result = JudgeFixtures.result([alert(citing: ["2/cuff/5"])])
        let verdict = Verdict(
            scenario: "s",
            golden: golden,
            plan: [],
            digest: "sha256:x",
            result: result,
            evidence: catalog
        )
        XCTAssertEqual(verdict.checks.filter { $0.finding != nil }.map(\.finding), [.wrongEvidence])
        XCTAssertFalse(verdict.passed)
        let without = Verdict(scenario: "s", golden: golden, plan: [], digest: "sha256:x", result: result)
        XCTAssertTrue(without.checks.allSatisfy { $0.kind != .evidence })
    }
}
