import Foundation
import XCTest

/// The ECG watch's recordings, refereed by neurokit2 (PyPI, written apart from VitalSim): the R
/// peaks it finds in each waveform are the scenario's beats, its heart rate agrees with the
/// recording's, and the beats are the very ones the patient's heart-rate strap reports (the same
/// RR intervals, in order). AF recordings are classified AF, sinus ones sinus rhythm.
final class ECGRefereeTests: XCTestCase {
    let scenario = """
        name: ecg-referee
        seed: 5
        duration: 6h
        start: 2024-11-07T08:00:00Z
        patients:
          - id: "1"
            profile: adult
            baseline: {dailySteps: 0}
            devices:
              - {id: strap, type: heart-rate-strap}
              - {id: watch, type: ecg-watch, recordings: ["08:30", "09:30", "12:30", "13:30"], triggers: [schedule]}
          - id: "2"
            profile: adult
            baseline: {heartRate: 58, dailySteps: 0}
            devices:
              - {id: strap2, type: heart-rate-strap}
              - {id: watch2, type: ecg-watch, recordings: ["10:00", "12:00"], triggers: [schedule]}
        timeline:
          - {at: 4h, patient: "1", event: atrial-fibrillation, duration: 2h, target: 125}
          - {at: 3h30m, patient: "2", event: tachycardia, duration: 1h, target: 135}
        """

    struct Verdict: Decodable {
        var time: String
        var classification: String
        var truthBeats: Int
        var found: Int
        var matched: Int
        var falsePeaks: Int
        var hr: Double
        var hrNeurokit: Double
        var rrCompared: Int
        var rrWithin10ms: Int
        var strapRRMatched: Bool?
    }

    /// What the referee `script` (in `Tests/referees/`) prints of the readings `vitalsim generate`
    /// writes for `scenario`.
    func refereed(_ scenario: String, by script: String) throws -> (status: Int32, out: String, err: String) {
        let python = try TestPython.with(["neurokit2==0.2.13"])
        let dir = TestSupport.temporaryDirectory("ecg-referee")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try scenario.write(toFile: dir + "/ecg.yaml", atomically: true, encoding: .utf8)
        let generated = try TestSupport.vitalsim(["generate", dir + "/ecg.yaml", "--out", dir + "/out"], in: dir)
        XCTAssertEqual(generated.status, 0, generated.err)
        return try TestSupport.run(
            python,
            [TestSupport.repositoryRoot + "/Tests/referees/" + script, dir + "/out/readings.jsonl"]
        )
    }

    func testNeuroKitFindsTheScenarioBeatsInEveryRecording() throws {
        let r = try refereed(scenario, by: "ecg_neurokit.py")
        XCTAssertEqual(r.status, 0, r.err)
        let verdicts = try r.out.split(separator: "\n").map {
            try JSONDecoder().decode(Verdict.self, from: Data($0.utf8))
        }
        XCTAssertEqual(verdicts.count, 6, r.out)
        for v in verdicts {
            let what = "\(v.time) \(v.classification)"
            XCTAssertGreaterThanOrEqual(v.matched, v.truthBeats - 2, "\(what): R peaks found within 50 ms of the beats")
            XCTAssertLessThanOrEqual(v.falsePeaks, 1, "\(what): peaks where no beat was")
            XCTAssertEqual(v.hrNeurokit, v.hr, accuracy: 3, "\(what): heart rate")
            XCTAssertGreaterThanOrEqual(
                Double(v.rrWithin10ms),
                0.9 * Double(v.rrCompared),
                "\(what): RR intervals within 10 ms"
            )
            XCTAssertEqual(v.strapRRMatched, true, "\(what): the strap reported the same beats")
        }
        let byTime = Dictionary(uniqueKeysWithValues: verdicts.map { ($0.time, $0.classification) })
        XCTAssertEqual(byTime["2024-11-07T08:30:00.000Z"], "sinusRhythm")
        XCTAssertEqual(byTime["2024-11-07T12:30:00.000Z"], "atrialFibrillation")
        XCTAssertEqual(byTime["2024-11-07T13:30:00.000Z"], "atrialFibrillation")
        XCTAssertEqual(byTime["2024-11-07T12:00:00.000Z"], "sinusRhythm", "sinus tachycardia at 135 is not AF")
        XCTAssertTrue(verdicts.contains { $0.time == "2024-11-07T12:00:00.000Z" && $0.hr > 120 }, r.out)
    }

    /// The waveform's shape, measured by neurokit2's wavelet delineation
    /// (`Tests/referees/ecg_morphology.py`): QRS 80–100 ms, PR 120–200 ms, QTc by Fridericia
    /// 350–450 ms, a P wave of 0.05–0.25 mV in lead I (docs/physiology.md, "ECG"), and clean
    /// recordings rated "Excellent" by Zhao & Zhang's quality rules (none "Unacceptable"), atrial
    /// fibrillation's too. Below 60 /min the discrete method reads every QRS wider (it picks a
    /// coarser scale there), so a slow recording's QRS is held by the continuous method's reading.
    func testRecordingsHaveNormalIntervalsAndAnExcellentQuality() throws {
        let patients = [52, 72, 80, 95, 80].enumerated().map { i, rate in
            """
              - id: "\(i + 1)"
                profile: adult
                baseline: {heartRate: \(rate), dailySteps: 0}
                devices:
                  - {id: watch\(i + 1), type: ecg-watch, recordings: ["08:30", "09:30", "10:30"], triggers: [schedule]}
            """
        }
        let text =
            "name: ecg-morphology\nseed: 11\nduration: 3h\nstart: 2024-11-07T08:00:00Z\npatients:\n"
            + patients.joined(separator: "\n")
            + "\ntimeline:\n  - {at: 20m, patient: \"5\", event: atrial-fibrillation, duration: 3h, target: 125}\n"
        let r = try refereed(text, by: "ecg_morphology.py")
        XCTAssertEqual(r.status, 0, r.err)
        let rows = try r.out.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let sinus = rows.filter { $0["classification"] as? String == "sinusRhythm" }
        let fibrillation = rows.filter { $0["classification"] as? String == "atrialFibrillation" }
        XCTAssertGreaterThanOrEqual(sinus.count, 11, r.out)
        XCTAssertEqual(fibrillation.count, 3, r.out)
        for row in sinus + fibrillation {
            let what = "\(row["time"] ?? "") at \(row["hr"] ?? "") /min"
            func within(_ key: String, _ range: ClosedRange<Double>) {
                let value = row[key] as? Double ?? .nan
                XCTAssertTrue(range.contains(value), "\(what): \(key) \(value) outside \(range)")
            }
            within("qrsCwtMs", 80...100)
            XCTAssertNotEqual(row["quality"] as? String, "Unacceptable", what)
            guard row["classification"] as? String == "sinusRhythm" else { continue }
            if (row["hr"] as? Double ?? 0) >= 60 { within("qrsMs", 80...100) }
            within("prMs", 120...200)
            within("qtcFridericiaMs", 350...450)
            within("pAmplitudeMv", 0.05...0.25)
        }
        // Below 55 /min a beat's fundamental falls under 1 Hz, where Zhao & Zhang's baseline index
        // counts it as wander: a slow recording can come out "Barely acceptable".
        let ordinary = sinus.filter { ($0["hr"] as? Double ?? 0) >= 55 }
        let excellent = (ordinary + fibrillation).filter { $0["quality"] as? String == "Excellent" }.count
        XCTAssertGreaterThanOrEqual(Double(excellent), 0.9 * Double(ordinary.count + fibrillation.count), r.out)
    }
}
