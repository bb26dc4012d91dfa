import Generation
import Judge
import VitalSimCore
import XCTest

/// The oracle's windowed rules at their boundaries, on hand-made samples (so a wrong operator,
/// window or rounding shows here, not only as a disagreement with a golden file).
final class OracleWindowedRuleTests: XCTestCase {
    let minute: Int64 = 60_000, hour: Int64 = 3_600_000

    func rule(_ id: String) -> OracleWindowedRule { Oracle.windowedRules.first { $0.id == id }! }

    func series(
        _ signal: Signal,
        _ values: [Double],
        every step: Int64,
        from start: Int64 = 0,
        device: String = "d"
    ) -> [Oracle.Sample] {
        values.enumerated().map { i, v in
            Oracle.Sample(time: start + Int64(i) * step, values: [signal: v], id: "p/\(device)/\(i)", device: device)
        }
    }

    func judge(
        _ id: String,
        _ samples: [Oracle.Sample],
        end: Int64? = nil,
        limits: [ThresholdOverride] = []
    ) -> [OracleAlert] {
        Oracle.judge(rule(id), "p", samples, end: end ?? (samples.map(\.emit).max() ?? 0), limits: limits)
    }

    /// Each rule cites its own source (an auditor traces a verdict through it): no two share one.
    func testEveryRuleCitesASourceOfItsOwn() {
        let sources = Oracle.rules.map(\.source) + Oracle.windowedRules.map(\.source)
        XCTAssertEqual(
            Set(sources).count,
            sources.count,
            "\(Dictionary(grouping: sources) { $0 }.filter { $0.value.count > 1 }.keys)"
        )
        XCTAssertTrue(sources.allSatisfy { $0.count > 20 })
    }

    func testFallRateFiresAtExactlyTwoPerMinuteAndOncePerEpisode() {
        // 5-min CGM falling 10 mg/dL per reading = -2.0 mg/dL/min: `<= -2` holds at the fourth
        // reading, the first whose window holds 15 minutes of readings.
        let falling = series(.cgm, [200, 190, 180, 170, 160], every: 5 * minute)
        let alerts = judge("glucose.fall-rate", falling)
        XCTAssertEqual(
            alerts.map(\.raisedAt),
            [15 * minute],
            "one alert per episode, once the readings span 15 minutes"
        )
        XCTAssertEqual(alerts.first?.evidence, "p/d/3")
        XCTAssertEqual(
            judge("glucose.fall-rate", series(.cgm, [200, 191, 182, 173], every: 5 * minute)),
            [],
            "-1.8 mg/dL/min does not fire"
        )
        // Falling, flat (re-arms), falling again: two episodes.
        let twice = series(.cgm, [200, 190, 180, 170, 170, 170, 170, 170, 160, 150, 140], every: 5 * minute)
        XCTAssertEqual(judge("glucose.fall-rate", twice).map(\.raisedAt), [15 * minute, 50 * minute])
        XCTAssertEqual(
            judge("glucose.rise-rate", series(.cgm, [100, 110, 120, 130], every: 5 * minute)).count,
            1,
            ">= 2 rises"
        )
        XCTAssertEqual(
            judge("glucose.rise-rate", series(.cgm, [100, 110, 120], every: 5 * minute)),
            [],
            "10 minutes of readings are too few"
        )
    }

    func testRateNeedsThreeReadingsInsideFifteenMinutes() {
        // 8-minute cadence: the window [t − 15 min, t] never holds three readings.
        XCTAssertEqual(judge("glucose.fall-rate", series(.cgm, [200, 180, 160, 140, 120], every: 8 * minute)), [])
        // 7.5-minute cadence: exactly 15 min back is inside the window.
        XCTAssertEqual(judge("glucose.fall-rate", series(.cgm, [200, 180, 160], every: 450_000)).count, 1)
    }

    func testFluctuationNeedsAPatientsLimitAndSparseSwingingSamples() {
        func own(_ v: Double) -> [ThresholdOverride] {
            [ThresholdOverride(rule: "hr.fluctuation", signal: .heartRate, value: v)]
        }
        let swinging: [Double] = (0..<14).map { $0 % 2 == 0 ? 70 : 77 }
        // Every successive difference 7: the median reaches a limit of 7 (`>=`) at the tenth sample.
        XCTAssertEqual(
            judge("hr.fluctuation", series(.heartRate, swinging, every: 5 * minute), limits: own(7)).map(\.raisedAt),
            [45 * minute]
        )
        XCTAssertEqual(judge("hr.fluctuation", series(.heartRate, swinging, every: 5 * minute), limits: own(7.5)), [])
        XCTAssertEqual(
            judge("hr.fluctuation", series(.heartRate, swinging, every: 5 * minute)),
            [],
            "off without a patient's limit"
        )
        XCTAssertEqual(
            judge("hr.fluctuation", series(.heartRate, swinging, every: 1000), limits: own(7)),
            [],
            "a stream, not samples"
        )
        // Swinging, an hour and more steady (the median falls below 7 − 3: re-armed), swinging again.
        let twice = swinging + [Double](repeating: 70, count: 14) + swinging
        XCTAssertEqual(judge("hr.fluctuation", series(.heartRate, twice, every: 5 * minute), limits: own(7)).count, 2)
        // Per device: a steady second device between the swinging one's samples changes nothing.
        let swings = series(.heartRate, swinging, every: 5 * minute, device: "a")
        let steady = series(
            .heartRate,
            Array(repeating: 72, count: 14),
            every: 5 * minute,
            from: 2 * minute,
            device: "b"
        )
        let mixed = (swings + steady).sorted { $0.time < $1.time }
        XCTAssertEqual(judge("hr.fluctuation", mixed, limits: own(7)).map(\.evidence), ["p/a/9"])
    }

    func testUrgentLowSoonWhileStillAboveTheLimit() {
        // 95, 85, 75 at -2 mg/dL/min: 75 − 40 = 35 predicted in 20 min, 75 itself is above 55.
        XCTAssertEqual(
            judge("glucose.urgent-low-soon", series(.cgm, [95, 85, 75], every: 5 * minute)).map(\.raisedAt),
            [10 * minute]
        )
        // Already at 55: the urgent-low rule's business, not the forecast's.
        XCTAssertEqual(judge("glucose.urgent-low-soon", series(.cgm, [75, 65, 55], every: 5 * minute)), [])
        // Predicted exactly 55 (`<=`): 95, 90, 85 at -1/min → 85 − 20 = 65 no; 115, 105, 95 → 95 − 40 = 55 yes.
        XCTAssertEqual(judge("glucose.urgent-low-soon", series(.cgm, [95, 90, 85], every: 5 * minute)), [])
        XCTAssertEqual(judge("glucose.urgent-low-soon", series(.cgm, [115, 105, 95], every: 5 * minute)).count, 1)
    }

    func testWeightLossBoundaryIsStrictAndRoundedToMilligrams() {
        XCTAssertEqual(
            judge("infant.weight-loss-24h", series(.weight, [4.000, 3.970], every: 24 * hour)),
            [],
            "exactly 30 g is not > 30 g"
        )
        XCTAssertEqual(judge("infant.weight-loss-24h", series(.weight, [4.000, 3.965], every: 24 * hour)).count, 1)
        // Nothing within 6 h of 24 h earlier: no comparison.
        XCTAssertEqual(judge("infant.weight-loss-24h", series(.weight, [4.000, 3.900], every: 31 * hour)), [])
        // 3-day gain of exactly 20 g is enough; 15 g is poor gain.
        XCTAssertEqual(judge("infant.poor-gain-3d", series(.weight, [4.000, 4.020], every: 72 * hour)), [])
        XCTAssertEqual(judge("infant.poor-gain-3d", series(.weight, [4.000, 4.015], every: 72 * hour)).count, 1)
    }

    func testHeartFailureGainIsStrictlyMoreThanTwoKilograms() {
        XCTAssertEqual(judge("weight.hf-gain", series(.weight, [80.0, 82.0], every: 72 * hour)), [], "exactly 2.0 kg")
        XCTAssertEqual(judge("weight.hf-gain", series(.weight, [80.0, 82.005], every: 72 * hour)).count, 1)
        XCTAssertEqual(
            judge("weight.hf-gain", series(.weight, [80.0, 83.0], every: 85 * hour)),
            [],
            "nothing within 12 h of 3 days earlier"
        )
    }

    /// The stage-2 series is a threshold rule with two limits of its own (140 systolic, 90 diastolic).
    func testStage2SeriesOnEveryReadingForThreeDays() throws {
        let rule = try XCTUnwrap(Oracle.rules.first { $0.id == "bp.stage2-sustained" })
        func bp(_ readings: [(Double, Double)]) -> [Oracle.Sample] {
            readings.enumerated().map { i, r in
                Oracle.Sample(
                    time: Int64(i) * 12 * hour,
                    values: [.systolic: r.0, .diastolic: r.1],
                    id: "p/c/\(i)",
                    device: "c"
                )
            }
        }
        let raised = { (r: [(Double, Double)]) in Oracle.judge(rule, "p", bp(r)).map(\.raisedAt) }
        XCTAssertEqual(raised(Array(repeating: (140, 85), count: 8)), [72 * hour])
        XCTAssertEqual(raised(Array(repeating: (130, 90), count: 8)), [72 * hour])
        XCTAssertEqual(raised(Array(repeating: (139, 89), count: 8)), [])
        XCTAssertEqual(raised([(150, 95), (150, 95), (139, 89)] + Array(repeating: (150, 95), count: 7)), [108 * hour])
        let own = [ThresholdOverride(rule: rule.id, signal: .systolic, value: 150)]
        XCTAssertEqual(
            Oracle.judge(rule, "p", bp(Array(repeating: (145, 85), count: 8)), limits: own),
            [],
            "a limit of 150 of the patient's own"
        )
    }

    func testLowIntakeNeedsAFullDayAndUsesTheLatestWeight() {
        let weight = Oracle.Sample(time: 0, values: [.weight: 4.0], id: "p/scale/0", device: "scale")
        // 8 feeds a day every 3 h of 50 mL = 400 mL / 4 kg = 100 mL/kg/day: not < 100.
        let enough = [weight] + series(.feeding, Array(repeating: 50, count: 17), every: 3 * hour, device: "log")
        XCTAssertEqual(judge("infant.low-intake", enough), [])
        let short = [weight] + series(.feeding, Array(repeating: 49, count: 17), every: 3 * hour, device: "log")
        let alerts = judge("infant.low-intake", short)
        XCTAssertEqual(alerts.count, 1)
        XCTAssertEqual(
            alerts.first?.raisedAt,
            24 * hour,
            "the first feed at which a whole day (less its first hour) is covered"
        )
        // A breastfeed's volume is unknown: no window holding one is judged (here, until 27 h).
        let breastfeed = Oracle.Sample(time: 2 * hour, values: [.breastfeeding: 20], id: "p/log/b", device: "log")
        XCTAssertEqual(
            judge("infant.low-intake", (short + [breastfeed]).sorted { $0.time < $1.time }).map(\.raisedAt),
            [27 * hour]
        )
    }

    func testAtrialFibrillationFromRRIrregularity() {
        func beats(_ rr: [Double], count: Int) -> [Oracle.Sample] {
            (0..<count).map { i in
                Oracle.Sample(
                    time: Int64(i) * 1000,
                    values: [.heartRate: 80],
                    rr: [rr[i % rr.count]],
                    id: "p/hr/\(i)",
                    device: "hr"
                )
            }
        }
        let af = judge("hr.af-suspected", beats([600, 800], count: 80))
        XCTAssertEqual(af.map(\.raisedAt), [63_000], "fires at the 64th beat")
        XCTAssertEqual(
            judge("hr.af-suspected", beats([790, 800, 810], count: 200)),
            [],
            "sinus variability does not fire"
        )
        // Successive differences of exactly 50 ms are not > 50 ms.
        XCTAssertEqual(judge("hr.af-suspected", beats([700, 750], count: 200)), [])
    }

    func testDataGapOnlyForStreamingDevicesAndNotFilledByBackfill() {
        // Five readings make a stream (four cannot tell one from a cuff's pair between battery reports).
        let cgm = series(.cgm, [100, 100, 100, 100, 100], every: 5 * minute)
        // 31 min of silence after the last reading while the scenario goes on.
        var resumed = series(.cgm, [100], every: 5 * minute, from: 20 * minute + 31 * minute)
        resumed[0].id = "p/d/9"
        let gap = judge("device.data-gap", cgm + resumed)
        XCTAssertEqual(gap.map(\.raisedAt), [20 * minute + 30 * minute])
        XCTAssertEqual(
            judge("device.data-gap", cgm + series(.cgm, [100], every: 1, from: 50 * minute)),
            [],
            "30 min exactly is not longer than the window"
        )
        // A spot-check device (one reading every 4 h) never has a data gap.
        XCTAssertEqual(
            judge("device.data-gap", series(.spo2, [97, 97, 97, 97, 97, 97], every: 4 * hour), end: 24 * hour),
            []
        )
        // Readings backfilled after a reconnection close the gap in device time but arrive too late.
        var backfilled = (0..<6).map { i in
            Oracle.Sample(
                time: 25 * minute + Int64(i) * 5 * minute,
                emit: 60 * minute,
                values: [.cgm: 100],
                id: "p/d/b\(i)",
                device: "d"
            )
        }
        backfilled.append(
            Oracle.Sample(time: 60 * minute, emit: 60 * minute, values: [.cgm: 100], id: "p/d/n", device: "d")
        )
        XCTAssertEqual(judge("device.data-gap", cgm + backfilled).map(\.raisedAt), [50 * minute])
        // The scenario's end: silence shorter than the window after the last reading raises nothing.
        XCTAssertEqual(judge("device.data-gap", cgm, end: 20 * minute + 30 * minute), [])
        XCTAssertEqual(judge("device.data-gap", cgm, end: 20 * minute + 31 * minute).count, 1)
    }

    /// Late readings (device times before the last) arriving during a gap do not raise it again.
    func testLateReadingsDuringAGapRaiseItOnce() {
        let cgm = series(.cgm, [100, 100, 100, 100], every: 5 * minute)
        let late = (0..<5).map { i in
            Oracle.Sample(
                time: Int64(i) * minute + 30_000,
                emit: 50 * minute + Int64(i) * 10 * minute,
                values: [.cgm: 100],
                id: "p/d/late\(i)",
                device: "d"
            )
        }
        XCTAssertEqual(judge("device.data-gap", cgm + late, end: 4 * hour).map(\.raisedAt), [45 * minute])
    }

    func testNEWS2BandsAtTheirBoundaries() {
        func score(
            rr: Double = 16,
            spo2: Double = 97,
            sbp: Double = 120,
            hr: Double = 70,
            t: Double = 37,
            scale2: Bool = false
        ) -> Int {
            NEWS2Chart.total(respiration: rr, spo2: spo2, systolic: sbp, pulse: hr, temperature: t, scale2: scale2)
        }
        XCTAssertEqual(score(), 0)
        XCTAssertEqual([8, 9, 11, 12, 20, 21, 24, 25].map { score(rr: $0) }, [3, 1, 1, 0, 0, 2, 2, 3])
        XCTAssertEqual(score(rr: 20.5), 2, "20.5 rounds to 21")
        XCTAssertEqual([91, 92, 93, 94, 95, 96].map { score(spo2: $0) }, [3, 2, 2, 1, 1, 0])
        XCTAssertEqual(
            [83, 84, 85, 86, 87, 88, 92, 93, 97].map { score(spo2: $0, scale2: true) },
            [3, 2, 2, 1, 1, 0, 0, 0, 0],
            "scale 2 on air"
        )
        XCTAssertEqual([90, 91, 100, 101, 110, 111, 219, 220].map { score(sbp: $0) }, [3, 2, 2, 1, 1, 0, 0, 3])
        XCTAssertEqual(
            [40, 41, 50, 51, 90, 91, 110, 111, 130, 131].map { score(hr: $0) },
            [3, 1, 1, 0, 0, 1, 1, 2, 2, 3]
        )
        XCTAssertEqual(
            [35.0, 35.1, 36.0, 36.1, 38.0, 38.1, 39.0, 39.1].map { score(t: $0) },
            [3, 1, 1, 0, 0, 1, 1, 2]
        )
        XCTAssertEqual(score(t: 38.05), 1, "38.05 rounds to 38.1")
    }

    func testNEWS2RuleNeedsEveryParameterWithinAnHour() {
        // 2 + 2 + 0 + 1 = 5 with 37 °C
        let values: [Signal: Double] = [.respirationRate: 22, .spo2: 93, .systolic: 120, .heartRate: 95]
        var samples = [Oracle.Sample(time: 0, values: [.temperature: 37], id: "p/t/0", device: "t")]
        samples.append(Oracle.Sample(time: 30 * minute, values: values, id: "p/m/0", device: "m"))
        XCTAssertEqual(judge("news2.urgent", samples).map(\.raisedAt), [30 * minute])
        XCTAssertEqual(judge("news2.emergency", samples), [])
        samples[1].time = 61 * minute
        XCTAssertEqual(judge("news2.urgent", samples), [], "temperature older than one hour")
    }
}
