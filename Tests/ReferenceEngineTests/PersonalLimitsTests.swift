import ReferenceEngine
import VitalSimCore
import XCTest

/// The IoT-AI SRS's custom thresholds: a patient's own limits replace its threshold
/// rules' values in the reference SUT's engine, keep each rule's operator, persistence and re-arm
/// margin, and are refused with the field named when they cannot apply.
final class PersonalLimitsTests: XCTestCase {
    let minute: Int64 = 60_000
    var counter = 0

    func obs(_ values: [Signal: Double], at t: Int64, patient: String = "p", device: String = "d") -> Observation {
        counter += 1
        return Observation(
            readingID: "r\(counter)",
            patientID: patient,
            deviceID: device,
            time: t,
            values: values,
            rrIntervals: []
        )
    }

    func fired(
        _ alertEngine: AlertEngine,
        _ rule: String,
        _ values: [Signal: Double],
        minutes: ClosedRange<Int>,
        patient: String = "p"
    ) -> [Int] {
        minutes.filter { m in
            alertEngine.ingest(obs(values, at: Int64(m) * minute, patient: patient)).contains { $0.rule == rule }
        }
    }

    func testAnOwnTachycardiaLimitKeepsTheOperatorAndPersistence() throws {
        let limits = [ThresholdOverride(rule: "hr.tachycardia", signal: .heartRate, value: 120)]
        let alertEngine = AlertEngine(
            rules: try RuleSetLoader.defaultRules(),
            profiles: ["p": .adult, "q": .adult],
            limits: ["p": limits]
        )
        XCTAssertEqual(fired(alertEngine, "hr.tachycardia", [.heartRate: 120], minutes: 0...20), [], "120 is not > 120")
        XCTAssertEqual(
            fired(alertEngine, "hr.tachycardia", [.heartRate: 121], minutes: 21...40),
            [31],
            "10 min after the first reading above 120"
        )
        // Re-arm margin 5 below the patient's own limit: 116 does not re-arm, 115 does.
        _ = alertEngine.ingest(obs([.heartRate: 116], at: 41 * minute))
        XCTAssertEqual(fired(alertEngine, "hr.tachycardia", [.heartRate: 130], minutes: 42...60), [])
        _ = alertEngine.ingest(obs([.heartRate: 115], at: 61 * minute))
        XCTAssertEqual(fired(alertEngine, "hr.tachycardia", [.heartRate: 130], minutes: 62...80), [72])
        // Another patient keeps the rule's own limit.
        XCTAssertEqual(fired(alertEngine, "hr.tachycardia", [.heartRate: 110], minutes: 0...20, patient: "q"), [10])
    }

    func testOwnCrisisLimitsApplyPerSignal() throws {
        let alertEngine = AlertEngine(rules: try RuleSetLoader.defaultRules(), profiles: ["p": .adult])
        alertEngine.enrol(
            "p",
            profile: .adult,
            limits: [ThresholdOverride(rule: "bp.hypertensive-crisis", signal: .systolic, value: 170)]
        )
        XCTAssertEqual(
            fired(alertEngine, "bp.hypertensive-crisis", [.systolic: 170, .diastolic: 119], minutes: 0...0),
            []
        )
        XCTAssertEqual(
            fired(alertEngine, "bp.hypertensive-crisis", [.systolic: 171, .diastolic: 90], minutes: 1...1),
            [1]
        )
        // Diastolic keeps the rule's 120; re-enrolling with other limits starts the patient afresh.
        alertEngine.enrol(
            "p",
            profile: .adult,
            limits: [ThresholdOverride(rule: "bp.hypertensive-crisis", signal: .diastolic, value: 100)]
        )
        XCTAssertEqual(alertEngine.limits(of: "p").map(\.value), [100])
        XCTAssertEqual(
            fired(alertEngine, "bp.hypertensive-crisis", [.systolic: 175, .diastolic: 100], minutes: 2...2),
            []
        )
        XCTAssertEqual(
            fired(alertEngine, "bp.hypertensive-crisis", [.systolic: 150, .diastolic: 101], minutes: 3...3),
            [3]
        )
        alertEngine.forget("p")
        XCTAssertEqual(alertEngine.limits(of: "p"), [], "forgetting restores the start-up limits (none)")
    }

    func testAnOwnFluctuationLimitTurnsTheRuleOnPerDevice() throws {
        let limits = [ThresholdOverride(rule: "hr.fluctuation", signal: .heartRate, value: 7)]
        let alertEngine = AlertEngine(
            rules: try RuleSetLoader.defaultRules(),
            profiles: ["p": .adult, "q": .adult],
            limits: ["p": limits]
        )
        /// 14 samples from minute `start`, `step` ms apart, alternating 70 and 70 + `swing`: the
        /// minutes at which the rule fires.
        func swinging(
            _ patient: String,
            from start: Int64,
            by swing: Double = 7,
            step: Int64 = 5 * 60_000,
            device: String = "d"
        ) -> [Int64] {
            (0..<14).compactMap { i in
                let time = start * minute + Int64(i) * step
                let alerts = alertEngine.ingest(
                    obs([.heartRate: i % 2 == 0 ? 70 : 70 + swing], at: time, patient: patient, device: device)
                )
                return alerts.contains { $0.rule == "hr.fluctuation" } ? time / minute : nil
            }
        }
        // Successive differences of exactly 7: the median reaches the limit (`>=`) at the tenth sample.
        XCTAssertEqual(swinging("p", from: 0), [45])
        XCTAssertEqual(swinging("q", from: 0), [], "off without a patient's own limit")
        // Steady for an hour (the median below 7 − 3 re-arms), then a swing of 6.9 does not raise.
        XCTAssertEqual(fired(alertEngine, "hr.fluctuation", [.heartRate: 70], minutes: 70...130), [])
        XCTAssertEqual(swinging("p", from: 135, by: 6.9), [])
        XCTAssertEqual(fired(alertEngine, "hr.fluctuation", [.heartRate: 70], minutes: 205...265), [])
        // Re-armed; the steady minutes still inside the hour hold the median at 0 until 320 (6
        // steady differences against 10 of 7).
        XCTAssertEqual(swinging("p", from: 270), [320])
        // A stream (a strap every second) is judged by its RR intervals, not by this rule; a steady
        // second device does not mix into the first's differences.
        XCTAssertEqual(swinging("p", from: 400, by: 30, step: 1000, device: "strap"), [])
        XCTAssertEqual(
            fired(alertEngine, "hr.fluctuation", [.heartRate: 70], minutes: 400...520),
            [],
            "the other device is steady"
        )
    }

    func testLimitsThatCannotApplyAreRefusedWithTheField() throws {
        let rules = try RuleSetLoader.defaultRules()
        func problem(_ json: String, _ profile: Profile = .adult) -> String {
            guard let input = JSONInput.parse(Array(json.utf8)) else { return "not JSON" }
            do throws(ValidationFailure) {
                _ = try PersonalLimits.parse(input, rules: rules, profile: profile)
                return "accepted"
            } catch { return error.field + ": " + error.message }
        }
        XCTAssertEqual(problem(#"{"hr.tachycardia": 120, "bp.hypertensive-crisis": {"systolic": 165}}"#), "accepted")
        XCTAssertTrue(problem(#"{"hr.tachycardy": 120}"#).hasPrefix("thresholds.hr.tachycardy: no threshold rule"))
        XCTAssertTrue(
            problem(#"{"glucose.fall-rate": -3}"#, .diabeticCGM).hasPrefix(
                "thresholds.glucose.fall-rate: no threshold rule"
            )
        )
        XCTAssertEqual(
            problem(#"{"infant.spo2-low": 70}"#),
            "thresholds.infant.spo2-low: infant.spo2-low does not apply to profile adult"
        )
        XCTAssertTrue(problem(#"{"bp.hypertensive-crisis": 170}"#).contains("give {signal: limit}"))
        XCTAssertEqual(
            problem(#"{"bp.hypertensive-crisis": {"heart-rate": 170}}"#),
            "thresholds.bp.hypertensive-crisis.heart-rate: bp.hypertensive-crisis compares systolic, diastolic, not heart-rate"
        )
        XCTAssertEqual(
            problem(#"{"bp.hypertensive-crisis": {"sistolic": 170}}"#),
            "thresholds.bp.hypertensive-crisis.sistolic: unknown signal sistolic"
        )
        XCTAssertEqual(problem(#"{"temp.fever": 101.3}"#), "thresholds.temp.fever: 101.3 is outside 34...43 Cel")
        XCTAssertEqual(
            problem(#"{"hr.tachycardia": "120"}"#),
            "thresholds.hr.tachycardia: a limit is a number in /min, got string"
        )
        XCTAssertEqual(problem(#"[]"#), "thresholds: thresholds must be an object of rule id → limit")
    }

    /// The scenario language's catalogue of rules with personal limits agrees with the shipped rules
    /// file: each is a threshold (or fluctuation) rule over exactly those signals and profiles.
    func testTheCatalogueMatchesTheDefaultRules() throws {
        let rules = try RuleSetLoader.defaultRules()
        for limit in ThresholdOverride.rules {
            let rule = try XCTUnwrap(rules.first { $0.id == limit.id }, limit.id)
            XCTAssertEqual(
                rule.limitSignals,
                limit.signals,
                "\(limit.id): a threshold or fluctuation rule over those signals"
            )
            XCTAssertEqual(Set(rule.profiles), limit.profiles, limit.id)
        }
    }

    /// One patient's readings far ahead of another's (a sparse device on its own connection at
    /// `--speed max`) do not age the other's devices: time passes per patient.
    func testOnePatientsReadingsDoNotAgeAnothersDevices() throws {
        let alertEngine = AlertEngine(rules: try RuleSetLoader.defaultRules(), profiles: [:])
        for m in 0..<10 {
            _ = alertEngine.ingest(obs([.heartRate: 70], at: Int64(m) * minute, patient: "a", device: "strap"))
        }
        XCTAssertEqual(alertEngine.advance(to: 60 * minute, patient: "b"), [])
        _ = alertEngine.ingest(obs([.systolic: 120, .diastolic: 80], at: 60 * minute, patient: "b", device: "cuff"))
        XCTAssertEqual(
            alertEngine.advance(to: 60 * minute, patient: "a").map(\.rule),
            ["device.data-gap"],
            "its own patient's time does"
        )
    }
}
