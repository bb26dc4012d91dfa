import ReferenceEngine
import VitalSimCore
import XCTest

/// The symptom rules of the reference SUT: each chest-pain or fainting report raises a red flag;
/// a symptom reported worse than its previous report within 24 h raises an escalation.
final class SymptomRuleTests: XCTestCase {
    let hour: Int64 = 3_600_000
    var counter = 0

    func engine(_ profile: Profile = .adult) throws -> AlertEngine {
        AlertEngine(rules: try RuleSetLoader.defaultRules(), profiles: ["p": profile])
    }

    func report(_ signal: Signal, _ severity: Double, at t: Int64) -> Observation {
        counter += 1
        return Observation(
            readingID: "s\(counter)",
            patientID: "p",
            deviceID: "diary",
            time: t,
            values: [signal: severity]
        )
    }

    func rules(_ alertEngine: AlertEngine, _ observation: Observation) -> [String] {
        alertEngine.ingest(observation).map(\.rule)
    }

    func testEveryRedFlagReportRaises() throws {
        let alerting = try engine()
        XCTAssertEqual(rules(alerting, report(.chestPain, 1, at: 0)), ["symptom.red-flag"], "any severity")
        XCTAssertEqual(
            rules(alerting, report(.chestPain, 1, at: hour * 30)),
            ["symptom.red-flag"],
            "each report, not once per patient"
        )
        XCTAssertEqual(rules(alerting, report(.fainting, 2, at: hour * 31)), ["symptom.red-flag"])
        XCTAssertEqual(rules(alerting, report(.palpitations, 3, at: hour * 32)), [], "palpitations are not a red flag")
        XCTAssertEqual(rules(alerting, report(.dizziness, 3, at: hour * 33)), [])
        XCTAssertEqual(
            rules(try engine(.chdInfant), report(.chestPain, 3, at: 0)),
            [],
            "infants report nothing themselves"
        )
    }

    func testEscalationIsAWorseReportOfTheSameSymptomWithin24Hours() throws {
        let alerting = try engine()
        XCTAssertEqual(rules(alerting, report(.palpitations, 1, at: 0)), [])
        XCTAssertEqual(rules(alerting, report(.palpitations, 1, at: hour)), [], "as bad is not worse")
        XCTAssertEqual(rules(alerting, report(.dizziness, 2, at: 2 * hour)), [], "another symptom is no comparison")
        XCTAssertEqual(rules(alerting, report(.palpitations, 2, at: 3 * hour)), ["symptom.escalation"])
        XCTAssertEqual(
            rules(alerting, report(.palpitations, 3, at: 4 * hour)),
            ["symptom.escalation"],
            "each worse report raises"
        )
        XCTAssertEqual(rules(alerting, report(.palpitations, 2, at: 5 * hour)), [], "better")
        // Exactly 24 h after the previous report is within the window; a minute more is not.
        XCTAssertEqual(rules(alerting, report(.palpitations, 3, at: 29 * hour)), ["symptom.escalation"])
        XCTAssertEqual(
            rules(alerting, report(.dizziness, 3, at: 26 * hour + 60_000)),
            [],
            "25 h after the dizziness at 2 h"
        )
        // The same out-of-order arrival as OracleSymptomRuleTests: judged as received.
        let late = try engine()
        XCTAssertEqual(rules(late, report(.shortnessOfBreath, 2, at: hour)), [])
        XCTAssertEqual(rules(late, report(.shortnessOfBreath, 1, at: 0)), [], "an earlier onset arriving late")
        XCTAssertEqual(rules(late, report(.shortnessOfBreath, 3, at: 3 * hour)), ["symptom.escalation"])
        let red = try engine()
        _ = red.ingest(report(.chestPain, 1, at: 0))
        XCTAssertEqual(Set(rules(red, report(.chestPain, 3, at: hour))), ["symptom.red-flag", "symptom.escalation"])
    }
}
