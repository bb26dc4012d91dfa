import VitalSimCore
import XCTest

/// A patient's `thresholds:` (the IoT-AI SRS's custom alert limits): rule id → limit, or rule id →
/// `{signal: limit}`; every mistake is an issue with file, line, column and field.
final class ScenarioThresholdsTests: XCTestCase {
    func scenario(profile: String = "adult", _ thresholds: String) -> String {
        """
        name: limits
        duration: 1h
        patients:
          - id: "601"
            profile: \(profile)
            thresholds:
        \(thresholds)
            devices:
              - {id: hrm-1, type: heart-rate-strap}
        """
    }

    func issues(_ text: String) -> [String] {
        do {
            _ = try ScenarioLoader.parse(text, file: "limits.yaml")
            return []
        } catch { return error.issues.map { "\($0.line):\($0.column) \($0.field): \($0.message)" } }
    }

    func testLimitsLoadInCatalogueOrderWithTheirLines() throws {
        let text = scenario("      bp.hypertensive-crisis: {systolic: 165, diastolic: 105}\n      hr.tachycardia: 120")
        let limits = try ScenarioLoader.parse(text, file: "limits.yaml").patients[0].thresholds
        XCTAssertEqual(
            limits.map { "\($0.rule) \($0.signal.rawValue) \($0.value) @\($0.line)" },
            [
                "hr.tachycardia heart-rate 120.0 @8", "bp.hypertensive-crisis systolic 165.0 @7",
                "bp.hypertensive-crisis diastolic 105.0 @7",
            ]
        )
        XCTAssertEqual(
            ThresholdOverride.json(limits).serialized(),
            #"{"hr.tachycardia":{"heart-rate":120},"bp.hypertensive-crisis":{"systolic":165,"diastolic":105}}"#
        )
    }

    func testEveryMistakeIsNamed() {
        XCTAssertEqual(
            issues(scenario("      hr.tachycardy: 120")),
            [
                "7:7 patients[0].thresholds.hr.tachycardy: unknown key 'hr.tachycardy' (did you mean 'hr.tachycardia'?); valid keys: "
                    + ThresholdOverride.rules.map(\.id).joined(separator: ", ")
            ]
        )
        XCTAssertEqual(
            issues(scenario("      infant.spo2-low: 70")),
            [
                "7:24 patients[0].thresholds.infant.spo2-low: infant.spo2-low does not apply to profile adult; its rules: hr.tachycardia, hr.bradycardia, bp.hypertensive-crisis, bp.stage2-sustained, temp.fever, spo2.low, glucose.meter-level2-low, hr.fluctuation"
            ]
        )
        XCTAssertEqual(
            issues(scenario("      bp.hypertensive-crisis: 170")),
            [
                "7:31 patients[0].thresholds.bp.hypertensive-crisis: bp.hypertensive-crisis compares 2 signals; write {systolic: LIMIT, diastolic: LIMIT}"
            ]
        )
        let signal = issues(scenario("      bp.hypertensive-crisis: {heart-rate: 170}"))
        XCTAssertTrue(
            signal.first?.hasPrefix("7:32 patients[0].thresholds.bp.hypertensive-crisis.heart-rate: unknown key")
                ?? false,
            "\(signal)"
        )
        XCTAssertEqual(
            issues(scenario("      temp.fever: 101.3")),
            ["7:19 patients[0].thresholds.temp.fever: 101.3 is out of range; valid: 34...43 °C"]
        )
        XCTAssertEqual(
            issues(scenario("      hr.fluctuation: 60")),
            ["7:23 patients[0].thresholds.hr.fluctuation: 60 is out of range; valid: 3...50 /min"]
        )
        XCTAssertEqual(
            issues(scenario("      hr.tachycardia: fast"))[0],
            "7:23 patients[0].thresholds.hr.tachycardia: expected a number (/min), got the string 'fast'"
        )
        XCTAssertEqual(
            issues(scenario("      {}")),
            ["7:7 patients[0].thresholds: give at least one rule's limit, or leave thresholds out"]
        )
        XCTAssertEqual(
            issues(scenario(profile: "chd-infant", "      infant.spo2-low: 70\n      hr.tachycardia: 180")).count,
            1,
            "the infant's own rule is accepted, the adult one is not"
        )
    }
}
