import SwiftCSV
import VitalSimCore

/// The documented CSV trace (docs/scenarios.md): a header row with `time` and the device type's
/// scripted-reading fields (`heart-rate`; `systolic`, `diastolic`, `pulse`; `cgm`; …), then one
/// reading per row. `time` is RFC 3339 (`2024-11-07T08:00:00Z`, any offset) or a duration from
/// the recording's zero (`90s`, `1h30m`), the same form in every row; an empty optional cell is
/// left out. Unknown columns, missing required ones and cells that are not numbers are errors
/// naming the line and column.
enum CSVTrace {
    static func samples(_ text: String, trace: DeviceTrace, type: DeviceType) throws(ScenarioLoadError) -> [TraceSample]
    {
        var problems = TraceProblems(trace)
        let table = try TraceCSV.parse(text, trace: trace)
        let fields = ScriptedReading.fields(of: type) ?? ([], [:], [:])
        let names = fields.required + fields.optional.keys.sorted()
        let header = table.header.map { $0.trimmingWhitespace() }
        guard let timeColumn = header.firstIndex(of: "time") else {
            problems.fail(line: 1, field: "time", "the header names no 'time' column")
            throw ScenarioLoadError(issues: problems.issues)
        }
        for (i, name) in header.enumerated() where i != timeColumn && !names.contains(name) {
            problems.fail(
                line: 1,
                field: name,
                "not a field of a \(type.rawValue); valid: time, \(names.joined(separator: ", "))"
            )
        }
        for name in fields.required where !header.contains(name) {
            problems.fail(line: 1, field: name, "no '\(name)' column")
        }
        try problems.check()
        var out: [TraceSample] = []
        var relative: Bool?
        for (index, row) in table.rows.enumerated() {
            let line = index + 2
            let cell = timeColumn < row.count ? row[timeColumn].trimmingWhitespace() : ""
            let absolute = CivilTime.unixMilliseconds(rfc3339: cell)
            let offset = absolute == nil ? VirtualDuration(parsing: cell)?.milliseconds : nil
            guard let time = absolute ?? offset else {
                problems.fail(line: line, field: "time", "'\(cell)' is neither an RFC 3339 time stamp nor a duration")
                continue
            }
            if let relative, relative != (absolute == nil) {
                problems.fail(line: line, field: "time", "mixes time stamps and durations; use one form throughout")
            }
            relative = absolute == nil
            var values: [String: Double] = [:]
            for (i, name) in header.enumerated() where i != timeColumn && i < row.count {
                let text = row[i].trimmingWhitespace()
                if text.isEmpty { continue }
                guard let value = Double(text), value.isFinite else {
                    problems.fail(line: line, field: name, "'\(text)' is not a number")
                    continue
                }
                values[name] = value
            }
            out.append(TraceSample(time: time, values: values, line: line))
        }
        try problems.check()
        return out
    }
}

/// CSV text as SwiftCSV parses it (byte-order mark dropped, quoted fields), its syntax errors
/// reported in the trace file.
enum TraceCSV {
    static func parse(_ text: String, trace: DeviceTrace) throws(ScenarioLoadError) -> EnumeratedCSV {
        do { return try EnumeratedCSV(string: text, delimiter: .comma, loadColumns: false) } catch {
            var problems = TraceProblems(trace)
            problems.fail(line: 0, field: "", "not CSV: \(error)")
            throw ScenarioLoadError(issues: problems.issues)
        }
    }
}
