import VitalSimCore

/// A reading as a FHIR R4 `Observation` (the vital-signs profile's LOINC codes and UCUM units): the
/// `fhir-observation` and `fhir-bundle` formats of SUT profiles (docs/sut-profiles.md).
///
/// The reading id is the first `identifier` (system `urn:vitalsim:reading`), the patient
/// `subject.reference` (`Patient/ID`), the device `device.reference` (`Device/ID`), the device time
/// `effectiveDateTime`. A blood pressure is the panel 85354-9 with components 8480-6 and 8462-4;
/// a heart rate's RR intervals follow as components coded IEEE 11073-10101 147240
/// (`MDC_ECG_TIME_PD_RR_GL`) with a value in ms, oldest first.
package enum FHIRObservationJSON {
    /// The LOINC code and display of each kind with a FHIR form.
    static let codes: [VitalKind: (code: String, display: String)] = [
        .heartRate: ("8867-4", "Heart rate"),
        .bloodPressure: ("85354-9", "Blood pressure panel with all children optional"),
        .glucose: ("2339-0", "Glucose [Mass/volume] in Blood"),
        .cgm: ("99504-3", "Glucose [Mass/volume] in Interstitial fluid"),
        .spo2: ("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry"),
        .temperature: ("8310-5", "Body temperature"),
        .weight: ("29463-7", "Body weight"),
        .dailySummary: ("55423-8", "Number of steps in unspecified time Pedometer"),
        .respirationRate: ("9279-1", "Respiratory rate"),
    ]
    /// The reading-id identifier system.
    package static let identifierSystem = "urn:vitalsim:reading"
    /// The IEEE 11073-10101 code of an RR interval.
    package static let rrCode = "147240"
    static let ucum = "http://unitsofmeasure.org"

    /// The IEEE 11073-10101 code system.
    package static let mdc = "urn:iso:std:iso:11073:10101"
    /// VitalSim's own code system, for what neither the vital-signs profile's LOINC codes nor IEEE
    /// 11073 name: feeds and equipment settings (docs/sut-profiles.md).
    package static let vitalsimCodes = "urn:vitalsim:code"
    /// The code system of an equipment entry's action (`in-use`, `replaced`, `adjusted`).
    package static let equipmentActions = "urn:vitalsim:equipment-action"

    /// The code of a reading's Observation, and whether it is a vital sign (category `vital-signs`).
    static func coding(_ reading: Reading) -> (system: String, code: String, display: String, vital: Bool)? {
        switch reading.measurement {
        case .battery: return (mdc, "67996", "MDC_ATTR_VAL_BATT_CHARGE", false)
        case .feeding: return (vitalsimCodes, "feeding", "Bottle feed volume", false)
        case .breastfeeding: return (vitalsimCodes, "breastfeeding", "Breastfeed duration at the breast", false)
        case .equipment(.oxygen, _, _): return ("http://loinc.org", "3151-8", "Inhaled oxygen flow rate", false)
        case .equipment(.ngTube, _, _): return (vitalsimCodes, "ng-tube-size", "Nasogastric tube size", false)
        case .equipment(.feedingPump, _, _):
            return (vitalsimCodes, "feeding-pump-rate", "Enteral feeding pump rate", false)
        default:
            return codes[reading.kind].map { ("http://loinc.org", $0.code, $0.display, true) }
        }
    }

    /// The Observation of a reading (nil for cuff pressure). A daily summary is its step count (its
    /// calories are left out); a battery level is IEEE 11073's `MDC_ATTR_VAL_BATT_CHARGE` (as the
    /// Personal Health Device IG codes it); an equipment entry's setting is the value and its action
    /// a component.
    package static func encode(_ reading: Reading, start: Int64) -> JSONValue? {
        if case let .symptom(kind, severity) = reading.measurement {
            return symptom(reading, kind, severity, start: start)
        }
        if case let .ecg(recording) = reading.measurement { return ecg(reading, recording, start: start) }
        guard let coded = coding(reading) else { return nil }
        var fields: [(String, JSONValue)] = [
            ("resourceType", .string("Observation")),
            ("identifier", .array([.object([("system", .string(identifierSystem)), ("value", .string(reading.id))])])),
            ("status", .string("final")),
        ]
        if coded.vital {
            let vitalSigns: JSONValue = .object([
                ("system", .string("http://terminology.hl7.org/CodeSystem/observation-category")),
                ("code", .string("vital-signs")),
            ])
            fields.append(("category", .array([.object([("coding", .array([vitalSigns]))])])))
        }
        fields += [
            ("code", concept(coded.system, coded.code, coded.display)),
            ("subject", .object([("reference", .string("Patient/" + reading.patientID))])),
            ("device", .object([("reference", .string("Device/" + reading.deviceID))])),
            (
                "effectiveDateTime",
                .string(CivilTime(unixMilliseconds: start + reading.deviceTime).iso8601(fractional: true))
            ),
        ]
        switch reading.measurement {
        case let .bloodPressure(s, d, _, _, _):
            fields.append(
                (
                    "component",
                    .array([
                        component("8480-6", "Systolic blood pressure", quantity(.int(Int64(s)), "mm[Hg]")),
                        component("8462-4", "Diastolic blood pressure", quantity(.int(Int64(d)), "mm[Hg]")),
                    ])
                )
            )
        case let .heartRate(bpm, rr, _, _):
            fields.append(("valueQuantity", quantity(.int(Int64(bpm)), "/min")))
            if !rr.isEmpty {
                let parts = rr.map { interval -> JSONValue in
                    .object([
                        ("code", concept("urn:iso:std:iso:11073:10101", rrCode, "MDC_ECG_TIME_PD_RR_GL")),
                        ("valueQuantity", quantity(.double(ObservationJSON.milliseconds(interval)), "ms")),
                    ])
                }
                fields.append(("component", .array(parts)))
            }
        case let .equipment(_, setting, action):
            fields.append(("valueQuantity", quantity(.double(setting), reading.measurement.unit)))
            let actionPart: JSONValue = .object([
                ("code", concept(vitalsimCodes, "equipment-action", "Equipment action")),
                ("valueCodeableConcept", concept(equipmentActions, action.rawValue, action.rawValue)),
            ])
            fields.append(("component", .array([actionPart])))
        default:
            fields.append(
                ("valueQuantity", quantity(.double(reading.measurement.primaryValue), reading.measurement.unit))
            )
        }
        return .object(fields)
    }

    static func concept(_ system: String, _ code: String, _ display: String) -> JSONValue {
        .object([
            (
                "coding",
                .array([.object([("system", .string(system)), ("code", .string(code)), ("display", .string(display))])])
            )
        ])
    }

    static func quantity(_ value: JSONValue, _ unit: String) -> JSONValue {
        .object([("value", value), ("unit", .string(unit)), ("system", .string(ucum)), ("code", .string(unit))])
    }

    static func component(_ code: String, _ display: String, _ value: JSONValue) -> JSONValue {
        .object([("code", concept("http://loinc.org", code, display)), ("valueQuantity", value)])
    }
}
