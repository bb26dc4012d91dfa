import Generation
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// Realism checks against the targets in docs/clinical.md (sources there): HRV bands for a
/// resting adult, AF irregularity, CGM lag/noise/limits, nocturnal BP dip, circadian temperature,
/// infant SpO2 and growth.
final class PhysiologyRealismTests: XCTestCase {
    func physiology(_ yaml: String, seed: UInt64 = 1, patient: Int = 0) throws -> (PatientPhysiology, Scenario) {
        let scenario = try ScenarioLoader.parse(yaml, file: "test.yaml")
        let spec = scenario.patients[patient]
        let clock = DayClock(startUnixMilliseconds: scenario.startUnixMilliseconds)
        return (
            PatientPhysiology(
                patient: spec,
                events: scenario.events(for: spec.id),
                rng: SeededRandom(seed: seed).split("patient:" + spec.id),
                clock: clock
            ), scenario
        )
    }

    func scenario(
        profile: String = "adult",
        baseline: String = "dailySteps: 0",
        duration: String = "2h",
        start: String = "10:00:00",
        devices: String = "- {id: hrm, type: heart-rate-strap}",
        meals: String = "",
        timeline: String = ""
    ) -> String {
        """
        name: t
        duration: \(duration)
        start: 2024-11-07T\(start)Z
        patients:
          - id: p
            profile: \(profile)
            baseline: {\(baseline)}\(meals.isEmpty ? "" : "\n    meals: " + meals)
            devices:
              \(devices)
        \(timeline.isEmpty ? "" : "timeline:\n" + timeline)
        """
    }

    /// RR intervals (s) in consecutive 5-minute windows.
    func windows(_ phys: PatientPhysiology, from: Int64, to: Int64) -> [[Double]] {
        var beats = phys.beats(from: from)
        var out: [[Double]] = [[]]
        var windowEnd = Double(from) + 300_000
        while beats.time < Double(to) {
            let rr = beats.next()
            if beats.time > windowEnd {
                out.append([])
                windowEnd += 300_000
            }
            out[out.count - 1].append(rr)
        }
        return out.filter { $0.count > 100 }
    }

    func median(_ v: [Double]) -> Double {
        let sorted = v.sorted()
        return sorted[sorted.count / 2]
    }

    func testRestingAdultHRVIsWithinPublishedShortTermNorms() throws {
        for seed in [1, 2, 3] as [UInt64] {
            let (phys, _) = try physiology(scenario(), seed: seed)
            let metrics = windows(phys, from: 0, to: 3_600_000).compactMap(HRVMetrics.compute)
            XCTAssertGreaterThanOrEqual(metrics.count, 10)
            let sdnn = median(metrics.map(\.sdnn))
            let rmssd = median(metrics.map(\.rmssd))
            let hr = 60_000 / median(metrics.map(\.meanNN))
            XCTAssertTrue((30...90).contains(sdnn), "seed \(seed): 5-min SDNN \(sdnn) ms outside 30–90")
            XCTAssertTrue((20...60).contains(rmssd), "seed \(seed): 5-min RMSSD \(rmssd) ms outside 20–60")
            XCTAssertTrue((55...85).contains(hr), "seed \(seed): mean HR \(hr)")
            XCTAssertTrue(
                (0.5...4).contains(median(metrics.map(\.lfHf))),
                "seed \(seed): LF/HF \(median(metrics.map(\.lfHf)))"
            )
            let inBand = metrics.filter { (25...100).contains($0.sdnn) && (15...70).contains($0.rmssd) }.count
            XCTAssertGreaterThanOrEqual(
                Double(inBand) / Double(metrics.count),
                0.8,
                "seed \(seed): too many windows outside the bands"
            )
        }
    }

    func testAtrialFibrillationIsIrregularlyIrregularAndSinusIsNot() throws {
        let timeline = "  - {at: 30m, patient: p, event: atrial-fibrillation, duration: 40m, target: 110}"
        let (phys, _) = try physiology(scenario(timeline: timeline))
        let sinus = windows(phys, from: 0, to: 1_800_000).compactMap(HRVMetrics.compute)
        let af = windows(phys, from: 1_800_000, to: 4_200_000).compactMap(HRVMetrics.compute)
        XCTAssertGreaterThanOrEqual(af.count, 7)
        for m in af {
            XCTAssertGreaterThan(m.pnn50, 40, "AF pNN50")
            XCTAssertGreaterThan(m.rmssd / m.meanNN, 0.1, "AF normalised RMSSD")
            XCTAssertLessThan(m.maxAutocorrelation, 0.2, "AF RR must have no periodic structure")
            XCTAssertTrue((95...125).contains(60_000 / m.meanNN), "AF ventricular rate \(60_000 / m.meanNN)")
        }
        for m in sinus {
            XCTAssertFalse(m.pnn50 > 40 && m.rmssd / m.meanNN > 0.1, "sinus window looks like AF: \(m)")
            XCTAssertGreaterThan(m.maxAutocorrelation, 0.3, "sinus rhythm keeps its LF/HF structure")
        }
    }

    func testTachycardiaRampsPlateausAndRecovers() throws {
        let timeline =
            "  - {at: 30m, patient: p, event: tachycardia, duration: 20m, target: 150, onset: 2m, offset: 3m}"
        let (phys, _) = try physiology(scenario(timeline: timeline))
        let before = phys.meanHeartRate(at: 29 * 60_000)
        XCTAssertEqual(phys.meanHeartRate(at: 40 * 60_000), 150, accuracy: 0.5)
        let mid = phys.meanHeartRate(at: 31 * 60_000)
        XCTAssertTrue(mid > before + 30 && mid < 120, "half-way through the onset ramp: \(mid)")
        XCTAssertEqual(phys.meanHeartRate(at: 55 * 60_000), before, accuracy: 5)
    }

    func testCGMLagsPlasmaWithRealisticNoiseAndBias() throws {
        let yaml = scenario(
            profile: "diabetic-cgm",
            baseline: "diabetes: type1, dailySteps: 0",
            duration: "24h",
            start: "00:00:00",
            devices: "- {id: cgm, type: cgm}",
            meals: "[]",
            timeline: """
                  - {at: 2h, patient: p, event: meal, carbs: 80}
                  - {at: 8h, patient: p, event: hypoglycemia, insulin: 7}
                  - {at: 14h, patient: p, event: meal, carbs: 60, insulin: 3}
                """
        )
        let (phys, s) = try physiology(yaml)
        // Interstitial lag: the shift that best aligns interstitial with plasma, 5–15 min.
        var best = (0, -1.0)
        let plasma = (0..<1440).map { phys.glucose.plasma(at: Int64($0) * 60_000) }
        let ig = (0..<1440).map { phys.glucose.interstitial(at: Int64($0) * 60_000) }
        for lag in 0...30 {
            let correlation = RealismReport.correlation(Array(ig[lag...]), Array(plasma[..<(1440 - lag)]))
            if correlation > best.1 { best = (lag, correlation) }
        }
        XCTAssertTrue((5...15).contains(best.0), "CGM lag \(best.0) min")
        XCTAssertLessThan(plasma.min()!, 70)
        XCTAssertGreaterThan(plasma.max()!, 200)
        // Sensor noise and accuracy from the device model.
        var dev = DeviceEmitter(
            spec: s.patients[0].devices[0],
            physiology: phys,
            faults: [],
            duration: s.duration.milliseconds
        )
        var errors: [Double] = []
        var ard: [Double] = []
        var fallingBias: [Double] = []
        var times: [Int64] = []
        while let reading = dev.next() {
            guard case let .cgm(mg, _, _, _, _) = reading.measurement else { continue }
            times.append(reading.measuredAt)
            XCTAssertTrue((40...400).contains(mg))
            let igv = phys.glucose.interstitial(at: reading.measuredAt)
            let pv = phys.glucose.plasma(at: reading.measuredAt)
            if (100...180).contains(igv) { errors.append(Double(mg) - igv) }
            if mg > 40, mg < 400 { ard.append(abs(Double(mg) - pv) / pv) }
            if phys.glucose.plasma(at: reading.measuredAt + 300_000) - pv < -5 { fallingBias.append(Double(mg) - pv) }
        }
        XCTAssertEqual(times.count, 287)
        XCTAssertTrue(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 300_000 }, "5-minute cadence")
        let sd = (errors.map { $0 * $0 }.reduce(0, +) / Double(errors.count)).squareRoot()
        XCTAssertTrue(
            (6...15).contains(sd),
            "sensor noise sd \(sd) mg/dL near 140 (docs/clinical.md §2.4: about 10–15)"
        )
        let mard = 100 * ard.reduce(0, +) / Double(ard.count)
        XCTAssertTrue((4...15).contains(mard), "MARD \(mard) %")
        XCTAssertGreaterThan(
            fallingBias.reduce(0, +) / Double(fallingBias.count),
            0,
            "CGM reads high while glucose falls (Breton & Kovatchev 2008)"
        )
    }

    /// Plasma glucose every minute for `hours` of a type 1 patient with `meals` and `timeline`.
    func plasma(hours: Int, meals: String = "[]", timeline: String = "") throws -> [Double] {
        let yaml = """
            name: t
            duration: \(hours)h
            start: 2024-11-07T00:00:00Z
            patients:
              - id: p
                profile: diabetic-cgm
                baseline: {diabetes: type1, glucose: 140, dailySteps: 0, insulinSensitivity: 1, weight: 75}
                meals: \(meals)
                devices:
                  - {id: cgm, type: cgm}
            \(timeline.isEmpty ? "" : "timeline:\n" + timeline)
            """
        let (phys, _) = try physiology(yaml)
        return (0..<(hours * 60)).map { phys.glucose.plasma(at: Int64($0) * 60_000) }
    }

    func testHypoglycaemiaEndsByCounterRegulationNotAtAFloor() throws {
        // A large overdose: glucose falls, counter-regulation stops the fall, and it recovers.
        let plasmaCurve = try plasma(hours: 12, timeline: "  - {at: 1h, patient: p, event: hypoglycemia, insulin: 25}")
        let nadir = plasmaCurve.min()!
        let at = plasmaCurve.firstIndex(of: nadir)!
        XCTAssertTrue((20...50).contains(nadir), "nadir \(nadir) mg/dL")
        XCTAssertLessThan(plasmaCurve.filter { abs($0 - nadir) < 0.5 }.count, 30, "no plateau at a floor")
        XCTAssertGreaterThan(plasmaCurve[min(at + 180, plasmaCurve.count - 1)], nadir + 15, "recovers within 3 h")
    }

    func testRoutineMealsVaryFromDayToDay() throws {
        let meals =
            "[{time: \"07:30\", carbs: 45, bolus: 4.5}, {time: \"12:30\", carbs: 70, bolus: 7}, {time: \"19:00\", carbs: 80, bolus: 8}]"
        let plasmaCurve = try plasma(hours: 5 * 24, meals: meals)
        let days = (0..<5).map { Array(plasmaCurve[($0 * 1440)..<(($0 + 1) * 1440)]) }
        let correlations = (1..<4).map { RealismReport.correlation(days[$0], days[$0 + 1]) }
        XCTAssertTrue(correlations.allSatisfy { $0 < 0.9 }, "day-to-day correlation \(correlations)")
        XCTAssertTrue(correlations.allSatisfy { $0 > 0.2 }, "the same routine still shows: \(correlations)")
        // Breakfast starts at a different minute each day (the glucose rise after 07:30 ± 45 min).
        let rises = days.map { d in (405...495).first { d[$0 + 20] - d[$0] > 15 } ?? -1 }
        XCTAssertGreaterThan(Set(rises).count, 2, "breakfast rise starts at \(rises)")
    }

    func testCGMReportsLowAndHighLimits() throws {
        let yaml = scenario(
            profile: "diabetic-cgm",
            baseline: "diabetes: type1, glucose: 180",
            duration: "10h",
            devices: "- {id: cgm, type: cgm, cadence: 1m}",
            timeline: "  - {at: 1h, patient: p, event: hyperglycemia, carbs: 200}"
        )
        let (phys, s) = try physiology(yaml)
        var dev = DeviceEmitter(
            spec: s.patients[0].devices[0],
            physiology: phys,
            faults: [],
            duration: s.duration.milliseconds
        )
        var high = 0
        var count = 0
        while let reading = dev.next() {
            guard case let .cgm(mg, _, _, _, ann) = reading.measurement else { continue }
            count += 1
            if ann & 0x80_0000 != 0 {
                high += 1
                XCTAssertEqual(mg, 400, "HIGH readings are reported at the 400 mg/dL limit")
            }
        }
        XCTAssertEqual(count, 599, "1-minute (Libre-type) cadence")
        XCTAssertGreaterThan(high, 0, "a missed bolus of 200 g in type 1 diabetes should read HIGH (> 400 mg/dL)")
    }

    func testNocturnalBloodPressureDip() throws {
        let (phys, _) = try physiology(
            scenario(baseline: "systolic: 130, diastolic: 82", duration: "7d", start: "00:00:00")
        )
        var night: [(Double, Double)] = []
        var day: [(Double, Double)] = []
        // As an ambulatory monitor samples: every 15 minutes by day, every 30 at night.
        for m in stride(from: 0, to: 7 * 1440, by: 15) {
            let time = Int64(m) * 60_000
            let hour = phys.clock.hour(at: time)
            let bp = phys.bloodPressure(at: time)
            if (1..<5).contains(hour), m % 30 == 0 { night.append((bp.systolic, bp.diastolic)) }
            if (10..<20).contains(hour) { day.append((bp.systolic, bp.diastolic)) }
        }
        func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(v.count) }
        let systolicRatio = mean(night.map(\.0)) / mean(day.map(\.0))
        let diastolicRatio = mean(night.map(\.1)) / mean(day.map(\.1))
        XCTAssertTrue(
            (10...20).contains(100 * (1 - systolicRatio)),
            "nocturnal dip \(100 * (1 - systolicRatio)) % (dipper 10–20 %)"
        )
        // Staessen et al. 1991 (23 studies, 3,476 normotensives): night/day 0.79–0.92 systolic,
        // 0.75–0.90 diastolic.
        XCTAssertTrue((0.79...0.92).contains(systolicRatio), "systolic night/day \(systolicRatio)")
        XCTAssertTrue((0.75...0.90).contains(diastolicRatio), "diastolic night/day \(diastolicRatio)")
    }

    func testInfantFeedsComeOnDemandAndTakeMoreAfterALongerGap() throws {
        let yaml = scenario(
            profile: "chd-infant",
            baseline: "",
            duration: "4d",
            start: "00:00:00",
            devices: "- {id: feeds, type: feeding-log}"
        )
        let (phys, s) = try physiology(yaml)
        var dev = DeviceEmitter(
            spec: s.patients[0].devices[0],
            physiology: phys,
            faults: [],
            duration: s.duration.milliseconds
        )
        var feeds: [(Int64, Double)] = []
        while let reading = dev.next() {
            if case let .feeding(mL) = reading.measurement { feeds.append((reading.measuredAt, Double(mL))) }
        }
        XCTAssertTrue((31...32).contains(feeds.count), "8 feeds a day: \(feeds.count)")
        let gaps = zip(feeds, feeds.dropFirst()).map { Double($1.0 - $0.0) / 60_000 }
        XCTAssertTrue(gaps.allSatisfy { $0 > 60 }, "feeds keep their order: \(gaps)")
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        let sd = (gaps.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(gaps.count)).squareRoot()
        XCTAssertTrue((15...45).contains(sd), "feed intervals \(mean) ± \(sd) min, not every 3.00 h")
        let volumes = Array(feeds.dropFirst().map(\.1))
        XCTAssertGreaterThan(RealismReport.correlation(gaps, volumes), 0.3, "a longer gap, a bigger feed")
    }

    func testCuffMeasuresMeanArterialPressureAndCorrelatedErrors() throws {
        let yaml = scenario(
            baseline: "systolic: 130, diastolic: 82, dailySteps: 0",
            duration: "20d",
            devices: "- {id: cuff, type: bp-cuff}"
        )
        let (phys, s) = try physiology(yaml)
        var dev = DeviceEmitter(
            spec: s.patients[0].devices[0],
            physiology: phys,
            faults: [],
            duration: s.duration.milliseconds
        )
        var sysErr: [Double] = []
        var diaErr: [Double] = []
        var offFormula = 0
        var systolic: [Double] = []
        while let reading = dev.next() {
            guard case let .bloodPressure(sys, dia, map, _, _) = reading.measurement else { continue }
            let truth = phys.bloodPressure(at: reading.measuredAt)
            sysErr.append(Double(sys) - truth.systolic)
            diaErr.append(Double(dia) - truth.diastolic)
            systolic.append(Double(sys))
            if abs(Double(map) - (Double(dia) + Double(sys - dia) / 3)) >= 1 { offFormula += 1 }
        }
        XCTAssertGreaterThan(sysErr.count, 60)
        XCTAssertGreaterThan(Double(offFormula) / Double(sysErr.count), 0.5, "MAP is measured, not DBP + PP/3")
        let rho = RealismReport.correlation(sysErr, diaErr)
        XCTAssertTrue((0.3...0.8).contains(rho), "systolic and diastolic errors correlate: \(rho)")
        // Reading-to-reading variability of a home cuff, 5–10 mmHg SD (docs/clinical.md §3.2), at rest.
        let mean = systolic.reduce(0, +) / Double(systolic.count)
        let sd = (systolic.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(systolic.count)).squareRoot()
        XCTAssertTrue((5...12).contains(sd), "systolic SD \(sd) mmHg")
    }

    func testTemperatureCircadianRhythm() throws {
        let (phys, _) = try physiology(scenario(duration: "1d", start: "00:00:00"))
        let temps = (0..<24).map { phys.temperature(at: Int64($0) * 3_600_000) }
        let nadir = temps.firstIndex(of: temps.min()!)!
        let peak = temps.firstIndex(of: temps.max()!)!
        XCTAssertTrue((4...8).contains(nadir), "nadir at \(nadir):00 (Mackowiak: 06:00)")
        XCTAssertTrue((15...19).contains(peak), "peak at \(peak):00 (Mackowiak: 16–18 h)")
        XCTAssertTrue(
            (0.4...0.65).contains(temps.max()! - temps.min()!),
            "peak-to-trough \(temps.max()! - temps.min()!) °C"
        )
        XCTAssertLessThan(temps.max()!, 37.7, "upper limit of normal")
    }

    func testInfantSpO2BaselineAndGrowth() throws {
        let (phys, _) = try physiology(
            scenario(profile: "chd-infant", baseline: "", duration: "10d", start: "00:00:00")
        )
        let spo2 = (0..<1440).map { phys.spo2(at: Int64($0) * 600_000) }
        XCTAssertTrue((75...85).contains(median(spo2)), "infant single-ventricle SpO2 median \(median(spo2))")
        let gain = (phys.weight(at: 10 * 86_400_000) - phys.weight(at: 0)) * 1000 / 10
        XCTAssertEqual(gain, 26, accuracy: 5, "expected growth 26 g/day (Pediatr Cardiol 2012)")
        // Not a straight line: the daily gains differ.
        let daily = (0..<10).map {
            (phys.weight(at: Int64($0 + 1) * 86_400_000) - phys.weight(at: Int64($0) * 86_400_000)) * 1000
        }
        let mean = daily.reduce(0, +) / 10
        let sd = (daily.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 9).squareRoot()
        XCTAssertTrue((2...10).contains(sd), "day-to-day SD of growth \(sd) g (daily gains \(daily))")
        XCTAssertGreaterThan(phys.meanHeartRate(at: 12 * 3_600_000), 120)
    }

    func testCoreHypoglycemiaScenarioReachesLevel2ForFifteenMinutes() throws {
        let scenario = try ScenarioLoader.load(
            path: Fixtures.repositoryRoot + "/scenarios/core/t1d-nocturnal-hypoglycemia.yaml"
        )
        var run = ScenarioRun(scenario: scenario)
        var below54: [Int64] = []
        while let (reading, _) = run.next() {
            if case let .cgm(mg, _, _, _, _) = reading.measurement, mg < 54 { below54.append(reading.measuredAt) }
        }
        var longest: Int64 = 0
        var start = below54.first ?? 0
        for (a, b) in zip(below54, below54.dropFirst()) {
            if b - a > 300_000 { start = b }
            longest = max(longest, b - start)
        }
        XCTAssertGreaterThanOrEqual(longest, 15 * 60_000, "CGM should read < 54 mg/dL for ≥ 15 min (ADA level 2 event)")
    }
}
