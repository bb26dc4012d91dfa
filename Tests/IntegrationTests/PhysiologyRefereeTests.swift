import Foundation
import XCTest

/// Heart-rate variability and pulse oximetry of `vitalsim generate` output, measured by libraries
/// written apart from VitalSim (hrv-analysis, neurokit2, scipy, numpy; Tests/referees) against
/// published norms: the Task Force's 5-minute and 24-hour HRV, the separability of AF from sinus
/// rhythm by sample entropy, an averaging oximeter's correlated error, Gries & Brooks' normal night.
final class PhysiologyRefereeTests: XCTestCase {
    struct Window: Decodable {
        var startMs: Int64, af: Bool, sdnn: Double, rmssd: Double, lfHf: Double, lfHfWelch: Double, vlfShare: Double
        var sampEn: Double, cosEn: Double
    }
    struct Bouts: Decodable {
        var count: Int, medianS: Double, p10S: Double, p90S: Double, maxShareIn10s: Double, medianRampS: Double
    }
    struct HRV: Decodable {
        var beats: Int, hours: Double, sdnn24: Double, sdann: Double, slope: Double?, windows: [Window]
        var bouts: Bouts?
    }
    struct Oximetry: Decodable {
        var n: Int, acf: [Double], errorSD: Double, sat50: Double, sat10: Double, low: Double, odi: Double
    }

    static let hour: Int64 = 3_600_000

    /// The test environment's python with neurokit2 and hrv-analysis (pinned as ci/setup-debian.sh
    /// pins them), installed when missing.
    static func python() throws -> String {
        try TestPython.with(["neurokit2==0.2.13", "hrv-analysis==1.0.5", "nolds==0.5.2", "numpy<2.4", "pandas<3"])
    }

    /// The referee's verdict on the scenario's output, and `vitalsim stats --json` of the same folder.
    func referee<T: Decodable>(_ script: String, _ yaml: String, _ args: [String], as: T.Type) throws -> T {
        try refereeAndStats(script, yaml, args, as: T.self).0
    }

    func refereeAndStats<T: Decodable>(
        _ script: String,
        _ yaml: String,
        _ args: [String],
        as: T.Type
    ) throws -> (T, [String: Any]) {
        let python = try Self.python()
        let dir = TestSupport.temporaryDirectory("physiology-referee")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try yaml.write(toFile: dir + "/s.yaml", atomically: true, encoding: .utf8)
        let generated = try TestSupport.vitalsim(["generate", dir + "/s.yaml", "--out", dir + "/out"], in: dir)
        XCTAssertEqual(generated.status, 0, generated.err)
        let ran = try TestSupport.run(
            python,
            [TestSupport.repositoryRoot + "/Tests/referees/" + script, dir + "/out/readings.jsonl"] + args
        )
        XCTAssertEqual(ran.status, 0, ran.err)
        let stats = try TestSupport.vitalsim(["stats", dir + "/out", "--json"], in: dir)
        XCTAssertEqual(stats.status, 0, stats.err)
        let json = try JSONSerialization.jsonObject(with: Data(stats.out.utf8)) as? [String: Any] ?? [:]
        return (try JSONDecoder().decode(T.self, from: Data(ran.out.utf8)), json)
    }

    /// The typical adult (`population: typical`): the Task Force's figures are a healthy cohort's
    /// means, and one patient drawn from the population may sit a standard deviation away.
    func adult(_ duration: String, start: String, steps: String = "", devices: String, timeline: String = "") -> String
    {
        """
        name: referee
        seed: 11
        duration: \(duration)
        start: 2024-11-07T\(start)Z
        population: typical
        patients:
          - id: p
            profile: adult
            baseline: {\(steps)}
            devices:
        \(devices)
        \(timeline)
        """
    }

    func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }

    func testRestingAdultFiveMinuteHRVHasTheTaskForcesVeryLowFrequencyShare() throws {
        let (hrv, stats) = try refereeAndStats(
            "hrv_referee.py",
            adult(
                "2h",
                start: "10:00:00",
                steps: "dailySteps: 0",
                devices: "      - {id: strap, type: heart-rate-strap}"
            ),
            ["strap"],
            as: HRV.self
        )
        // `vitalsim stats` names its methods and agrees with hrv-analysis within 10 % (medians of
        // the 5-minute windows; LF/HF by the same Welch method).
        let folder = try XCTUnwrap(stats.values.first as? [String: Any])
        let device = try XCTUnwrap(
            (folder["devices"] as? [[String: Any]])?.first { $0["kind"] as? String == "heart-rate" }
        )
        XCTAssertEqual(device["profile"] as? String, "adult")
        XCTAssertTrue((device["methods"] as? String)?.contains("Welch") == true, "\(device)")
        for (mine, theirs) in [
            ("sdnn", median(hrv.windows.map(\.sdnn))), ("rmssd", median(hrv.windows.map(\.rmssd))),
            ("lfHf", median(hrv.windows.map(\.lfHfWelch))),
        ] {
            let value = try XCTUnwrap(device[mine] as? Double, mine)
            XCTAssertEqual(value, theirs, accuracy: 0.1 * theirs, "stats \(mine) \(value), hrv-analysis \(theirs)")
        }
        XCTAssertGreaterThanOrEqual(hrv.windows.count, 20)
        let what = "5-min windows: \(hrv.windows.map { ($0.sdnn.rounded(), $0.vlfShare) })"
        // Task Force 1996: VLF ≈ 38 % of 5-min power (3466 − 1170 − 975 of 3466 ms²).
        XCTAssertTrue((0.20...0.50).contains(median(hrv.windows.map(\.vlfShare))), "VLF share, " + what)
        XCTAssertTrue((25...90).contains(median(hrv.windows.map(\.sdnn))), "SDNN, " + what)
        XCTAssertTrue((15...80).contains(median(hrv.windows.map(\.rmssd))), "RMSSD, " + what)
        XCTAssertTrue((0.5...4).contains(median(hrv.windows.map(\.lfHf))), "LF/HF, " + what)
    }

    func testHealthyAdultDayHasTaskForce24HourSDNNAndA1OverFSpectrum() throws {
        let hrv = try referee(
            "hrv_referee.py",
            adult("24h", start: "00:00:00", devices: "      - {id: strap, type: heart-rate-strap}"),
            ["strap"],
            as: HRV.self
        )
        XCTAssertGreaterThan(hrv.hours, 23.9)
        // Task Force 1996: 24-h SDNN 141 ± 39 ms, SDANN 127 ± 35 ms.
        XCTAssertTrue((100...180).contains(hrv.sdnn24), "24-h SDNN \(hrv.sdnn24) ms")
        XCTAssertTrue((70...180).contains(hrv.sdann), "SDANN \(hrv.sdann) ms")
        // Kobayashi & Musha 1982, Saul et al. 1988: power ∝ 1/f between 1e-4 and 1e-2 Hz; healthy
        // middle-aged adults' 24-h recordings −1.06 ± 0.12 (Bigger et al. 1996), held to two SDs.
        let slope = try XCTUnwrap(hrv.slope)
        XCTAssertTrue((-1.3 ... -0.82).contains(slope), "log–log spectral slope \(slope)")
        // A day's bouts of activity, as the heart rate shows them: most short, some of minutes
        // (in daily life most walking bouts last under a minute, Orendurff et al. 2008), none of
        // one template (52 of 59 bouts lasted 551–555 s), each coming on over seconds rather than
        // switched on.
        let bouts = try XCTUnwrap(hrv.bouts)
        XCTAssertGreaterThan(bouts.count, 20, "\(bouts)")
        XCTAssertLessThan(bouts.medianS, 120, "\(bouts)")
        XCTAssertGreaterThan(bouts.p90S / bouts.p10S, 4, "\(bouts)")
        XCTAssertLessThan(bouts.maxShareIn10s, 0.4, "\(bouts)")
        XCTAssertGreaterThanOrEqual(bouts.medianRampS, 3, "\(bouts)")
    }

    func testAtrialFibrillationIsSeparableFromSinusRhythmByCoefficientOfSampleEntropy() throws {
        let timeline = "timeline:\n  - {at: 1h, patient: p, event: atrial-fibrillation, duration: 1h, target: 110}"
        let hrv = try referee(
            "hrv_referee.py",
            adult(
                "3h",
                start: "10:00:00",
                steps: "dailySteps: 0",
                devices: "      - {id: strap, type: heart-rate-strap}",
                timeline: timeline
            ),
            ["strap", String(Self.hour), String(2 * Self.hour)],
            as: HRV.self
        )
        let af = hrv.windows.filter(\.af)
        // Windows that straddle an AF boundary are neither; the rest are sinus.
        let sinus = hrv.windows.filter { !$0.af && ($0.startMs + 300_000 <= Self.hour || $0.startMs >= 2 * Self.hour) }
        XCTAssertGreaterThanOrEqual(af.count, 10)
        XCTAssertGreaterThanOrEqual(sinus.count, 20)
        // Lake & Moorman 2011: COSEn above −1.4 is AF; every window falls on its side.
        let what = "COSEn: AF \(af.map(\.cosEn)), sinus \(sinus.map(\.cosEn))"
        XCTAssertTrue(af.allSatisfy { $0.cosEn > -1.4 }, what)
        XCTAssertTrue(sinus.allSatisfy { $0.cosEn < -1.4 }, what)
        // Sample entropy with a relative tolerance: higher in AF (it does not separate every window).
        XCTAssertGreaterThan(
            median(af.map(\.sampEn)),
            median(sinus.map(\.sampEn)),
            "SampEn AF \(af.map(\.sampEn)), sinus \(sinus.map(\.sampEn))"
        )
    }

    func testAnAveragingOximetersErrorIsCorrelatedOverSeconds() throws {
        let devices = "      - {id: oxi, type: pulse-oximeter, mode: continuous}"
        let ox = try referee(
            "spo2_referee.py",
            adult("1h", start: "10:00:00", steps: "dailySteps: 0", devices: devices),
            ["oxi", "0", String(Self.hour)],
            as: Oximetry.self
        )
        XCTAssertGreaterThan(ox.n, 3_500)
        // An 8-s moving average of independent raw estimates: lag-k correlation (8 − k)/8, less the
        // share of the 1 % display resolution; gone after 8 s. A white-noise oximeter shows none.
        XCTAssertTrue((0.55...0.95).contains(ox.acf[1]), "lag-1 s autocorrelation \(ox.acf)")
        XCTAssertTrue((0.2...0.7).contains(ox.acf[4]), "lag-4 s autocorrelation \(ox.acf)")
        XCTAssertLessThan(abs(ox.acf[10]), 0.15, "lag-10 s autocorrelation \(ox.acf)")
        XCTAssertTrue((0.4...1.2).contains(ox.errorSD), "error SD \(ox.errorSD) %")
    }

    func testAHealthyNightsOximetryMatchesGriesAndBrooks() throws {
        let devices = "      - {id: oxi, type: pulse-oximeter, mode: continuous}"
        let ox = try referee(
            "spo2_referee.py",
            adult("8h", start: "23:00:00", steps: "dailySteps: 0", devices: devices),
            ["oxi", String(Self.hour / 2), String(15 * Self.hour / 2)],
            as: Oximetry.self
        )
        // Gries & Brooks 1996, healthy subjects asleep: Sat 50 96.5 ± 1.5, Sat 10 94.7 ± 1.6,
        // lowest 90.4 ± 3.1 (mean ± 2 SD here), and an ODI under 5 an hour.
        XCTAssertTrue((93.5...99.5).contains(ox.sat50), "Sat 50 \(ox.sat50)")
        XCTAssertTrue((91.5...97.9).contains(ox.sat10), "Sat 10 \(ox.sat10)")
        XCTAssertTrue((84.2...96.6).contains(ox.low), "lowest \(ox.low)")
        XCTAssertTrue((0.5...5).contains(ox.odi), "ODI \(ox.odi)/h")
    }

    func testACOPDNightHasDesaturationEventsAHealthyNightLacks() throws {
        let devices = "      - {id: oxi, type: pulse-oximeter, mode: continuous}"
        let night = ["oxi", String(Self.hour / 2), String(15 * Self.hour / 2)]
        let healthy = try referee(
            "spo2_referee.py",
            adult("8h", start: "23:00:00", steps: "dailySteps: 0", devices: devices),
            night,
            as: Oximetry.self
        )
        let copdNight = adult("8h", start: "23:00:00", steps: "dailySteps: 0", devices: devices)
            .replacingOccurrences(of: "profile: adult", with: "profile: copd")
        let copd = try referee("spo2_referee.py", copdNight, night, as: Oximetry.self)
        // Nocturnal desaturation in COPD (Fletcher et al. 1987): repeated falls of 3 % or more that a
        // healthy night (Gries & Brooks: ODI under 5) mostly lacks, below a lower baseline.
        let what =
            "COPD ODI \(copd.odi)/h, Sat 50 \(copd.sat50), lowest \(copd.low); healthy \(healthy.odi)/h, \(healthy.sat50), \(healthy.low)"
        XCTAssertGreaterThanOrEqual(copd.odi, 3, what)
        XCTAssertGreaterThan(copd.odi, 2 * healthy.odi, what)
        XCTAssertLessThan(copd.sat50, healthy.sat50, what)
        XCTAssertLessThanOrEqual(copd.low, copd.sat50 - 5, what)
    }
}
