import Foundation
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// Apple Health's ECG export replayed by an ECG watch: the waveform as recorded, the app's
/// classification, and an average heart rate counted from the R peaks, checked against
/// neurokit2's count on the shipped recordings and against VitalSim's own ECG generator.
final class AppleECGTraceTests: XCTestCase {
    func testTheShippedRecordingsReplayWithTheirRates() throws {
        let scenario = try TracedScenarioLoader.load(
            path: Fixtures.repositoryRoot + "/scenarios/traces/field-recordings.yaml"
        )
        let watch = try XCTUnwrap(scenario.patients.flatMap(\.devices).first { $0.id == "ecg-rec-2" })
        let ecgs = try XCTUnwrap(watch.trace?.electrocardiograms)
        XCTAssertEqual(ecgs.map(\.recording.classification), [.sinusRhythm, .atrialFibrillation])
        let first: Int64 = 37_800_000  // at: 10h30m
        XCTAssertEqual(ecgs.map(\.start), [first, first + 2_548_000], "42 min 28 s apart, as recorded")
        XCTAssertEqual(ecgs.map(\.recording.microvolts.count), [15_360, 15_360])
        XCTAssertEqual(ecgs.map(\.recording.symptomatic), [false, true])
        // neurokit2 0.2.13's ecg_peaks on the same waveforms: 70.0 and 120.6 bpm.
        XCTAssertEqual(Double(ecgs[0].recording.averageHeartRate), 70, accuracy: 2)
        XCTAssertEqual(Double(ecgs[1].recording.averageHeartRate), 120.6, accuracy: 2)
    }

    func testRecordingsOfVitalSimsWatchComeBackAsRecorded() throws {
        let dir = Fixtures.temporaryDirectory("ecg-roundtrip")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var run = ScenarioRun(
            scenario: try ScenarioLoader.load(
                path: Fixtures.repositoryRoot + "/scenarios/core/intouch-palpitations-af.yaml"
            )
        )
        var written: [ECGRecording] = []
        try FileManager.default.createDirectory(atPath: dir + "/ecg", withIntermediateDirectories: true)
        while let (reading, _) = run.next() {
            guard case let .ecg(recording) = reading.measurement, recording.averageHeartRate > 0 else { continue }
            let date = CivilTime(unixMilliseconds: reading.measuredAt + 1_731_000_000_000 - 1_730_937_600_000).iso8601()
            let stamp = date.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " +0000")
            let name = [
                "Sinus Rhythm", "Atrial Fibrillation", "Heart Rate Under 50", "Heart Rate Over 150", "Poor Recording",
                "Inconclusive",
            ]
            let classification = name[ECGClassification.allCases.firstIndex(of: recording.classification)!]
            var text =
                "Name,Sample\nRecorded Date,\(stamp)\nClassification,\(classification)\nSymptoms,\(recording.symptomatic ? "Dizziness" : "")\n"
            text += "Sample Rate,\(recording.samplingFrequency) hertz\n\nLead,Lead I\nUnit,µV\n\n"
            text += recording.microvolts.map { String($0) }.joined(separator: "\n") + "\n"
            try text.write(
                toFile: dir + "/ecg/ecg_\(String(format: "%03d", written.count)).csv",
                atomically: true,
                encoding: .utf8
            )
            written.append(recording)
        }
        XCTAssertGreaterThanOrEqual(written.count, 3)
        XCTAssertTrue(written.contains { $0.classification == .atrialFibrillation })
        let yaml = """
            name: replay
            duration: 3d
            patients:
              - id: p
                profile: adult
                devices:
                  - {id: w, type: ecg-watch, trace: {file: ecg, format: apple-ecg}}
            """
        try yaml.write(toFile: dir + "/replay.yaml", atomically: true, encoding: .utf8)
        let replayed = try XCTUnwrap(
            TracedScenarioLoader.load(path: dir + "/replay.yaml").patients[0].devices[0].trace?.electrocardiograms
        )
        XCTAssertEqual(replayed.count, written.count)
        for (a, b) in zip(replayed.map(\.recording), written) {
            XCTAssertEqual(a.microvolts, b.microvolts)
            XCTAssertEqual(a.classification, b.classification)
            XCTAssertEqual(a.symptomatic, b.symptomatic)
            // The generator's own R peaks are the truth: each found within 60 ms, none invented.
            let truth = b.beats.filter { $0 >= 0 && $0 < 30_000 }
            let missed = truth.filter { t in !a.beats.contains { abs($0 - t) < 60 } }
            XCTAssertEqual(
                missed,
                [],
                "\(b.classification): R peaks not found; found \(a.beats.prefix(4)), true \(truth.prefix(4))"
            )
            XCTAssertLessThanOrEqual(
                abs(a.beats.count - truth.count),
                1,
                "\(b.classification): beats found (one may sit on an edge)"
            )
            XCTAssertEqual(Double(a.averageHeartRate), Double(b.averageHeartRate), accuracy: 3, "\(b.classification)")
        }
        // Sent as the watch sends its own: measured at the recording's start, after its 30 s.
        var replay = ScenarioRun(scenario: try TracedScenarioLoader.load(path: dir + "/replay.yaml"))
        var sent: [Reading] = []
        while let (reading, _) = replay.next() {
            if reading.kind == .ecg { sent.append(reading) }
        }
        XCTAssertEqual(sent.map(\.measuredAt), replayed.map(\.start))
        XCTAssertEqual(sent.map { $0.intendedEmitTime - $0.measuredAt }, replayed.map { _ in 30_000 })
    }

    func testBadRecordingsAreNamed() throws {
        let dir = Fixtures.temporaryDirectory("ecg-errors")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let text = "Recorded Date,yesterday\nClassification,Something Else\nSample Rate,512 hertz\nUnit,mV\n\n0.1\nx\n"
        try text.write(toFile: dir + "/ecg.csv", atomically: true, encoding: .utf8)
        let trace = DeviceTrace(path: dir + "/ecg.csv", format: .appleECG)
        XCTAssertThrowsError(try TracedScenarioLoader.samples(of: Array(text.utf8), trace: trace, type: .ecgWatch)) {
            error in
            let message = "\(error)"
            for expected in [
                "ecg.csv:1:1: error: Recorded Date: no date",
                "ecg.csv:2:1: error: Classification: 'Something Else' is not a classification",
                "ecg.csv:4:1: error: Unit: the voltages must be in µV, not 'mV'",
                "ecg.csv:7:1: error: voltage: 'x' is not a voltage",
            ] {
                XCTAssertTrue(message.contains(expected), "\(expected) in \(message)")
            }
        }
        let yaml =
            "name: t\nduration: 1d\npatients:\n  - id: p\n    profile: adult\n    devices:\n      - {id: w, type: thermometer, trace: {file: ecg.csv, format: apple-ecg}}\n"
        try yaml.write(toFile: dir + "/t.yaml", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try TracedScenarioLoader.load(path: dir + "/t.yaml")) { error in
            XCTAssertTrue(
                "\(error)".contains("an ecg-watch replays apple-ecg recordings, and only an ecg-watch does"),
                "\(error)"
            )
        }
    }
}
