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

    /// The record type a device type reads and the field it fills; nil for blood pressure (paired) and types Health has
    /// no record for.
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
        case ("heart-rate", "count/min"), ("respiration-rate", "count/min"), ("systolic", "mmHg"),
            ("diastolic", "mmHg"):
            value
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

    static func samples(_ text: String, trace: DeviceTrace, type: DeviceType) throws(ScenarioLoadError) -> [TraceSample]
    {
        var problems = TraceProblems(trace)
        guard type == .bpCuff || quantity(type) != nil else {
            problems.fail(line: 0, field: "", "Apple Health has no records a \(type.rawValue) sends")
            throw ScenarioLoadError(issues: problems.issues)
        }
        let reader = HealthRecordReader(type: type, source: trace.source)
        let xml: String
        switch HealthXMLText.elementsOnly(text) {
        case let .success(cleaned): xml = cleaned
        case let .failure(problem):
            problems.fail(line: problem.line, field: "", problem.message)
            throw ScenarioLoadError(issues: problems.issues)
        }
        // Fed as a stream (in chunks): libxml2 refuses a single chunk over 10 MB, and exports are larger.
        let parser = XMLParser(stream: InputStream(data: Data(xml.utf8)))
        parser.delegate = reader
        if !parser.parse() || parser.parserError != nil {
            problems.fail(
                line: parser.lineNumber,
                field: "",
                "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "parse error")"
            )
        } else if !reader.complete {
            problems.fail(
                line: parser.lineNumber,
                field: "",
                "not well-formed XML: the export ends before </HealthData> (cut short?)"
            )
        }
        for (line, field, message) in reader.problems { problems.fail(line: line, field: field, message) }
        let pairs = reader.unpairedPressures(&problems)
        try problems.check()
        return reader.samples + pairs
    }

    /// `2024-11-07 08:00:00 +0100` in Unix ms.
    static func unixMilliseconds(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 3, parts[2].count == 5 else { return nil }
        let zone = String(parts[2].prefix(3)) + ":" + String(parts[2].suffix(2))
        return CivilTime.unixMilliseconds(rfc3339: "\(parts[0])T\(parts[1])\(zone)")
    }
}
