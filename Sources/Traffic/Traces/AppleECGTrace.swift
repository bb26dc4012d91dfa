import Foundation
import VitalSimCore

/// Apple Health's ECG export (`electrocardiograms/ecg_YYYY-MM-DD.csv`, one recording a file; the
/// trace's `file` is one of them or their folder): a header of `key,value` lines — `Recorded
/// Date` (`2024-11-07 09:12:35 +0100`), `Classification` (`Sinus Rhythm`, `Atrial Fibrillation`,
/// `Inconclusive`, `Heart Rate Under 50`, `Heart Rate Over 120`/`150`, `Poor Recording`),
/// `Symptoms`, `Sample Rate` (`512 hertz`), `Lead`, `Unit` (`µV`) — then one voltage a line. The
/// export carries no average heart rate: it is counted from the R peaks found in the waveform
/// (``RPeaks``).
enum AppleECGTrace {
    struct Recording {
        var time: Int64
        var recording: ECGRecording
        var file: String
    }

    /// The recordings of the trace's file, or of every `.csv` file in its folder (in name order).
    static func recordings(_ trace: DeviceTrace) throws(ScenarioLoadError) -> [Recording] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: trace.path, isDirectory: &isFolder) else {
            var problems = TraceProblems(trace)
            problems.fail(line: 0, field: "", "no such file or folder")
            throw ScenarioLoadError(issues: problems.issues)
        }
        let names =
            isFolder.boolValue
            ? ((try? FileManager.default.contentsOfDirectory(atPath: trace.path)) ?? []).filter { $0.hasSuffix(".csv") }
                .sorted() : [""]
        var out: [Recording] = []
        var issues: [ScenarioIssue] = []
        for name in names {
            var file = trace
            file.path = name.isEmpty ? trace.path : trace.path + "/" + name
            do throws(ScenarioLoadError) {
                let text: String
                do { text = try FileText.read(file.path) } catch {
                    var problems = TraceProblems(file)
                    problems.fail(line: 0, field: "", "\(error)")
                    throw ScenarioLoadError(issues: problems.issues)
                }
                out.append(try recording(text, trace: file))
            } catch { issues += error.issues }
        }
        if !issues.isEmpty { throw ScenarioLoadError(issues: issues) }
        return out
    }

    /// One export file's recording.
    static func recording(_ text: String, trace: DeviceTrace) throws(ScenarioLoadError) -> Recording {
        var problems = TraceProblems(trace)
        var header: [String: (value: String, line: Int)] = [:]
        var microvolts: [Int16] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            if let comma = line.firstIndex(of: ","), Double(line) == nil {
                let key = String(line[..<comma])
                let value = String(line[line.index(after: comma)...]).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\" ")
                )
                header[key] = (value, index + 1)
                continue
            }
            guard let v = Double(line), v.isFinite, abs(v) <= 32_767 else {
                problems.fail(line: index + 1, field: "voltage", "'\(line)' is not a voltage in µV")
                continue
            }
            microvolts.append(Int16(v.rounded()))
        }
        let date = header["Recorded Date"]
        let time = date.flatMap { AppleHealthTrace.unixMilliseconds($0.value) }
        if time == nil {
            problems.fail(line: date?.line ?? 1, field: "Recorded Date", "no date 'YYYY-MM-DD hh:mm:ss ±hhmm'")
        }
        let classified = header["Classification"]
        let classification = classified.flatMap { Self.classification($0.value) }
        if classification == nil {
            problems.fail(
                line: classified?.line ?? 1,
                field: "Classification",
                "'\(classified?.value ?? "")' is not a classification VitalSim knows"
            )
        }
        let rate = header["Sample Rate"].flatMap { Int($0.value.split(separator: " ").first ?? "") } ?? 0
        if !(100...2000).contains(rate) {
            problems.fail(
                line: header["Sample Rate"]?.line ?? 1,
                field: "Sample Rate",
                "no sample rate in hertz (e.g. '512 hertz')"
            )
        }
        if let unit = header["Unit"], unit.value != "µV" {
            problems.fail(line: unit.line, field: "Unit", "the voltages must be in µV, not '\(unit.value)'")
        }
        if microvolts.count < rate {
            problems.fail(
                line: 0,
                field: "voltage",
                "\(microvolts.count) samples: a recording of at least one second is needed"
            )
        }
        try problems.check()
        let beats = RPeaks.detect(microvolts, samplingFrequency: rate)
        let span = (beats.last ?? 0) - (beats.first ?? 0)
        let average = beats.count > 1 && span > 0 ? Int((Double(beats.count - 1) * 60_000 / span).rounded()) : 0
        let symptoms = header["Symptoms"]?.value ?? ""
        let recording = ECGRecording(
            classification: classification ?? .inconclusiveOther,
            averageHeartRate: average,
            samplingFrequency: rate,
            microvolts: microvolts,
            symptomatic: !symptoms.isEmpty,
            beats: beats
        )
        return Recording(time: time ?? 0, recording: recording, file: trace.path)
    }

    /// The app's words as HealthKit's classification.
    static func classification(_ text: String) -> ECGClassification? {
        let lowered = text.lowercased()
        if lowered.contains("sinus") { return .sinusRhythm }
        if lowered.contains("atrial fibrillation") { return .atrialFibrillation }
        if lowered.contains("under 50") || lowered.contains("low heart rate") { return .inconclusiveLowHeartRate }
        if lowered.contains("over 1") || lowered.contains("high heart rate") { return .inconclusiveHighHeartRate }
        if lowered.contains("poor") { return .inconclusivePoorReading }
        if lowered.contains("inconclusive") || lowered.contains("unclassified") { return .inconclusiveOther }
        return nil
    }
}
