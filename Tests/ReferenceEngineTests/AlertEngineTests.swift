import ReferenceEngine
import VitalSimCore
import XCTest

/// The reference SUT's default rules fire exactly at their boundaries (operators from docs/clinical.md),
/// after their persistence windows, once per episode, and re-arm with hysteresis.
final class AlertEngineTests: XCTestCase {
    let minute: Int64 = 60_000
    var counter = 0

    func engine(_ profile: Profile) throws -> AlertEngine {
        AlertEngine(rules: try RuleSetLoader.defaultRules(), profiles: ["p": profile])
    }

    func obs(_ values: [Signal: Double], at t: Int64, device: String = "d", rr: [Double] = []) -> Observation {
        counter += 1
        return Observation(
            readingID: "r\(counter)",
            patientID: "p",
            deviceID: device,
            time: t,
            values: values,
            rrIntervals: rr
        )
    }

    func rules(_ alerts: [Alert]) -> [String] { alerts.map(\.rule) }

    func testDefaultRulesLoadAndNameTheirSources() throws {
        let rules = try RuleSetLoader.defaultRules()
        XCTAssertGreaterThanOrEqual(rules.count, 20)
        for r in rules {
            // Rules whose sources are not in docs/clinical.md (the symptom rules) name them and the
            // page where they are argued.
            XCTAssertTrue(
                r.source.contains("clinical.md") || r.source.contains("docs/alert-rules.md"),
                "\(r.id) must name its source"
            )
        }
        for profile in Profile.allCases {
            XCTAssertTrue(rules.contains { $0.profiles.contains(profile) }, profile.rawValue)
        }
    }

    func testTachycardiaNeedsMoreThan100ForTenMinutes() throws {
        let alerting = try engine(.adult)
        for m in 0...20 {
            XCTAssertEqual(
                rules(alerting.ingest(obs([.heartRate: 100], at: Int64(m) * minute))),
                [],
                "100 is not > 100"
            )
        }
        var fired: [Int] = []
        for m in 21...40
        where alerting.ingest(obs([.heartRate: 101], at: Int64(m) * minute)).contains(where: {
            $0.rule == "hr.tachycardia"
        }) {
            fired.append(m)
        }
        XCTAssertEqual(fired, [31], "raised once, exactly 10 min after the first reading above 100")
        // Hysteresis: 97 does not re-arm (margin 5), 95 does.
        _ = alerting.ingest(obs([.heartRate: 97], at: 41 * minute))
        for m in 42...53 {
            XCTAssertFalse(
                rules(alerting.ingest(obs([.heartRate: 120], at: Int64(m) * minute))).contains("hr.tachycardia")
            )
        }
        _ = alerting.ingest(obs([.heartRate: 95], at: 54 * minute))
        var again: [Int] = []
        for m in 55...66
        where alerting.ingest(obs([.heartRate: 120], at: Int64(m) * minute)).contains(where: {
            $0.rule == "hr.tachycardia"
        }) {
            again.append(m)
        }
        XCTAssertEqual(again, [65])
    }

    func testHypertensiveCrisisIsStrictlyAbove180Or120() throws {
        let alerting = try engine(.adult)
        XCTAssertEqual(rules(alerting.ingest(obs([.systolic: 180, .diastolic: 120], at: 0))), [])
        XCTAssertEqual(
            rules(alerting.ingest(obs([.systolic: 180, .diastolic: 121], at: minute))),
            ["bp.hypertensive-crisis"]
        )
        let f = try engine(.adult)
        XCTAssertEqual(rules(f.ingest(obs([.systolic: 181, .diastolic: 80], at: 0))), ["bp.hypertensive-crisis"])
        XCTAssertEqual(
            rules(f.ingest(obs([.systolic: 190, .diastolic: 80], at: minute))),
            [],
            "de-duplicated while active"
        )
    }

    /// The IoT-AI SRS's "series of high blood pressure readings": stage 2 (>= 140 or >= 90) on every
    /// reading for 3 days; one reading below both ends the series.
    func testStage2SeriesNeedsEveryReadingForThreeDays() throws {
        let day: Int64 = 86_400_000
        let half = day / 2
        func series(_ readings: [(Double, Double)]) throws -> [Int] {
            let alerting = try engine(.adult)
            return readings.enumerated().compactMap { i, r in
                let raised = rules(alerting.ingest(obs([.systolic: r.0, .diastolic: r.1], at: Int64(i) * half)))
                return raised.contains("bp.stage2-sustained") ? i : nil
            }
        }
        XCTAssertEqual(
            try series(Array(repeating: (140, 85), count: 8)),
            [6],
            "140 counts (>=); raised at exactly 3 days"
        )
        XCTAssertEqual(try series(Array(repeating: (135, 90), count: 8)), [6], "diastolic 90 alone counts")
        XCTAssertEqual(try series(Array(repeating: (139, 89), count: 8)), [], "139/89 is stage 1")
        let broken =
            Array(repeating: (150.0, 95.0), count: 4) + [(139.0, 89.0)] + Array(repeating: (150.0, 95.0), count: 7)
        XCTAssertEqual(try series(broken), [11], "one stage-1 reading restarts the 3 days")
    }

    /// ESC: weight up more than 2 kg in 3 days; exactly 2.0 kg does not alert.
    func testHeartFailureGainIsMoreThanTwoKilogramsInThreeDays() throws {
        let day: Int64 = 86_400_000
        let alerting = try engine(.adult)
        _ = alerting.ingest(obs([.weight: 80.0], at: 0))
        XCTAssertEqual(rules(alerting.ingest(obs([.weight: 82.0], at: 3 * day))), [], "exactly 2.0 kg is not > 2 kg")
        let f = try engine(.copd)
        _ = f.ingest(obs([.weight: 80.0], at: 0))
        XCTAssertEqual(rules(f.ingest(obs([.weight: 82.005], at: 3 * day))), ["weight.hf-gain"])
        let infant = try engine(.chdInfant)
        _ = infant.ingest(obs([.weight: 4.0], at: 0))
        XCTAssertFalse(
            rules(infant.ingest(obs([.weight: 6.5], at: 3 * day))).contains("weight.hf-gain"),
            "an adult rule"
        )
    }

    func testFeverIsAtOrAbove38() throws {
        let alerting = try engine(.adult)
        XCTAssertEqual(rules(alerting.ingest(obs([.temperature: 37.9], at: 0))), [])
        XCTAssertEqual(rules(alerting.ingest(obs([.temperature: 38.0], at: minute))), ["temp.fever"])
    }

    func testCGMHypoglycaemiaLevelsAndUrgentLow() throws {
        let alerting = try engine(.diabeticCGM)
        var log: [(Int, [String])] = []
        let values: [Double] = [60, 60, 60, 60, 56, 56, 55, 53, 53, 53, 53]
        for (i, v) in values.enumerated() {
            let raised = rules(alerting.ingest(obs([.cgm: v], at: Int64(i * 5) * minute))).filter {
                $0.hasPrefix("glucose.level") || $0 == "glucose.urgent-low"
            }
            if !raised.isEmpty { log.append((i * 5, raised)) }
        }
        XCTAssertEqual(log.map(\.0), [15, 30, 50], "\(log)")
        XCTAssertEqual(log[0].1, ["glucose.level1-low"], "< 70 for 15 min")
        XCTAssertEqual(log[1].1, ["glucose.urgent-low"], "55 is at or below 55")
        XCTAssertEqual(log[2].1, ["glucose.level2-low"], "< 54 (53) held for 15 min; 54 would not count")
    }

    func testUrgentLowSoonForecastsFromTheTrend() throws {
        let alerting = try engine(.diabeticCGM)
        var raised: [String] = []
        for (i, v) in [100.0, 90, 80, 70].enumerated() {
            raised += rules(alerting.ingest(obs([.cgm: v], at: Int64(i * 5) * minute)))
        }
        XCTAssertTrue(
            raised.contains("glucose.urgent-low-soon"),
            "falling 2 mg/dL/min from 70 reaches 30 in 20 min: \(raised)"
        )
        XCTAssertTrue(raised.contains("glucose.fall-rate"))
        // A rate is the trend of the last 15 minutes: three readings 10 minutes apart are too few.
        let short = try engine(.diabeticCGM)
        var early: [String] = []
        for (i, v) in [100.0, 90, 80].enumerated() {
            early += rules(short.ingest(obs([.cgm: v], at: Int64(i * 5) * minute)))
        }
        XCTAssertFalse(early.contains("glucose.fall-rate"), "\(early)")
        let flat = try engine(.diabeticCGM)
        var none: [String] = []
        for (i, v) in [80.0, 79, 80, 79].enumerated() {
            none += rules(flat.ingest(obs([.cgm: v], at: Int64(i * 5) * minute)))
        }
        XCTAssertEqual(none, [])
    }

    func testInfantInterstageRules() throws {
        let alerting = try engine(.chdInfant)
        XCTAssertEqual(rules(alerting.ingest(obs([.spo2: 75], at: 0))), [], "75 is not < 75")
        XCTAssertEqual(rules(alerting.ingest(obs([.spo2: 74], at: minute))), ["infant.spo2-low"])
        XCTAssertEqual(rules(alerting.ingest(obs([.spo2: 90], at: 2 * minute))), [])
        XCTAssertEqual(rules(alerting.ingest(obs([.spo2: 91], at: 3 * minute))), ["infant.spo2-high"])
        let day: Int64 = 86_400_000
        let weighing = try engine(.chdInfant)
        _ = weighing.ingest(obs([.weight: 4.200], at: 0))
        XCTAssertEqual(
            rules(weighing.ingest(obs([.weight: 4.170], at: day))),
            [],
            "a loss of exactly 30 g is not > 30 g"
        )
        XCTAssertEqual(rules(weighing.ingest(obs([.weight: 4.139], at: 2 * day))), ["infant.weight-loss-24h"])
        XCTAssertEqual(
            rules(weighing.ingest(obs([.weight: 4.130], at: 3 * day))),
            ["infant.poor-gain-3d"],
            "−70 g over 3 days is < 20 g gain"
        )
    }

    func testInfantIntakeBelow100MlPerKgPerDay() throws {
        let alerting = try engine(.chdInfant)
        _ = alerting.ingest(obs([.weight: 4.0], at: 0))
        var raised: [String] = []
        // 8 feeds of 50 mL a day = 100 mL/kg/day exactly: no alert; then feeds of 45 mL: 90 → alert.
        for k in 1...16 { raised += rules(alerting.ingest(obs([.feeding: 50], at: Int64(k) * 3 * 3_600_000))) }
        XCTAssertEqual(raised, [])
        for k in 17...24 { raised += rules(alerting.ingest(obs([.feeding: 45], at: Int64(k) * 3 * 3_600_000))) }
        XCTAssertEqual(raised, ["infant.low-intake"])
        // A breastfeed (minutes, volume unknown) keeps its window from being judged at all.
        let b = try engine(.chdInfant)
        _ = b.ingest(obs([.weight: 4.0], at: 0))
        _ = b.ingest(obs([.breastfeeding: 20], at: 4 * 3_600_000))
        var later: [Int] = []
        for k in 1...16
        where b.ingest(obs([.feeding: 30], at: Int64(k) * 3 * 3_600_000)).contains(where: {
            $0.rule == "infant.low-intake"
        }) {
            later.append(k * 3)
        }
        XCTAssertEqual(later, [30], "27 h would be judged without the breastfeed of hour 4")
    }

    func testAtrialFibrillationSuspicionFromRR() throws {
        let alerting = try engine(.adult)
        var rng = SeededRandom(seed: 3)
        var raised: [String] = []
        for k in 0..<40 {
            let rr = (0..<2).map { _ in 0.85 + 0.03 * Math.sin(Double(k) / 2) }
            raised += rules(alerting.ingest(obs([.heartRate: 70], at: Int64(k) * 1000, rr: rr)))
        }
        XCTAssertFalse(raised.contains("hr.af-suspected"), "regular sinus rhythm")
        for k in 40..<100 {
            let rr = (0..<2).map { _ in 0.38 + rng.exponential(mean: 0.17) }
            raised += rules(alerting.ingest(obs([.heartRate: 110], at: Int64(k) * 1000, rr: rr)))
        }
        XCTAssertEqual(raised.filter { $0 == "hr.af-suspected" }.count, 1)
    }

    func testNEWS2BandsAndThresholds() throws {
        let alerting = try engine(.adult)
        // RR 21 (2) + SpO2 94 (1) + SBP 105 (1) + HR 95 (1) + 38.0 °C (0) = 5 → urgent.
        var raised = rules(
            alerting.ingest(
                obs([.respirationRate: 21, .spo2: 94, .systolic: 105, .heartRate: 95, .temperature: 38.0], at: 0)
            )
        )
        XCTAssertEqual(raised.filter { $0.hasPrefix("news2") }, ["news2.urgent"])
        // RR 20.4 rounds to 20 (0): total 3, no alert on a fresh patient.
        let f = try engine(.adult)
        raised = rules(
            f.ingest(
                obs([.respirationRate: 20.4, .spo2: 94, .systolic: 105, .heartRate: 95, .temperature: 38.04], at: 0)
            )
        )
        XCTAssertEqual(raised.filter { $0.hasPrefix("news2") }, [])
        // Scale 2 for COPD: SpO2 88 on air scores 0, so the same vitals stay below 5.
        let c = try engine(.copd)
        raised = rules(
            c.ingest(obs([.respirationRate: 21, .spo2: 88, .systolic: 105, .heartRate: 95, .temperature: 38.0], at: 0))
        )
        XCTAssertEqual(raised.filter { $0.hasPrefix("news2") }, [])
    }

    func testDataGapAndLowBatteryAndDuplicates() throws {
        let alerting = try engine(.adult)
        for m in 0..<10 { _ = alerting.ingest(obs([.heartRate: 70], at: Int64(m) * minute, device: "strap")) }
        XCTAssertEqual(rules(alerting.advance(to: 39 * minute)), [], "30 min after the last reading is not > 30 min")
        XCTAssertEqual(rules(alerting.advance(to: 40 * minute)), ["device.data-gap"])
        XCTAssertEqual(rules(alerting.advance(to: 50 * minute)), [], "once per gap")
        XCTAssertEqual(rules(alerting.ingest(obs([.battery: 15], at: 51 * minute, device: "strap"))), [])
        let low = obs([.battery: 14], at: 52 * minute, device: "strap")
        let alerts = alerting.ingest(low)
        XCTAssertEqual(rules(alerts), ["device.low-battery"])
        XCTAssertEqual(alerts.first?.evidence, [low.readingID])
        XCTAssertEqual(alerts.first?.json["patientId"], .string("p"))
        XCTAssertEqual(alerting.ingest(low), [], "a duplicate reading id is not judged twice")
    }

    /// "Streams" is the median interval so far (docs/alert-rules.md, and the oracle), not a running
    /// average, once five readings have come: a device's readings 49 min apart, then two a minute
    /// apart, then 10 and 10 min make a median of 10 min, a stream by the rule (a running average of
    /// the same intervals, about 17 min, would not be); 30, 1, 29 and 29 min make 29, no stream. A
    /// cuff's four readings (a battery report 49 min before its two a minute apart, another 10 min
    /// after) are too few to tell: no stream (333 such data gaps in the ward with `adherence`).
    func testStreamingIsTheMedianInterval() throws {
        for (before, after, fifth, streams) in [(49, 10, true, true), (30, 29, true, false), (49, 10, false, false)] {
            let alerting = try engine(.adult)
            _ = alerting.ingest(obs([.battery: 90], at: Int64(60 - before) * minute, device: "cuff"))
            _ = alerting.ingest(obs([.systolic: 120, .diastolic: 80], at: 60 * minute, device: "cuff"))
            _ = alerting.ingest(obs([.systolic: 121, .diastolic: 80], at: 61 * minute, device: "cuff"))
            _ = alerting.ingest(obs([.battery: 90], at: Int64(61 + after) * minute, device: "cuff"))
            let last = Int64(61 + after + (fifth ? after : 0))
            if fifth { _ = alerting.ingest(obs([.battery: 90], at: last * minute, device: "cuff")) }
            let silent = alerting.advance(to: (last + 31) * minute)
            XCTAssertEqual(
                rules(silent),
                streams ? ["device.data-gap"] : [],
                "battery \(before) min before, \(after) after, a fifth reading: \(fifth)"
            )
        }
    }

    /// Entries logged at one instant (an equipment log's first entries) are not a stream: their
    /// silence afterwards is no data gap.
    func testReadingsAtOneInstantDoNotStream() throws {
        let alerting = try engine(.chdInfant)
        for _ in 0..<3 { _ = alerting.ingest(obs([.oxygenFlow: 0.5], at: 0, device: "kit")) }
        _ = alerting.ingest(obs([.spo2: 80], at: 0, device: "oxi"))
        XCTAssertEqual(rules(alerting.ingest(obs([.spo2: 80], at: 6 * 60 * minute, device: "oxi"))), [])
    }

    func testLowBatteryIsJudgedPerDevice() throws {
        let alerting = try engine(.diabeticCGM)
        XCTAssertEqual(
            rules(alerting.ingest(obs([.battery: 7], at: 60 * minute, device: "cgm"))),
            ["device.low-battery"]
        )
        XCTAssertEqual(
            rules(alerting.ingest(obs([.battery: 95], at: 61 * minute, device: "meter"))),
            [],
            "another device's full battery"
        )
        XCTAssertEqual(
            rules(alerting.ingest(obs([.battery: 7], at: 120 * minute, device: "cgm"))),
            [],
            "does not re-arm the CGM's alert"
        )
        XCTAssertEqual(
            rules(alerting.ingest(obs([.battery: 10], at: 121 * minute, device: "meter"))),
            ["device.low-battery"],
            "the meter's own episode"
        )
        XCTAssertEqual(
            rules(alerting.ingest(obs([.battery: 20], at: 180 * minute, device: "cgm"))),
            [],
            "re-armed at 15 + 5 %"
        )
        XCTAssertEqual(
            rules(alerting.ingest(obs([.battery: 14], at: 181 * minute, device: "cgm"))),
            ["device.low-battery"]
        )
    }

    func testDataGapsAcrossDevicesAndRepeatedGaps() throws {
        // The gap scan runs only once device time can have passed a deadline; it must still see every
        // device, including one that resumed after an earlier gap.
        let alerting = try engine(.adult)
        var lastA = ""
        var lastB = ""
        for m in 0..<5 {
            let heartRate = obs([.heartRate: 70], at: Int64(m) * minute, device: "a")
            let oxygen = obs([.spo2: 97], at: Int64(m + 20) * minute, device: "b")
            _ = alerting.ingest(heartRate)
            _ = alerting.ingest(oxygen)
            lastA = heartRate.readingID
            lastB = oxygen.readingID
        }
        XCTAssertEqual(
            alerting.advance(to: 34 * minute).map(\.evidence),
            [],
            "a: 30 min after minute 4 is not yet a gap"
        )
        XCTAssertEqual(alerting.advance(to: 34 * minute + 1).map(\.evidence), [[lastA]])
        XCTAssertEqual(alerting.advance(to: 54 * minute).map(\.evidence), [])
        XCTAssertEqual(alerting.advance(to: 54 * minute + 1).map(\.evidence), [[lastB]])
        for m in 60..<63 {
            let heartRate = obs([.heartRate: 70], at: Int64(m) * minute, device: "a")
            XCTAssertEqual(rules(alerting.ingest(heartRate)), [])
            lastA = heartRate.readingID
        }
        XCTAssertEqual(rules(alerting.advance(to: 92 * minute)), [])
        XCTAssertEqual(
            alerting.advance(to: 92 * minute + 1).map(\.evidence),
            [[lastA]],
            "a second gap after the device resumed"
        )
    }

    /// Late readings from a silent device (device times before its last, as a retry or a backfill
    /// sends them) do not end its gap: one gap is one alert. Before, each cleared the latch and the
    /// same gap was raised again with a new id (6 identical alerts in a small reproduction).
    func testLateReadingsDoNotRaiseTheSameGapAgain() throws {
        let alerting = try engine(.adult)
        for m in 0..<10 { _ = alerting.ingest(obs([.heartRate: 70], at: Int64(m) * minute, device: "strap")) }
        XCTAssertEqual(rules(alerting.advance(to: 40 * minute)), ["device.data-gap"])
        for late in 0..<5 {
            let old = obs([.heartRate: 71], at: Int64(late) * minute + 30_000, device: "strap")
            XCTAssertEqual(rules(alerting.ingest(old)), [])
            XCTAssertEqual(rules(alerting.advance(to: Int64(41 + late) * minute)), [], "late reading \(late)")
        }
        // A reading after the gap ends it; the next silence is a gap of its own.
        _ = alerting.ingest(obs([.heartRate: 70], at: 60 * minute, device: "strap"))
        XCTAssertEqual(rules(alerting.advance(to: 90 * minute)), [])
        XCTAssertEqual(rules(alerting.advance(to: 90 * minute + 1)), ["device.data-gap"])
    }

    func testRulesFileErrorsArePositioned() {
        let text =
            "rules:\n  - id: x\n    source: s\n    profiles: [adult]\n    severity: urgent\n    threshold: {any: [{signal: pulse, operator: \"=>\", value: 1}]}\n"
        do {
            _ = try RuleSetLoader.parse(text, file: "r.yaml")
            XCTFail("should fail")
        } catch {
            let fields = error.issues.map(\.field)
            XCTAssertTrue(fields.contains("rules[0].severity"), "\(error)")
            XCTAssertTrue(fields.contains("rules[0].threshold.any[0].signal"), "\(error)")
            XCTAssertTrue(fields.contains("rules[0].threshold.any[0].operator"), "\(error)")
            XCTAssertTrue(error.issues.allSatisfy { $0.line >= 5 }, "\(error)")
        }
    }
}
