import Foundation
import VitalSimCore

/// VitalSim's own `readings.jsonl` (`vitalsim generate`): the lines of one device (`from-device`,
/// default the traced device's id) whose `kind` is the traced type's measurement, each reading id
/// once, at its `measuredAt`. Battery lines are the device's own and are not replayed (the traced
/// device reports its battery as any device does); a breastfeed has no volume to send and is an
/// error.
enum JSONLTrace {
    /// The `kind` a device type's measurements have in the file, and the file's names of its fields.
    static func mapping(_ type: DeviceType) -> (kind: String, fields: [(json: String, field: String)]) {
        switch type {
        case .heartRateStrap, .phoneBridge: ("heart-rate", [("heartRate", "heart-rate")])
        case .bpCuff:
            ("blood-pressure", [("systolic", "systolic"), ("diastolic", "diastolic"), ("pulseRate", "pulse")])
        case .glucometer: ("glucose", [("glucose", "glucose")])
        case .cgm: ("cgm", [("glucose", "cgm")])
        case .pulseOximeter: ("spo2", [("spo2", "spo2"), ("pulseRate", "pulse")])
        case .thermometer: ("temperature", [("temperature", "temperature")])
        case .weightScale: ("weight", [("weight", "weight")])
        case .respirationMonitor: ("respiration-rate", [("respirationRate", "respiration-rate")])
        case .feedingLog: ("feeding", [("volume", "feeding")])
        case .symptomDiary, .ecgWatch, .equipmentLog: ("", [])
        }
    }

    static func samples(
        _ text: String,
        trace: DeviceTrace,
        type: DeviceType,
        deviceID: String
    ) throws(ScenarioLoadError) -> [TraceSample] {
        var problems = TraceProblems(trace)
        let (kind, fields) = mapping(type)
        let device = trace.fromDevice ?? deviceID
        var seen: Set<String> = []
        var out: [TraceSample] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            if raw.allSatisfy(\.isWhitespace) { continue }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(raw.utf8))) as? [String: Any] else {
                problems.fail(line: line, field: "", "not a JSON object")
                continue
            }
            guard object["device"] as? String == device, object["kind"] as? String == kind else { continue }
            if let id = object["id"] as? String, !seen.insert(id).inserted { continue }
            if object["method"] as? String == "breast" {
                problems.fail(line: line, field: "method", "a breastfeed has no volume to replay")
                continue
            }
            guard let stamp = object["measuredAt"] as? String, let time = CivilTime.unixMilliseconds(rfc3339: stamp)
            else {
                problems.fail(line: line, field: "measuredAt", "no RFC 3339 time stamp")
                continue
            }
            var values: [String: Double] = [:]
            for (json, field) in fields {
                if let number = object[json] as? NSNumber { values[field] = number.doubleValue }
            }
            out.append(TraceSample(time: time, values: values, line: line))
        }
        try problems.check()
        return out
    }
}
