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

    func testNeuroKitFindsTheScenarioBeatsInEveryRecording() throws {
        let python = try ReferenceOpenAPITests.testPython(installing: "neurokit2==0.2.13")
        let dir = TestSupport.temporaryDirectory("ecg-referee")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try scenario.write(toFile: dir + "/ecg.yaml", atomically: true, encoding: .utf8)
        let generated = try TestSupport.vitalsim(["generate", dir + "/ecg.yaml", "--out", dir + "/out"], in: dir)
        XCTAssertEqual(generated.status, 0, generated.err)
        let script = TestSupport.repositoryRoot + "/Tests/referees/ecg_neurokit.py"
        let r = try TestSupport.run(python, [script, dir + "/out/readings.jsonl"])
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
}
