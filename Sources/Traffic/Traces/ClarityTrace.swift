import SwiftCSV
import VitalSimCore

/// A Dexcom Clarity CSV export: the columns `Timestamp (YYYY-MM-DDThh:mm:ss)`, `Event Type` and
/// `Glucose Value (mg/dL)` (or `(mmol/L)`), found by name wherever they are. A CGM takes the `EGV`
/// rows (estimated glucose values), a glucometer the `Calibration` rows (fingersticks); the
/// metadata rows (patient, device, alert settings: no time stamp) and the other events (insulin,
/// carbs, exercise, alerts) are not readings of either. `Low` and `High` are the sensor's limits and
/// are sent as 40 and 400 mg/dL, as a CGM clamps them. Time stamps are local time without an offset:
/// the trace's `utc-offset` places them (default UTC).
enum ClarityTrace {
    static let mmolToMgdl = 18.0156

    static func samples(_ text: String, trace: DeviceTrace, type: DeviceType) throws(ScenarioLoadError) -> [TraceSample]
    {
        var problems = TraceProblems(trace)
        guard type == .cgm || type == .glucometer else {
            problems.fail(
                line: 0,
                field: "",
                "a Dexcom Clarity export holds CGM and fingerstick readings: trace it on a cgm or a glucometer"
            )
            throw ScenarioLoadError(issues: problems.issues)
        }
        let table = try TraceCSV.parse(text, trace: trace)
        let header = table.header.map { $0.trimmingWhitespace() }
        let time = header.firstIndex { $0.hasPrefix("Timestamp") }
        let event = header.firstIndex(of: "Event Type")
        let mgdl = header.firstIndex(of: "Glucose Value (mg/dL)")
        let mmol = header.firstIndex(of: "Glucose Value (mmol/L)")
        guard let time, let event, let glucose = mgdl ?? mmol else {
            problems.fail(
                line: 1,
                field: "",
                "not a Dexcom Clarity export: no 'Timestamp (…)', 'Event Type' and 'Glucose Value (mg/dL)' or '(mmol/L)' columns"
            )
            throw ScenarioLoadError(issues: problems.issues)
        }
        let wanted = type == .cgm ? "EGV" : "Calibration"
        let field = type == .cgm ? "cgm" : "glucose"
        var out: [TraceSample] = []
        for (index, row) in table.rows.enumerated() {
            let line = index + 2
            guard max(time, event, glucose) < row.count, row[event].trimmingWhitespace() == wanted else { continue }
            let stamp = row[time].trimmingWhitespace()
            guard let ms = unixMilliseconds(stamp, offsetMinutes: trace.utcOffsetMinutes) else {
                problems.fail(line: line, field: header[time], "'\(stamp)' is not a time stamp YYYY-MM-DDThh:mm:ss")
                continue
            }
            let cell = row[glucose].trimmingWhitespace()
            var value: Double?
            switch cell {
            case "Low": value = type == .cgm ? 40 : nil
            case "High": value = type == .cgm ? 400 : nil
            default: value = Double(cell).map { mgdl == nil ? ($0 * mmolToMgdl).rounded() : $0 }
            }
            guard let value else {
                problems.fail(line: line, field: header[glucose], "'\(cell)' is not a glucose value")
                continue
            }
            out.append(TraceSample(time: ms, values: [field: value], line: line))
        }
        try problems.check()
        return out
    }

    /// `2024-11-07T08:05:00` (or with a space, or an hour of one digit, as spreadsheets rewrite it)
    /// at `offsetMinutes` from UTC.
    static func unixMilliseconds(_ text: String, offsetMinutes: Int) -> Int64? {
        var parts = text.split(whereSeparator: { $0 == "T" || $0 == " " }).map(String.init)
        guard parts.count == 2 else { return nil }
        var clock = parts[1].split(separator: ":").map(String.init)
        guard clock.count == 3 || clock.count == 2 else { return nil }
        if clock.count == 2 { clock.append("00") }
        clock = clock.map { $0.count == 1 ? "0" + $0 : $0 }
        parts[1] = clock.joined(separator: ":")
        let sign = offsetMinutes < 0 ? "-" : "+"
        let minutes = abs(offsetMinutes)
        let zone =
            sign + (minutes / 60 < 10 ? "0" : "") + String(minutes / 60) + ":" + (minutes % 60 < 10 ? "0" : "")
            + String(minutes % 60)
        return CivilTime.unixMilliseconds(rfc3339: parts[0] + "T" + parts[1] + zone)
    }
}
