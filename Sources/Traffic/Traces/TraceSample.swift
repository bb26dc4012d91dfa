import VitalSimCore

/// One reading of a recording before it is placed in scenario time: its time in the recording
/// (Unix ms, or ms from the recording's zero), its values by scripted-reading field (`heart-rate`,
/// `systolic`, `cgm`, …) and where it is in the file.
struct TraceSample: Sendable, Equatable {
    var time: Int64
    var values: [String: Double]
    /// 1-based line of a text file, or record number of a capture.
    var line: Int
}

/// Where a trace's problems are reported: the trace file, at a line, naming a field.
struct TraceProblems {
    let trace: DeviceTrace
    var issues: [ScenarioIssue] = []

    init(_ trace: DeviceTrace) { self.trace = trace }

    /// A problem in the trace file at `line` (0 when it concerns the whole file).
    mutating func fail(line: Int, field: String, _ message: String) {
        guard issues.count < 100 else { return }
        issues.append(
            ScenarioIssue(file: trace.path, line: line, column: line > 0 ? 1 : 0, field: field, message: message)
        )
    }

    /// Throws what was found, if anything.
    func check() throws(ScenarioLoadError) {
        if !issues.isEmpty { throw ScenarioLoadError(issues: issues) }
    }
}
