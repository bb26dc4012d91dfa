import Foundation
import VitalSimCore

/// The values of a stored FHIR R4 `Observation` (`stored-readings.fields.values: fhir`): its
/// `valueQuantity` under its own code, and each `component`'s under the component's code, a code
/// being any `coding` of the LOINC system whose code this table knows (the vital-signs profile's
/// codes and common alternatives). The unit is the quantity's UCUM `code`, else its `unit`. A panel
/// code (blood pressure 85354-9) carries no value of its own; codes not known are ignored (an RR
/// interval component, a device's own codes).
package enum FHIRStoredValues {
    /// LOINC code → the signal it measures.
    package static let loinc: [String: Signal] = [
        "8867-4": .heartRate, "8889-8": .heartRate,
        "8480-6": .systolic, "8462-4": .diastolic,
        "2339-0": .glucose, "2345-7": .glucose, "15074-8": .glucose, "41653-7": .glucose,
        "99504-3": .cgm, "105272-9": .cgm,
        "59408-5": .spo2, "2708-6": .spo2, "20564-1": .spo2,
        "8310-5": .temperature, "8331-1": .temperature, "8332-9": .temperature, "8333-7": .temperature,
        "29463-7": .weight, "3141-9": .weight,
        "9279-1": .respirationRate,
        "55423-8": .steps, "41950-7": .steps,
        "41981-2": .calories,
    ]

    /// The LOINC system.
    static let system = "http://loinc.org"

    /// The values and units of one Observation, or why it has none that can be read.
    package static func read(
        _ item: Any
    ) -> Result<(values: [Signal: Double], units: [Signal: String]), UnreadableAlert> {
        guard let object = item as? [String: Any], object["resourceType"] as? String == "Observation" else {
            return .failure(UnreadableAlert(reason: "it is not a FHIR Observation"))
        }
        var values: [Signal: Double] = [:]
        var units: [Signal: String] = [:]
        var parts: [[String: Any]] = [object]
        parts += object["component"] as? [[String: Any]] ?? []
        for part in parts {
            guard let signal = signal(part["code"]), let quantity = part["valueQuantity"] as? [String: Any] else {
                continue
            }
            guard let number = quantity["value"] as? NSNumber, !FieldSpec.isBoolean(number), number.doubleValue.isFinite
            else {
                return .failure(UnreadableAlert(reason: "its \(signal.rawValue) valueQuantity has no numeric value"))
            }
            values[signal] = number.doubleValue
            if let unit = (quantity["code"] as? String) ?? (quantity["unit"] as? String) { units[signal] = unit }
        }
        guard !values.isEmpty else {
            return .failure(
                UnreadableAlert(
                    reason: "it has no value under a LOINC code VitalSim knows (docs/sut-profiles.md lists them)"
                )
            )
        }
        return .success((values, units))
    }

    /// The signal of a CodeableConcept: its first LOINC coding with a known code.
    static func signal(_ concept: Any?) -> Signal? {
        let codings = (concept as? [String: Any])?["coding"] as? [[String: Any]] ?? []
        for c in codings where (c["system"] as? String ?? system) == system {
            if let code = c["code"] as? String, let signal = loinc[code] { return signal }
        }
        return nil
    }
}
