import VitalSimCore

/// Places a recording's samples in scenario time: in time order, the first at the trace's `at`,
/// each checked against what the device type reads (every required field, in range, as a scripted
/// reading would be) and against the scenario's end. Two samples at one instant with the same
/// values are one reading (exports repeat them); with different values they are an error naming
/// both lines, never a silent choice.
enum TracePlacement {
    static func readings(
        of device: DeviceSpec,
        trace: DeviceTrace,
        in scenario: Scenario
    ) throws(ScenarioLoadError) -> [ScriptedReading] {
        var problems = TraceProblems(trace)
        try refuseScripts(of: device, in: scenario)
        let raw = try TracedScenarioLoader.samples(
            trace,
            type: device.type,
            deviceID: device.id,
            scenarioPath: scenario.sourcePath
        )
        guard let first = raw.min(by: { $0.time < $1.time }) else {
            let issue = ScenarioIssue(
                file: scenario.sourcePath,
                line: trace.line,
                column: 1,
                field: trace.field,
                message:
                    "the trace \(trace.file) holds no readings a \(device.type.rawValue) sends (\(trace.format.rawValue))"
            )
            throw ScenarioLoadError(issues: [issue])
        }
        let samples = distinct(
            raw.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element),
            &problems
        )
        let fields = ScriptedReading.fields(of: device.type) ?? ([], [:], [:])
        let ranges = fields.ranges.merging(fields.optional) { a, _ in a }
        var out: [ScriptedReading] = []
        var previous: (time: Int64, cgm: Double)?
        for s in samples {
            let time = trace.at + (s.time - first.time)
            if time >= scenario.duration.milliseconds {
                let at = VirtualDuration(milliseconds: time)
                problems.fail(
                    line: s.line,
                    field: "time",
                    "this reading falls \(at) into the scenario, past its end (\(scenario.duration)); lengthen the duration"
                )
                break
            }
            for name in fields.required where s.values[name] == nil {
                problems.fail(line: s.line, field: name, "no \(name) value")
            }
            for (name, v) in s.values.sorted(by: { $0.key < $1.key }) {
                guard let range = ranges[name] else { continue }
                if !range.contains(v) {
                    problems.fail(
                        line: s.line,
                        field: name,
                        "\(v) is outside \(range.lowerBound)...\(range.upperBound)"
                    )
                }
            }
            var reading = ScriptedReading(
                deviceID: device.id,
                start: time,
                values: s.values,
                to: nil,
                count: 1,
                every: 60_000,
                line: s.line
            )
            if let cgm = s.values["cgm"] {
                // A CGM's trend from its previous reading, when that is at most 15 minutes old.
                if let p = previous, time - p.time <= 900_000, time > p.time {
                    reading.trend = ((cgm - p.cgm) / (Double(time - p.time) / 60_000) * 10).rounded() / 10
                }
                previous = (time, cgm)
            }
            out.append(reading)
        }
        try problems.check()
        return out
    }

    /// An ECG watch's recordings in scenario time: the earliest at the trace's `at`, each ending
    /// before the scenario does, no two at one start.
    static func electrocardiograms(
        of device: DeviceSpec,
        trace: DeviceTrace,
        in scenario: Scenario
    ) throws(ScenarioLoadError)
        -> [DeviceTrace.Electrocardiogram]
    {
        let found = try AppleECGTrace.recordings(trace).sorted { $0.time < $1.time }
        guard let first = found.first else {
            let issue = ScenarioIssue(
                file: scenario.sourcePath,
                line: trace.line,
                column: 1,
                field: trace.field,
                message: "the trace \(trace.file) holds no ECG recordings (ecg_*.csv)"
            )
            throw ScenarioLoadError(issues: [issue])
        }
        var issues: [ScenarioIssue] = []
        var out: [DeviceTrace.Electrocardiogram] = []
        for r in found {
            let start = trace.at + (r.time - first.time)
            let issue = { (message: String) in
                ScenarioIssue(file: r.file, line: 0, column: 0, field: "Recorded Date", message: message)
            }
            if start + r.recording.durationMilliseconds >= scenario.duration.milliseconds {
                issues.append(
                    issue(
                        "this recording ends \(VirtualDuration(milliseconds: start + r.recording.durationMilliseconds)) into the scenario, past its end (\(scenario.duration))"
                    )
                )
            } else if let last = out.last, start < last.start + last.recording.durationMilliseconds {
                issues.append(issue("this recording overlaps \(last.file)"))
            } else {
                out.append(DeviceTrace.Electrocardiogram(start: start, recording: r.recording, file: r.file))
            }
        }
        if !issues.isEmpty { throw ScenarioLoadError(issues: issues) }
        return out
    }

    /// A traced device's readings are its recording's: a script on it is an error at the script's line.
    static func refuseScripts(of device: DeviceSpec, in scenario: Scenario) throws(ScenarioLoadError) {
        for entry in scenario.timeline {
            guard case let .scripted(s) = entry, s.deviceID == device.id else { continue }
            let issue = ScenarioIssue(
                file: scenario.sourcePath,
                line: s.line,
                column: 1,
                field: "timeline",
                message: "device \(device.id) sends its trace; it cannot also be scripted"
            )
            throw ScenarioLoadError(issues: [issue])
        }
    }

    /// The samples with repeats of one instant and value merged; conflicting ones reported.
    static func distinct(_ sorted: [TraceSample], _ problems: inout TraceProblems) -> [TraceSample] {
        var out: [TraceSample] = []
        for s in sorted {
            if let last = out.last, last.time == s.time {
                if last.values != s.values {
                    problems.fail(
                        line: s.line,
                        field: "time",
                        "a second reading at the same time as line \(last.line), with other values"
                    )
                }
                continue
            }
            out.append(s)
        }
        return out
    }
}
