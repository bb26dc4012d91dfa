import Foundation
import VitalSimCore

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An Apple Health `export.xml`: the `Record`s of the quantity the traced device measures, at their
/// `startDate` — heart rate (`HKQuantityTypeIdentifierHeartRate`), blood glucose (mg/dL or
/// mmol/L), oxygen saturation (a fraction, sent in %), body mass (kg or lb), body temperature (°C
/// or °F), respiratory rate, and blood pressure from its `HKCorrelationTypeIdentifierBloodPressure`
/// correlations (or systolic and diastolic records with one start date). `source` keeps only one
/// `sourceName` (an export mixes the phone's, the watch's and apps' records). Parsed with
/// Foundation's streaming XMLParser.
enum AppleHealthTrace {
    static let systolic = "HKQuantityTypeIdentifierBloodPressureSystolic"
    static let diastolic = "HKQuantityTypeIdentifierBloodPressureDiastolic"

    /// The record type a device type reads and the field it fills; nil for blood pressure (paired) and types Health has no record for.
    static func quantity(_ type: DeviceType) -> (record: String, field: String)? {
        switch type {
        case .heartRateStrap, .phoneBridge: ("HKQuantityTypeIdentifierHeartRate", "heart-rate")
        case .glucometer: ("HKQuantityTypeIdentifierBloodGlucose", "glucose")
        case .cgm: ("HKQuantityTypeIdentifierBloodGlucose", "cgm")
        case .pulseOximeter: ("HKQuantityTypeIdentifierOxygenSaturation", "spo2")
        case .thermometer: ("HKQuantityTypeIdentifierBodyTemperature", "temperature")
        case .weightScale: ("HKQuantityTypeIdentifierBodyMass", "weight")
        case .respirationMonitor: ("HKQuantityTypeIdentifierRespiratoryRate", "respiration-rate")
        case .bpCuff, .feedingLog, .symptomDiary, .ecgWatch, .equipmentLog: nil
        }
    }

    /// A record's value in the unit VitalSim's field uses; nil for a unit it does not know.
    static func convert(_ value: Double, unit: String, field: String) -> Double? {
        switch (field, unit) {
        case ("heart-rate", "count/min"), ("respiration-rate", "count/min"), ("systolic", "mmHg"), ("diastolic", "mmHg"): value
        case ("glucose", "mg/dL"), ("cgm", "mg/dL"): value
        case ("glucose", _) where unit.hasPrefix("mmol"), ("cgm", _) where unit.hasPrefix("mmol"):
            (value * ClarityTrace.mmolToMgdl).rounded()
        case ("spo2", "%"): value <= 1 ? value * 100 : value
        case ("temperature", "degC"): value
        case ("temperature", "degF"): (value - 32) * 5 / 9
        case ("weight", "kg"): value
        case ("weight", "lb"): value * 0.453_592_37
        case ("weight", "g"): value / 1000
        default: nil
        }
    }

    static func samples(_ text: String, trace: DeviceTrace, type: DeviceType) throws(ScenarioLoadError) -> [TraceSample] {
        var problems = TraceProblems(trace)
        guard type == .bpCuff || quantity(type) != nil else {
            problems.fail(line: 0, field: "", "Apple Health has no records a \(type.rawValue) sends")
            throw ScenarioLoadError(issues: problems.issues)
        }
        let reader = HealthRecordReader(type: type, source: trace.source)
        let parser = XMLParser(data: Data(withoutDoctype(text).utf8))
        parser.delegate = reader
        if !parser.parse() || parser.parserError != nil {
            problems.fail(line: parser.lineNumber, field: "", "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "parse error")")
        } else if !reader.complete {
            problems.fail(line: parser.lineNumber, field: "", "not well-formed XML: the export ends before </HealthData> (cut short?)")
        }
        for (line, field, message) in reader.problems { problems.fail(line: line, field: field, message) }
        let pairs = reader.unpairedPressures(&problems)
        try problems.check()
        return reader.samples + pairs
    }

    /// The text with its document type declaration blanked out (line breaks kept, so lines still
    /// count): exports carry an internal DTD whose attribute declarations crash swift-corelibs-
    /// foundation's XMLParser (a NULL default value passed to strlen, Swift 6.3 on Linux), and the
    /// declaration is not needed to read the records (nor are its entities wanted).
    static func withoutDoctype(_ text: String) -> String {
        guard let start = text.range(of: "<!DOCTYPE") else { return text }
        var end = text[start.upperBound...].firstIndex(of: ">") ?? text.endIndex
        if let bracket = text[start.upperBound..<end].firstIndex(of: "[") {
            // The internal subset ends at the first "]" followed by ">" (declarations inside hold ">").
            end = text.endIndex
            if let close = text[bracket...].range(of: "]")?.upperBound, let gt = text[close...].firstIndex(of: ">") { end = gt }
        }
        let last = end < text.endIndex ? end : text.index(before: text.endIndex)
        let blank = String(text[start.lowerBound...last].map { $0 == "\n" ? "\n" : " " })
        return text.replacingCharacters(in: start.lowerBound...last, with: blank)
    }

    /// `2024-11-07 08:00:00 +0100` in Unix ms.
    static func unixMilliseconds(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 3, parts[2].count == 5 else { return nil }
        let zone = String(parts[2].prefix(3)) + ":" + String(parts[2].suffix(2))
        return CivilTime.unixMilliseconds(rfc3339: "\(parts[0])T\(parts[1])\(zone)")
    }
}
