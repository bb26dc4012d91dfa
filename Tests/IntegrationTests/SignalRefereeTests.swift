import Foundation
import XCTest

/// Blood pressure, glucose, feeds, growth and breathing of `vitalsim generate` output, measured by
/// numpy and scipy (Tests/referees/signals_referee.py) from the readings alone, against published
/// figures where there are any: Melgarejo et al. 2024's ambulatory variability, Staessen et al.
/// 1991's night/day ratios, the growth of interstage infants, respiratory sinus arrhythmia at the
/// breathing rate (Task Force 1996).
final class SignalRefereeTests: XCTestCase {
    struct BPDay: Decodable {
        var n: Int, arvSystolic: Double, arvDiastolic: Double, sdSystolic: Double, sdDiastolic: Double
    }
    struct BP: Decodable {
        var readings: Int, days: [BPDay], nightDaySystolic: Double, nightDayDiastolic: Double
        var mapOffFormula: Double, pairs: Int, pairChangeCorrelation: Double
    }
    struct Glucose: Decodable {
        var minutes: Int, dayToDay: [Double], nadir: Double, nearNadirMinutes: Int, atNadirMinutes: Int,
            riseAfter3h: Double
    }
    struct Feeds: Decodable {
        var feeds: Int, minGap: Double, meanGap: Double, sdGap: Double, gapVolumeCorrelation: Double
    }
    struct Growth: Decodable { var days: Int, meanGain: Double, sdGain: Double, gains: [Double] }
    struct RateWindow: Decodable { var startMs: Int64, af: Bool, rrRate: Double, truth: Double }
    struct Rate: Decodable { var windows: [RateWindow] }
    struct Breathing: Decodable {
        var windows: Int, correlation: Double, medianDifference: Double, medianPeak: Double, peakIQR: Double
    }

    /// Generates `yaml` and runs each `(measure, arguments)` of the referee on its readings.
    func referee(_ yaml: String, _ measures: [(String, [String])]) throws -> [Data] {
        let python = try PhysiologyRefereeTests.python()
        let dir = TestSupport.temporaryDirectory("signal-referee")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try yaml.write(toFile: dir + "/s.yaml", atomically: true, encoding: .utf8)
        let generated = try TestSupport.vitalsim(["generate", dir + "/s.yaml", "--out", dir + "/out"], in: dir)
        XCTAssertEqual(generated.status, 0, generated.err)
        return try measures.map { measure, args in
            let script = TestSupport.repositoryRoot + "/Tests/referees/signals_referee.py"
            let ran = try TestSupport.run(python, [script, measure, dir + "/out/readings.jsonl"] + args)
            XCTAssertEqual(ran.status, 0, ran.err)
            return Data(ran.out.utf8)
        }
    }

    func scenario(_ duration: String, profile: String, baseline: String, devices: [String], rest: String = "") -> String
    {
        """
        name: signals
        seed: 5
        duration: \(duration)
        start: 2024-11-07T00:00:00Z
        patients:
          - id: p
            profile: \(profile)
            baseline: {\(baseline)}
        \(rest)
            devices:
        \(devices.map { "      - " + $0 }.joined(separator: "\n"))
        """
    }

    func testAmbulatoryBloodPressureVariesAsAnAmbulatoryCohortDoes() throws {
        let yaml = scenario(
            "7d",
            profile: "adult",
            baseline: "systolic: 128, diastolic: 80",
            devices: ["{id: cuff, type: bp-cuff, cadence: 15m}"]
        )
        let bp = try JSONDecoder().decode(BP.self, from: referee(yaml, [("bp", ["cuff"])])[0])
        XCTAssertEqual(bp.days.count, 7, "\(bp)")
        let what = "daily ARV/SD: \(bp.days.map { ($0.arvSystolic.rounded(), $0.sdSystolic.rounded()) })"
        // Melgarejo et al. 2024 (Am J Hypertens, Maracaibo Aging Study, 1,050 ambulatory
        // recordings): 24-h systolic ARV 9.0 ± 2.0 mmHg. Every day inside mean ± 2 SD, the week's
        // mean inside mean ± 1 SD.
        XCTAssertTrue(bp.days.allSatisfy { (5.0...13.0).contains($0.arvSystolic) }, what)
        let meanARV = bp.days.map(\.arvSystolic).reduce(0, +) / Double(bp.days.count)
        XCTAssertTrue((7.0...11.0).contains(meanARV), "mean systolic ARV \(meanARV); " + what)
        // Diastolic varies less than systolic, as in every ambulatory series.
        XCTAssertTrue(
            bp.days.allSatisfy { $0.arvDiastolic < $0.arvSystolic && $0.sdDiastolic < $0.sdSystolic },
            "\(bp.days)"
        )
        // Staessen et al. 1991 (23 studies, 3,476 normotensives): night/day 0.79–0.92 systolic,
        // 0.75–0.90 diastolic.
        XCTAssertTrue((0.79...0.92).contains(bp.nightDaySystolic), "systolic night/day \(bp.nightDaySystolic)")
        XCTAssertTrue((0.75...0.90).contains(bp.nightDayDiastolic), "diastolic night/day \(bp.nightDayDiastolic)")
        // An oscillometric MAP, not DBP + PP/3; errors that share the cuff's envelope.
        XCTAssertGreaterThan(bp.mapOffFormula, 0.5, "share of MAPs off DBP + PP/3")
        XCTAssertGreaterThan(bp.pairs, 600)
        XCTAssertTrue(
            (0.3...0.8).contains(bp.pairChangeCorrelation),
            "systolic/diastolic change a minute apart \(bp.pairChangeCorrelation)"
        )
    }

    func testRoutineDaysDifferAndHypoglycaemiaEndsByCounterRegulation() throws {
        let meals =
            "[{time: \"07:30\", carbs: 45, bolus: 4.5}, {time: \"12:30\", carbs: 70, bolus: 7}, {time: \"19:00\", carbs: 80, bolus: 8}]"
        let days = scenario(
            "8d",
            profile: "diabetic-cgm",
            baseline: "diabetes: type1, glucose: 140, dailySteps: 0",
            devices: ["{id: cgm, type: cgm, cadence: 1m}"],
            rest: "    meals: \(meals)"
        )
        let routine = try JSONDecoder().decode(Glucose.self, from: referee(days, [("glucose", ["cgm"])])[0])
        // The same routine shows from day to day, but days do not repeat (0.989 before meals and
        // insulin sensitivity varied). VitalSim's bounds: every pair above 0.2, the median below
        // 0.9, none above 0.95.
        let pairs = routine.dayToDay.sorted()
        XCTAssertEqual(pairs.count, 7, "\(routine)")
        XCTAssertGreaterThan(pairs.first ?? 0, 0.2, "day-to-day correlation \(routine.dayToDay)")
        XCTAssertLessThan(pairs[pairs.count / 2], 0.9, "day-to-day correlation \(routine.dayToDay)")
        XCTAssertLessThan(pairs.last ?? 1, 0.95, "day-to-day correlation \(routine.dayToDay)")

        let overdose =
            scenario(
                "12h",
                profile: "diabetic-cgm",
                baseline: "diabetes: type1, glucose: 140, dailySteps: 0",
                devices: ["{id: cgm, type: cgm, cadence: 1m}"]
            ) + "\ntimeline:\n  - {at: 1h, patient: p, event: hypoglycemia, insulin: 25}\n"
        let hypo = try JSONDecoder().decode(Glucose.self, from: referee(overdose, [("glucose", ["cgm"])])[0])
        XCTAssertTrue((20...50).contains(hypo.nadir), "nadir \(hypo.nadir) mg/dL")
        // A trough, not a floor: the nadir is not held (it was a clamp at exactly 20.0 mg/dL).
        XCTAssertLessThanOrEqual(hypo.atNadirMinutes, 2, "no plateau at a floor: \(hypo)")
        XCTAssertLessThan(hypo.nearNadirMinutes, 45, "no plateau at a floor: \(hypo)")
        XCTAssertGreaterThan(hypo.riseAfter3h, 15, "recovers within 3 h: \(hypo)")
    }

    func testInfantFeedsComeOnDemandAndGrowthIsNotAStraightLine() throws {
        let yaml = scenario(
            "10d",
            profile: "chd-infant",
            baseline: "",
            devices: ["{id: feeds, type: feeding-log}", "{id: scale, type: weight-scale, adherence: exact}"]
        )
        let out = try referee(yaml, [("feeds", ["feeds"]), ("growth", ["scale"])])
        let feeds = try JSONDecoder().decode(Feeds.self, from: out[0])
        XCTAssertTrue((75...85).contains(feeds.feeds), "8 feeds a day: \(feeds)")
        XCTAssertGreaterThan(feeds.minGap, 60, "feeds keep their order: \(feeds)")
        XCTAssertTrue((15...45).contains(feeds.sdGap), "on demand, not every 3.00 h: \(feeds)")
        XCTAssertGreaterThan(feeds.gapVolumeCorrelation, 0.3, "a longer gap, a bigger feed: \(feeds)")
        let growth = try JSONDecoder().decode(Growth.self, from: out[1])
        XCTAssertEqual(growth.days, 10)
        // Interstage single-ventricle infants gain 26 g/day on average (Pediatr Cardiol 2012).
        XCTAssertEqual(growth.meanGain, 26, accuracy: 5, "\(growth)")
        XCTAssertTrue((2...10).contains(growth.sdGain), "day-to-day SD of growth: \(growth)")
    }

    func testHeartRateTruthIsTheVentricularRateDuringAF() throws {
        let yaml =
            scenario(
                "3h",
                profile: "adult",
                baseline: "dailySteps: 0",
                devices: ["{id: strap, type: heart-rate-strap}"],
                rest: ""
            ) + "\ntimeline:\n  - {at: 1h, patient: p, event: atrial-fibrillation, duration: 1h, target: 110}\n"
        let rate = try JSONDecoder().decode(
            Rate.self,
            from: referee(yaml, [("rate", ["strap", "3600000", "7200000"])])[0]
        )
        let af = rate.windows.filter(\.af)
        XCTAssertGreaterThanOrEqual(af.count, 10, "\(rate.windows)")
        // The `truth` of a heart-rate reading is the rate the heart beats at: in AF the ventricular
        // rate its RR intervals give (it once stayed at the sinus 68.6 while the heart beat at 112).
        for w in af {
            XCTAssertEqual(w.truth, w.rrRate, accuracy: 0.05 * w.rrRate, "AF window at \(w.startMs) ms")
        }
        XCTAssertTrue(
            rate.windows.filter { !$0.af && $0.startMs < 3_000_000 }.allSatisfy { $0.truth < 80 },
            "\(rate.windows)"
        )
    }

    func testRespiratorySinusArrhythmiaFollowsTheBreathingRate() throws {
        let yaml = scenario(
            "24h",
            profile: "adult",
            baseline: "",
            devices: ["{id: strap, type: heart-rate-strap}", "{id: resp, type: respiration-monitor, cadence: 1m}"]
        )
        let breathing = try JSONDecoder().decode(
            Breathing.self,
            from: referee(yaml, [("breathing", ["strap", "resp"])])[0]
        )
        XCTAssertGreaterThan(breathing.windows, 250, "\(breathing)")
        // The HF peak of RR sits at the breathing frequency (Task Force 1996; Hirsch & Bishop
        // 1981), so it follows the breathing rate through sleep and activity; a fixed breathing
        // frequency in the heart model would leave no correlation.
        XCTAssertGreaterThan(breathing.correlation, 0.5, "HF peak vs respiration monitor: \(breathing)")
        XCTAssertLessThan(breathing.medianDifference, 1.5, "breaths/min: \(breathing)")
        // Adults breathe 12–20 /min at rest (NEWS2's zero band, docs/clinical.md §3.4).
        XCTAssertTrue((12...20).contains(breathing.medianPeak), "\(breathing)")
        XCTAssertGreaterThan(breathing.peakIQR, 0.5, "the breathing rate is not fixed: \(breathing)")
    }
}
