import Foundation
import VitalSimCore

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The XMLParser delegate of ``AppleHealthTrace``: collects the records of one device type.
final class HealthRecordReader: NSObject, XMLParserDelegate {
    let type: DeviceType
    let source: String?
    var samples: [TraceSample] = []
    var problems: [(Int, String, String)] = []
    /// Blood pressure: the correlation being read (its start and line), and standalone records by start date.
    var correlation: (time: Int64, line: Int, values: [String: Double])?
    var loose: [Int64: (line: Int, values: [String: Double])] = [:]
    /// Whether `</HealthData>` was read: a truncated export (an interrupted download) is not one.
    var complete = false

    init(type: DeviceType, source: String?) {
        self.type = type
        self.source = source
    }

    func parser(
        _ parser: XMLParser,
        didStartElement element: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let line = parser.lineNumber
        if element == "Correlation", attributes["type"] == "HKCorrelationTypeIdentifierBloodPressure", type == .bpCuff,
            accepts(attributes)
        {
            guard let time = attributes["startDate"].flatMap(AppleHealthTrace.unixMilliseconds) else {
                problems.append((line, "startDate", "no start date 'YYYY-MM-DD hh:mm:ss ±hhmm'"))
                return
            }
            correlation = (time, line, [:])
            return
        }
        guard element == "Record", let recordType = attributes["type"], accepts(attributes) else { return }
        if type == .bpCuff {
            guard recordType == AppleHealthTrace.systolic || recordType == AppleHealthTrace.diastolic else { return }
            pressure(recordType == AppleHealthTrace.systolic ? "systolic" : "diastolic", attributes, line: line)
            return
        }
        guard let (record, field) = AppleHealthTrace.quantity(type), record == recordType else { return }
        guard let (time, value) = measurement(attributes, field: field, line: line) else { return }
        samples.append(TraceSample(time: time, values: [field: value], line: line))
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "HealthData" { complete = true }
        guard element == "Correlation", let open = correlation else { return }
        correlation = nil
        samples.append(TraceSample(time: open.time, values: open.values, line: open.line))
    }

    func accepts(_ attributes: [String: String]) -> Bool { source == nil || attributes["sourceName"] == source }

    /// A record's start and value in VitalSim's unit, or nil with the problem noted.
    func measurement(_ attributes: [String: String], field: String, line: Int) -> (Int64, Double)? {
        guard let time = attributes["startDate"].flatMap(AppleHealthTrace.unixMilliseconds) else {
            problems.append((line, "startDate", "no start date 'YYYY-MM-DD hh:mm:ss ±hhmm'"))
            return nil
        }
        let unit = attributes["unit"] ?? ""
        guard let raw = attributes["value"].flatMap(Double.init), raw.isFinite else {
            problems.append((line, "value", "'\(attributes["value"] ?? "")' is not a number"))
            return nil
        }
        guard let value = AppleHealthTrace.convert(raw, unit: unit, field: field) else {
            problems.append((line, "unit", "unit '\(unit)' is not one VitalSim converts for \(field)"))
            return nil
        }
        return (time, value)
    }

    /// A systolic or diastolic record: part of the correlation being read, or standalone (paired by start date).
    func pressure(_ field: String, _ attributes: [String: String], line: Int) {
        guard let (time, value) = measurement(attributes, field: field, line: line) else { return }
        if correlation != nil {
            correlation?.values[field] = value
            return
        }
        var entry = loose[time] ?? (line, [:])
        entry.values[field] = value
        loose[time] = entry
    }

    /// Standalone pressures that were paired, as samples; one without its partner is a problem.
    func unpairedPressures(_ problems: inout TraceProblems) -> [TraceSample] {
        var out: [TraceSample] = []
        for (time, entry) in loose.sorted(by: { $0.key < $1.key }) {
            if entry.values.count == 2 {
                out.append(TraceSample(time: time, values: entry.values, line: entry.line))
            } else {
                problems.fail(
                    line: entry.line,
                    field: "type",
                    "a blood pressure needs a systolic and a diastolic record with one start date"
                )
            }
        }
        return out
    }
}
