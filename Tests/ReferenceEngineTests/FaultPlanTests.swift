import ReferenceEngine
import VitalSimCore
import XCTest

/// The reference SUT's faulty modes that rewrite alerts do what their names say.
final class FaultPlanTests: XCTestCase {
    let alert = Alert(
        alertID: "501-bp.hypertensive-crisis-1",
        patientID: "501",
        rule: "bp.hypertensive-crisis",
        severity: .high,
        raisedAt: 1_730_973_600_000,
        evidence: ["501/cuff/17", "501/cuff/battery/4"]
    )

    func plan(_ spellings: String...) throws -> FaultPlan {
        var faultPlan = FaultPlan()
        for s in spellings { try faultPlan.add(s, knownRules: ["bp.hypertensive-crisis"]) }
        return faultPlan
    }

    func testWrongEvidenceCitesEachDevicesFirstReadingOfThatKind() throws {
        let faultPlan = try plan("wrong-evidence")
        XCTAssertEqual(faultPlan.apply([alert]).map(\.evidence), [["501/cuff/0", "501/cuff/battery/0"]])
        XCTAssertTrue(faultPlan.summary.contains { $0.hasPrefix("wrong-evidence") }, "announced: \(faultPlan.summary)")
        XCTAssertEqual(try plan().apply([alert]), [alert], "no fault leaves alerts alone")
        XCTAssertThrowsError(try plan("wrong-evidence=yes"))
    }

    func testWrongSeverityAndDuplicatesCompose() throws {
        let out = try plan("wrong-severity", "duplicate-alerts").apply([alert])
        XCTAssertEqual(out.map(\.alertID), [alert.alertID, alert.alertID + "-again"])
        XCTAssertEqual(out.map(\.severity), [.low, .low])
    }
}
