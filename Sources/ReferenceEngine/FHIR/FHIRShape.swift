import VitalSimCore

/// Type checks of the FHIR Observation elements that VitalSim reads or documents
/// (docs/openapi.yaml), so that a mistyped optional element is rejected rather than ignored.
enum FHIRShape {
    static func fail(_ field: String, _ expected: String) -> ValidationFailure {
        ValidationFailure(field: field, message: "\(field) must be \(expected)")
    }

    static func codeableConcept(_ jsonInput: JSONInput, field: String) throws(ValidationFailure) {
        guard case let .object(o) = jsonInput else { throw fail(field, "a CodeableConcept (object)") }
        guard case let .array(codings)? = o["coding"] else { throw fail(field + ".coding", "an array of codings") }
        for (i, c) in codings.enumerated() {
            guard case let .object(co) = c else { throw fail("\(field).coding[\(i)]", "a Coding (object)") }
            for key in ["system", "code", "display"] {
                if let member = co[key], !member.isString { throw fail("\(field).coding[\(i)].\(key)", "a string") }
            }
        }
    }

    static func quantity(_ jsonInput: JSONInput, field: String) throws(ValidationFailure) {
        guard case let .object(q) = jsonInput else { throw fail(field, "a Quantity (object)") }
        switch q["value"] {
        case .integer?, .number?: break
        default: throw fail(field + ".value", "a number")
        }
        guard case .string("http://unitsofmeasure.org")? = q["system"] else {
            throw fail(field + ".system", "http://unitsofmeasure.org (UCUM)")
        }
        guard q["code"]?.isString == true else { throw fail(field + ".code", "a UCUM code (string)") }
        if let unit = q["unit"], !unit.isString { throw fail(field + ".unit", "a string") }
    }

    /// Checks `component`, `device`, `identifier`, `subject` and `valueQuantity` element types.
    static func check(_ o: [String: JSONInput]) throws(ValidationFailure) {
        try codeableConcept(o["code"] ?? .null, field: "code")
        if let system = o["subject"] {
            guard case let .object(subject) = system else { throw fail("subject", "a Reference (object)") }
            if let reference = subject["reference"], !reference.isString {
                throw fail("subject.reference", "a string such as Patient/501")
            }
        }
        if let q = o["valueQuantity"] { try quantity(q, field: "valueQuantity") }
        if let c = o["valueCodeableConcept"] { try codeableConcept(c, field: "valueCodeableConcept") }
        if let dateTime = o["device"] {
            guard case let .object(device) = dateTime else { throw fail("device", "a Reference (object)") }
            if let reference = device["reference"], !reference.isString { throw fail("device.reference", "a string") }
        }
        if let ids = o["identifier"] {
            guard case let .array(list) = ids else { throw fail("identifier", "an array of Identifiers") }
            for (i, item) in list.enumerated() {
                guard case let .object(id) = item else { throw fail("identifier[\(i)]", "an Identifier (object)") }
                for key in ["system", "value"] {
                    if let member = id[key], !member.isString { throw fail("identifier[\(i)].\(key)", "a string") }
                }
            }
        }
        if let c = o["component"] {
            guard case let .array(parts) = c else { throw fail("component", "an array of components") }
            for (i, part) in parts.enumerated() {
                guard case let .object(p) = part else {
                    throw fail("component[\(i)]", "an object with code and valueQuantity")
                }
                guard let code = p["code"] else { throw fail("component[\(i)].code", "present") }
                try codeableConcept(code, field: "component[\(i)].code")
                // A component's value is a Quantity, or (an ECG's waveform) SampledData, or (an
                // equipment entry's action) a CodeableConcept.
                if let dateTime = p["valueSampledData"] {
                    guard case .object = dateTime else {
                        throw fail("component[\(i)].valueSampledData", "a SampledData (object)")
                    }
                    continue
                }
                if let concept = p["valueCodeableConcept"] {
                    try codeableConcept(concept, field: "component[\(i)].valueCodeableConcept")
                    continue
                }
                guard let q = p["valueQuantity"] else { throw fail("component[\(i)].valueQuantity", "present") }
                try quantity(q, field: "component[\(i)].valueQuantity")
            }
        }
    }
}
