import Foundation
import Traffic
import VitalSimCore

/// The values of a stored FHIR R4 `Observation` (`stored-readings.fields.values: fhir`), read back
/// in every form VitalSim writes (``FHIRObservationJSON``) and the common alternatives:
///
/// - a vital sign's `valueQuantity` under its LOINC code, and each `component`'s under the
///   component's (blood pressure's panel 85354-9 carries no value of its own);
/// - a battery level under IEEE 11073 `MDC_ATTR_VAL_BATT_CHARGE` (67996), home oxygen flow under
///   LOINC 3151-8, feeds and equipment settings under VitalSim's own codes;
/// - an ECG (LOINC 11524-6): its average rate (component 8867-4) and its rhythm from the
///   classification it is coded with (VitalSim's, or SNOMED CT sinus rhythm / atrial fibrillation);
/// - a reported symptom: its SNOMED CT finding, the severity its SNOMED CT qualifier.
///
/// A code is any `coding` of its system (a LOINC coding may leave the system out). The unit is the
/// quantity's UCUM `code`, else its `unit`. Components VitalSim does not know (an RR interval, an
/// ECG lead's waveform, an equipment action) are passed over. An Observation of a code VitalSim
/// neither sends nor knows is not one of its readings: ``Read/notAReading(_:)``, never judged (a
/// reading the SUT recoded that way is then missing, and reported lost).
package enum FHIRStoredValues {
    /// What one stored Observation is.
    package enum Read: Equatable {
        /// A reading's values by signal and the unit of each that names one.
        case values([Signal: Double], units: [Signal: String])
        /// Not a reading VitalSim sends (an Observation of another code, an `OperationOutcome` a
        /// searchset carries): why.
        case notAReading(String)
    }

    /// LOINC code → the signal its `valueQuantity` measures.
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
        "3151-8": .oxygenFlow,
    ]

    /// Codes of other systems → the signal their `valueQuantity` measures.
    static let otherCodes: [Coding: Signal] = [
        Coding(FHIRObservationJSON.mdc, "67996"): .battery,
        Coding(FHIRObservationJSON.vitalsimCodes, "feeding"): .feeding,
        Coding(FHIRObservationJSON.vitalsimCodes, "breastfeeding"): .breastfeeding,
        Coding(FHIRObservationJSON.vitalsimCodes, "ng-tube-size"): .ngTubeSize,
        Coding(FHIRObservationJSON.vitalsimCodes, "feeding-pump-rate"): .feedingPumpRate,
    ]

    /// The LOINC system.
    static let system = "http://loinc.org"

    /// One coding: its system and code.
    struct Coding: Hashable {
        var system: String
        var code: String

        init(_ system: String, _ code: String) {
            self.system = system
            self.code = code
        }
    }

    /// The values and units of one stored resource, or why the values of a reading cannot be read.
    package static func read(_ item: Any) -> Result<Read, UnreadableAlert> {
        guard let object = item as? [String: Any], let type = object["resourceType"] as? String else {
            return .failure(UnreadableAlert(reason: "it is not a FHIR Observation"))
        }
        if type == "OperationOutcome" { return .success(.notAReading("an OperationOutcome of the searchset")) }
        guard type == "Observation" else { return .failure(UnreadableAlert(reason: "it is not a FHIR Observation")) }
        let codings = codings(object["code"])
        if codings.contains(Coding(system, FHIRObservationJSON.ecgCode)) { return ecg(object) }
        if let symptom = SymptomKind.allCases.first(where: { codings.contains(Coding(snomed, $0.snomed.code)) }) {
            return self.symptom(object, symptom)
        }
        var values: [Signal: Double] = [:]
        var units: [Signal: String] = [:]
        let known = signal(codings) != nil || codings.contains(Coding(system, "85354-9"))
        guard known else {
            let named = codings.first.map { "\($0.system)|\($0.code)" } ?? "none"
            return .success(.notAReading("an Observation of a code VitalSim does not send (\(named))"))
        }
        for part in [object] + (object["component"] as? [[String: Any]] ?? []) {
            guard let signal = signal(Self.codings(part["code"])), let quantity = part["valueQuantity"] else {
                continue
            }
            guard let quantity = quantity as? [String: Any], let number = quantity["value"] as? NSNumber,
                !FieldSpec.isBoolean(number), number.doubleValue.isFinite
            else {
                return .failure(UnreadableAlert(reason: "its \(signal.rawValue) valueQuantity has no numeric value"))
            }
            values[signal] = number.doubleValue
            if let unit = (quantity["code"] as? String) ?? (quantity["unit"] as? String) { units[signal] = unit }
        }
        return .success(.values(values, units: units))
    }

    /// An ECG's average rate (its 8867-4 component) and rhythm (its `valueCodeableConcept`).
    static func ecg(_ object: [String: Any]) -> Result<Read, UnreadableAlert> {
        var values: [Signal: Double] = [:]
        var units: [Signal: String] = [:]
        for part in object["component"] as? [[String: Any]] ?? [] where signal(codings(part["code"])) == .heartRate {
            guard let quantity = part["valueQuantity"] as? [String: Any], let number = quantity["value"] as? NSNumber,
                !FieldSpec.isBoolean(number), number.doubleValue.isFinite
            else {
                return .failure(UnreadableAlert(reason: "its ECG heart-rate component has no numeric value"))
            }
            values[.ecgHeartRate] = number.doubleValue
            if let unit = (quantity["code"] as? String) ?? (quantity["unit"] as? String) {
                units[.ecgHeartRate] = unit
            }
        }
        let rhythm = codings(object["valueCodeableConcept"])
        for classification in ECGClassification.allCases {
            let own = rhythm.contains(Coding(FHIRObservationJSON.classificationSystem, classification.rawValue))
            let snomedCoded = classification.snomed.map { rhythm.contains(Coding(snomed, $0.code)) } ?? false
            if own || snomedCoded {
                values[.ecgAF] = classification.afValue
                break
            }
        }
        return .success(.values(values, units: units))
    }

    /// A symptom's severity (its SNOMED CT qualifier in `valueCodeableConcept`, 1–3).
    static func symptom(_ object: [String: Any], _ kind: SymptomKind) -> Result<Read, UnreadableAlert> {
        guard object["valueCodeableConcept"] != nil else { return .success(.values([:], units: [:])) }
        let severity = codings(object["valueCodeableConcept"])
        guard let level = SymptomSeverity.allCases.first(where: { severity.contains(Coding(snomed, $0.snomed.code)) })
        else {
            return .failure(UnreadableAlert(reason: "its \(kind.rawValue) severity is not a SNOMED CT severity code"))
        }
        return .success(.values([kind.signal: Double(level.rawValue)], units: [:]))
    }

    static let snomed = FHIRObservationJSON.snomed

    /// The codings of a CodeableConcept (a coding without a system taken as LOINC's).
    static func codings(_ concept: Any?) -> [Coding] {
        let codings = (concept as? [String: Any])?["coding"] as? [[String: Any]] ?? []
        return codings.compactMap { c in
            (c["code"] as? String).map { Coding(c["system"] as? String ?? system, $0) }
        }
    }

    /// The signal of a concept's codings: the first with a known code.
    static func signal(_ codings: [Coding]) -> Signal? {
        for c in codings {
            if c.system == system, let signal = loinc[c.code] { return signal }
            if let signal = otherCodes[c] { return signal }
        }
        return nil
    }
}
