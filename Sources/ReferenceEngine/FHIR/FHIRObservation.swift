import VitalSimCore

/// Validation of FHIR R4 `Observation` resources (LOINC codes, UCUM units) into ``Observation``s.
package enum FHIRObservation {
    /// LOINC code → signal, accepted UCUM units with their factor to the engine's unit, and the valid range there.
    static let codes: [String: (Signal, [String: Double], ClosedRange<Double>)] = [
        "8867-4": (.heartRate, ["/min": 1], 20...300),
        "2339-0": (.glucose, ["mg/dL": 1], 10...1000),
        "99504-3": (.cgm, ["mg/dL": 1], 20...600),
        "15074-8": (.glucose, ["mmol/L": 18.016], 10...1000),
        "59408-5": (.spo2, ["%": 1], 30...100),
        "8310-5": (.temperature, ["Cel": 1], 25...45),
        "29463-7": (.weight, ["kg": 1, "g": 0.001, "[lb_av]": 0.45359237], 0.3...400),
        "9279-1": (.respirationRate, ["/min": 1], 2...100),
        "3151-8": (.oxygenFlow, ["L/min": 1], EquipmentItem.oxygen.range),
        "55423-8": (.steps, ["{steps}": 1, "/d": 1, "/(24.h)": 1, "1": 1], 0...200_000),
    ]
    static let components: [String: Signal] = ["8480-6": .systolic, "8462-4": .diastolic]
    /// Codes of other systems (`SYSTEM#CODE`) → signal, units and range: a battery level (IEEE
    /// 11073 `MDC_ATTR_VAL_BATT_CHARGE`), feeds and equipment settings (VitalSim's own codes; home
    /// oxygen flow is LOINC 3151-8, in ``codes``). Each equipment entry carries its action as a component.
    static let otherCodes: [String: (Signal, [String: Double], ClosedRange<Double>)] = [
        "\(mdc)#67996": (.battery, ["%": 1], 0...100),
        "\(vitalsimCodes)#feeding": (.feeding, ["mL": 1], 0...2000),
        "\(vitalsimCodes)#breastfeeding": (.breastfeeding, ["min": 1], 1...180),
        "\(vitalsimCodes)#ng-tube-size": (.ngTubeSize, ["[Ch]": 1], EquipmentItem.ngTube.range),
        "\(vitalsimCodes)#feeding-pump-rate": (.feedingPumpRate, ["mL/h": 1], EquipmentItem.feedingPump.range),
    ]
    /// VitalSim's own code system, and that of an equipment entry's action.
    static let vitalsimCodes = "urn:vitalsim:code"
    static let equipmentActions = "urn:vitalsim:equipment-action"
    /// The elements of an R4 Observation; any other key is refused (a misspelt element is not ignored).
    static let elements: Set<String> = [
        "resourceType", "id", "meta", "implicitRules", "language", "text", "contained", "extension",
        "modifierExtension",
        "identifier", "basedOn", "partOf", "status", "category", "code", "subject", "focus", "encounter",
        "effectiveDateTime",
        "effectivePeriod", "effectiveTiming", "effectiveInstant", "issued", "performer", "valueQuantity",
        "valueCodeableConcept",
        "valueString", "valueBoolean", "valueInteger", "valueRange", "valueRatio", "valueSampledData", "valueTime",
        "valueDateTime", "valuePeriod", "dataAbsentReason", "interpretation", "note", "bodySite", "method", "specimen",
        "device",
        "referenceRange", "hasMember", "derivedFrom", "component",
    ]
    /// The IEEE 11073-10101 code system and the code of an RR interval (`MDC_ECG_TIME_PD_RR_GL`).
    static let mdc = "urn:iso:std:iso:11073:10101"
    static let rrCode = "147240"

    /// An OperationOutcome for a rejected resource.
    package static func outcome(_ validationFailure: ValidationFailure) -> JSONValue {
        .object([
            ("resourceType", .string("OperationOutcome")),
            (
                "issue",
                .array([
                    .object([
                        ("severity", .string("error")), ("code", .string("invalid")),
                        ("diagnostics", .string(validationFailure.message)),
                        ("expression", .array([.string(validationFailure.field)])),
                    ])
                ])
            ),
        ])
    }

    static func member(_ jsonInput: JSONInput?, _ key: String) -> JSONInput? {
        if case let .object(o)? = jsonInput { return o[key] } else { return nil }
    }

    static func loinc(_ code: JSONInput?, field: String) throws(ValidationFailure) -> String {
        guard case let .array(codings)? = member(code, "coding") else {
            throw ValidationFailure(field: field + ".coding", message: "\(field).coding must be an array of codings")
        }
        for c in codings {
            if case .string("http://loinc.org")? = member(c, "system"), case let .string(value)? = member(c, "code") {
                return value
            }
        }
        throw ValidationFailure(
            field: field + ".coding",
            message: "\(field) needs a coding with system http://loinc.org"
        )
    }

    static func quantity(
        _ jsonInput: JSONInput?,
        field: String,
        units: [String: Double],
        range: ClosedRange<Double>
    ) throws(ValidationFailure) -> Double {
        guard case .object? = jsonInput else {
            throw ValidationFailure(field: field, message: "\(field) is required (a Quantity)")
        }
        let v: Double
        switch member(jsonInput, "value") {
        case let .integer(i)?: v = Double(i)
        case let .number(d)?: v = d
        default: throw ValidationFailure(field: field + ".value", message: "\(field).value must be a number")
        }
        guard case .string("http://unitsofmeasure.org")? = member(jsonInput, "system") else {
            throw ValidationFailure(
                field: field + ".system",
                message: "\(field).system must be http://unitsofmeasure.org (UCUM)"
            )
        }
        guard case let .string(code)? = member(jsonInput, "code"), let factor = units[code] else {
            throw ValidationFailure(
                field: field + ".code",
                message: "\(field).code must be one of \(units.keys.sorted().joined(separator: ", ")) (UCUM)"
            )
        }
        let value =
            code == "[lb_av]" || code == "g"
            ? v * factor : (code == "mmol/L" ? (v * factor * 10).rounded() / 10 : v * factor)
        guard range.contains(value) else {
            throw ValidationFailure(
                field: field + ".value",
                message: "\(field).value \(v) \(code) is outside the possible range"
            )
        }
        return value
    }

    /// The device id: the last segment of `device.reference` ("fhir" without one).
    static func deviceID(_ o: [String: JSONInput]) throws(ValidationFailure) -> String {
        guard case let .string(d)? = member(o["device"], "reference") else { return "fhir" }
        return try PayloadValidation.identifier(
            String(d.split(separator: "/").last ?? "fhir"),
            field: "device.reference"
        )
    }

    /// The reading id: the first identifier's value, when there is one.
    static func readingID(_ o: [String: JSONInput]) throws(ValidationFailure) -> String? {
        guard case let .array(ids)? = o["identifier"], case let .string(v)? = member(ids.first, "value") else {
            return nil
        }
        return try PayloadValidation.identifier(v, field: "identifier[0].value")
    }

    /// Validates a resource; `now` bounds future time stamps.
    package static func parse(_ body: JSONInput, now: Int64) throws(ValidationFailure) -> Observation {
        guard case let .object(o) = body else {
            throw ValidationFailure(field: "", message: "the body must be a FHIR resource (JSON object)")
        }
        guard case .string("Observation")? = o["resourceType"] else {
            throw ValidationFailure(field: "resourceType", message: "resourceType must be Observation")
        }
        if let unknown = o.keys.filter({ !elements.contains($0) }).min() {
            throw ValidationFailure(field: unknown, message: "\(unknown) is not an element of an R4 Observation")
        }
        guard case let .string(status)? = o["status"],
            ["final", "amended", "corrected", "preliminary"].contains(status)
        else {
            throw ValidationFailure(field: "status", message: "status must be final, amended, corrected or preliminary")
        }
        guard case let .string(subject)? = member(o["subject"], "reference"), subject.hasPrefix("Patient/"),
            subject.count > 8
        else {
            throw ValidationFailure(field: "subject.reference", message: "subject.reference must be Patient/ID")
        }
        try FHIRShape.check(o)
        let patient = try PayloadValidation.patientIdentifier(String(subject.dropFirst(8)), field: "subject.reference")
        let time = try PayloadValidation.timestamp(o, "effectiveDateTime", now: now, offsets: true)
        let device = try deviceID(o)
        let symptom = try symptom(o)
        let code = try symptom == nil ? coded(o["code"]) : "sct-" + (symptom?.0.snomed.code ?? "")
        var values: [Signal: Double] = [:]
        var rr: [Double] = []
        if let (kind, severity) = symptom {
            values[kind.signal] = severity
        } else if code == ecgCode {
            values = try ecg(o)
        } else if code == "85354-9" {
            values = try bloodPressurePanel(o)
        } else if let (signal, units, range) = codes[code] ?? otherCodes[code] {
            values[signal] = try quantity(o["valueQuantity"], field: "valueQuantity", units: units, range: range)
            if signal == .heartRate { rr = try rrIntervals(o["component"]) }
            if EquipmentItem(signal: signal) != nil { try equipmentAction(o["component"]) }
        } else {
            throw ValidationFailure(
                field: "code.coding",
                message:
                    "LOINC \(code) is not a vital sign VitalSim ingests; valid: 85354-9, 11524-6, \(codes.keys.sorted().joined(separator: ", "))"
            )
        }
        return Observation(
            readingID: try readingID(o) ?? "fhir/\(patient)/\(code)/\(time)",
            patientID: patient,
            deviceID: device,
            time: time,
            values: values,
            rrIntervals: rr
        )
    }

    /// The Observation's code: its LOINC code when it has one, else `SYSTEM#CODE` of a coding of
    /// IEEE 11073 or VitalSim's own system (``otherCodes``).
    static func coded(_ code: JSONInput?) throws(ValidationFailure) -> String {
        if case let .array(codings)? = member(code, "coding") {
            for c in codings {
                guard case let .string(system)? = member(c, "system"), system == mdc || system == vitalsimCodes,
                    case let .string(value)? = member(c, "code"), otherCodes["\(system)#\(value)"] != nil
                else { continue }
                if !codings.contains(where: { member($0, "system") == .string("http://loinc.org") }) {
                    return "\(system)#\(value)"
                }
            }
        }
        return try loinc(code, field: "code")
    }

    /// An equipment entry's action: a component coded `equipment-action` whose value is one of
    /// ``EquipmentAction``.
    static func equipmentAction(_ components: JSONInput?) throws(ValidationFailure) {
        if case let .array(parts)? = components {
            for (i, part) in parts.enumerated() {
                guard case let .array(codings)? = member(member(part, "code"), "coding"),
                    codings.contains(where: {
                        member($0, "system") == .string(vitalsimCodes)
                            && member($0, "code") == .string("equipment-action")
                    })
                else { continue }
                guard case let .array(values)? = member(member(part, "valueCodeableConcept"), "coding"),
                    values.contains(where: {
                        guard case let .string(action)? = member($0, "code") else { return false }
                        return member($0, "system") == .string(equipmentActions)
                            && EquipmentAction(rawValue: action) != nil
                    })
                else {
                    let valid = EquipmentAction.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ValidationFailure(
                        field: "component[\(i)].valueCodeableConcept",
                        message: "an equipment action is one of \(valid) (system \(equipmentActions))"
                    )
                }
                return
            }
        }
        throw ValidationFailure(
            field: "component",
            message: "an equipment entry needs its action: a component coded \(vitalsimCodes) equipment-action"
        )
    }

    /// The systolic and diastolic components of a blood pressure panel (LOINC 85354-9).
    static func bloodPressurePanel(_ o: [String: JSONInput]) throws(ValidationFailure) -> [Signal: Double] {
        var values: [Signal: Double] = [:]
        guard case let .array(parts)? = o["component"] else {
            throw ValidationFailure(
                field: "component",
                message: "the blood pressure panel needs components 8480-6 and 8462-4"
            )
        }
        for (i, part) in parts.enumerated() {
            let code = try loinc(member(part, "code"), field: "component[\(i)].code")
            guard let signal = components[code] else { continue }
            values[signal] = try quantity(
                member(part, "valueQuantity"),
                field: "component[\(i)].valueQuantity",
                units: ["mm[Hg]": 1],
                range: 20...300
            )
        }
        guard let systolic = values[.systolic], let diastolic = values[.diastolic] else {
            throw ValidationFailure(
                field: "component",
                message: "the blood pressure panel needs components 8480-6 (systolic) and 8462-4 (diastolic)"
            )
        }
        guard diastolic < systolic else {
            throw ValidationFailure(
                field: "component",
                message: "diastolic \(diastolic) must be below systolic \(systolic)"
            )
        }
        return values
    }

    /// A heart rate's RR intervals: its components coded IEEE 11073-10101 147240, in ms (200...3000,
    /// at most 64), oldest first; returned in seconds.
    static func rrIntervals(_ components: JSONInput?) throws(ValidationFailure) -> [Double] {
        guard case let .array(parts)? = components else { return [] }
        var out: [Double] = []
        for (i, part) in parts.enumerated() {
            guard case let .array(codings)? = member(member(part, "code"), "coding"),
                codings.contains(where: {
                    member($0, "system") == .string(mdc) && member($0, "code") == .string(rrCode)
                })
            else { continue }
            let field = "component[\(i)].valueQuantity"
            out.append(try quantity(member(part, "valueQuantity"), field: field, units: ["ms": 0.001], range: 0.2...3))
        }
        guard out.count <= 64 else {
            throw ValidationFailure(field: "component", message: "at most 64 RR intervals per heart rate")
        }
        return out
    }
}
