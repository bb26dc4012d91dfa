import Foundation
import VitalSimCore

/// Scenario files with their traces read: what every command that generates traffic loads.
public enum TracedScenarioLoader {
    /// Loads the scenario at `path` (``ScenarioLoader``) and reads the recording of each device
    /// with a `trace:` into its readings, placed in scenario time; every problem names the trace
    /// file, line and field, or the scenario's `trace:` line.
    public static func load(path: String) throws(ScenarioLoadError) -> Scenario {
        var scenario = try ScenarioLoader.load(path: path)
        try resolveTraces(&scenario)
        return scenario
    }

    /// Reads the traces of a loaded scenario (a no-op without any).
    public static func resolveTraces(_ scenario: inout Scenario) throws(ScenarioLoadError) {
        var issues: [ScenarioIssue] = []
        let original = scenario
        for p in original.patients.indices {
            for (d, device) in original.patients[p].devices.enumerated() {
                guard let trace = device.trace else { continue }
                do throws(ScenarioLoadError) {
                    if trace.format == .appleECG {
                        let recordings = try TracePlacement.electrocardiograms(of: device, trace: trace, in: original)
                        scenario.patients[p].devices[d].trace?.electrocardiograms = recordings
                    } else {
                        let readings = try TracePlacement.readings(of: device, trace: trace, in: original)
                        scenario.patients[p].devices[d].trace?.readings = readings
                    }
                } catch { issues += error.issues }
            }
        }
        if !issues.isEmpty { throw ScenarioLoadError(issues: issues) }
    }

    /// The samples of a trace file in its format, for a device of `type` with id `deviceID`.
    static func samples(
        _ trace: DeviceTrace,
        type: DeviceType,
        deviceID: String,
        scenarioPath: String
    ) throws(ScenarioLoadError)
        -> [TraceSample]
    {
        if trace.format == .btsnoop {
            guard let data = FileManager.default.contents(atPath: trace.path) else {
                throw unreadable(trace, scenarioPath)
            }
            return try BTSnoopTrace.samples([UInt8](data), trace: trace, type: type)
        }
        let text: String
        do { text = try FileText.read(trace.path) } catch {
            if case let .notUTF8(_, line, column, _) = error {
                throw ScenarioLoadError(issues: [
                    ScenarioIssue(file: trace.path, line: line, column: column, field: "", message: "\(error)")
                ])
            }
            throw unreadable(trace, scenarioPath)
        }
        return try parse(text, trace: trace, type: type, deviceID: deviceID)
    }

    /// The samples of a recording's bytes in `trace`'s format (no file read): how many, or the
    /// problems as an error. What the fuzzer feeds hostile recordings to.
    public static func samples(
        of bytes: [UInt8],
        trace: DeviceTrace,
        type: DeviceType,
        deviceID: String = "d"
    ) throws(ScenarioLoadError)
        -> Int
    {
        if trace.format == .btsnoop { return try BTSnoopTrace.samples(bytes, trace: trace, type: type).count }
        if trace.format == .appleECG {
            guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
            return try AppleECGTrace.recording(text, trace: trace).recording.beats.count
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
        return try parse(text, trace: trace, type: type, deviceID: deviceID).count
    }

    static func parse(
        _ text: String,
        trace: DeviceTrace,
        type: DeviceType,
        deviceID: String
    ) throws(ScenarioLoadError) -> [TraceSample] {
        switch trace.format {
        case .readingsJSONL: return try JSONLTrace.samples(text, trace: trace, type: type, deviceID: deviceID)
        case .csv: return try CSVTrace.samples(text, trace: trace, type: type)
        case .dexcomClarity: return try ClarityTrace.samples(text, trace: trace, type: type)
        case .appleHealth: return try AppleHealthTrace.samples(text, trace: trace, type: type)
        case .btsnoop, .appleECG: return []
        }
    }

    static func unreadable(_ trace: DeviceTrace, _ scenarioPath: String) -> ScenarioLoadError {
        ScenarioLoadError(issues: [
            ScenarioIssue(
                file: scenarioPath,
                line: trace.line,
                column: 1,
                field: trace.field + ".file",
                message: "cannot read the trace file \(trace.path)"
            )
        ])
    }
}
