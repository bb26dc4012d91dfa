import VitalSimCore

extension FHIRObservationJSON {
    /// A corrupted Observation and the rejection a SUT must answer with: the forms of
    /// ``JSONCorruption`` and the relayed GATT forms of ``ObservationJSON/corrupt(_:_:)``, each on
    /// the Observation's own elements. The expected field is named as golden files name it (`value`,
    /// `systolic`, `timestamp`, `unit`, `unexpectedField`), with the elements a FHIR server names
    /// instead (`valueQuantity.value`, `component[0].valueQuantity.value`, `effectiveDateTime`, …).
    package static func corrupt(_ json: JSONValue, _ corruption: Corruption) -> ([UInt8], ExpectedRejection) {
        var (body, rejection) = corruptElements(json, corruption)
        // Findings name the element as a FHIR server would: its path from the resource type.
        if let first = rejection.spellings.first, !first.isEmpty, first != "*", !first.hasPrefix("Observation.") {
            rejection.spellings.insert("Observation." + first, at: 0)
        }
        return (body, rejection)
    }

    /// ``corrupt(_:_:)`` with the elements named from the resource's root.
    static func corruptElements(_ json: JSONValue, _ corruption: Corruption) -> ([UInt8], ExpectedRejection) {
        guard case var .object(f) = json else {
            return (Array(json.serialized().utf8), ExpectedRejection(status: 400, field: ""))
        }
        if let symptom = corruptSymptom(f, corruption) { return symptom }
        let panel = f.contains { $0.0 == "component" } && !f.contains { $0.0 == "valueQuantity" }
        // An ECG's measured value is its average heart rate, the first component.
        let ecg = f.contains { $0.0 == "code" && $0.1.serialized().contains(ecgCode) }
        let measurement = panel && !ecg ? "systolic" : "value"
        let quantity = panel ? "component[0].valueQuantity" : "valueQuantity"
        func body() -> [UInt8] { Array(JSONValue.object(f).serialized().utf8) }
        switch corruption {
        case .wrongType, .outOfRange, .badCRC, .badCalories:
            let value = (quantityElement(f, panel: panel, "value") ?? .null)
            setQuantityElement(
                &f,
                panel: panel,
                "value",
                corruption == .wrongType ? .string(value.serialized()) : .int(-1)
            )
            return (
                body(), ExpectedRejection(status: 400, field: measurement, spellings: [quantity + ".value", quantity])
            )
        case .missingField:
            if panel {
                if let position = f.firstIndex(where: { $0.0 == "component" }), case let .array(parts) = f[position].1 {
                    f[position].1 = .array(Array(parts.dropFirst()))
                }
                return (
                    body(),
                    ExpectedRejection(
                        status: 400,
                        field: measurement,
                        spellings: ["component", "component[0]", quantity]
                    )
                )
            }
            f.removeAll { $0.0 == "valueQuantity" }
            return (
                body(), ExpectedRejection(status: 400, field: measurement, spellings: [quantity, quantity + ".value"])
            )
        case .badTimestamp, .futureTimestamp:
            guard let position = f.firstIndex(where: { $0.0 == "effectiveDateTime" }),
                case let .string(text) = f[position].1,
                let changed = corruption == .badTimestamp
                    ? JSONCorruption.malformed(text) : JSONCorruption.centuryAhead(text)
            else { return corruptElements(json, .truncation) }
            f[position].1 = .string(changed)
            return (body(), ExpectedRejection(status: 400, field: "timestamp", spellings: ["effectiveDateTime"]))
        case .unknownField:
            f.append((JSONCorruption.unknownKey, .bool(true)))
            return (
                body(),
                ExpectedRejection(status: 400, field: JSONCorruption.unknownKey, spellings: [JSONCorruption.unknownKey])
            )
        case .badFlags:
            setQuantityElement(&f, panel: panel, "code", .string("bogus-unit"))
            setQuantityElement(&f, panel: panel, "unit", .string("bogus-unit"))
            return (
                body(),
                ExpectedRejection(
                    status: 400,
                    field: "unit",
                    spellings: [quantity + ".code", quantity + ".unit", quantity]
                )
            )
        case .truncation, .mixed, .badUserID:
            // A FHIR Observation names its patient by reference, not by a user id: cut the body short.
            let text = body()
            var rejection = ExpectedRejection(status: 400, field: "")
            rejection.namesNoElement = true
            return (Array(text.prefix(text.count / 2)), rejection)
        }
    }

    /// The quantity (`valueQuantity`, or the first component's for a panel) element `key`.
    static func quantityElement(_ f: [(String, JSONValue)], panel: Bool, _ key: String) -> JSONValue? {
        func member(_ jsonValue: JSONValue?, _ name: String) -> JSONValue? {
            if case let .object(o)? = jsonValue { o.first { $0.0 == name }?.1 } else { nil }
        }
        var owner = JSONValue.object(f)
        if panel, case let .array(parts)? = member(owner, "component"), let first = parts.first { owner = first }
        return member(member(owner, "valueQuantity"), key)
    }

    static func setQuantityElement(_ f: inout [(String, JSONValue)], panel: Bool, _ key: String, _ value: JSONValue) {
        editQuantity(&f, panel: panel) { q in
            if let position = q.firstIndex(where: { $0.0 == key }) {
                q[position].1 = value
            } else {
                q.append((key, value))
            }
        }
    }

    static func editQuantity(
        _ f: inout [(String, JSONValue)],
        panel: Bool,
        _ edit: (inout [(String, JSONValue)]) -> Void
    ) {
        func inQuantity(_ o: inout [(String, JSONValue)]) {
            guard let position = o.firstIndex(where: { $0.0 == "valueQuantity" }), case var .object(q) = o[position].1
            else { return }
            edit(&q)
            o[position].1 = .object(q)
        }
        guard panel else { return inQuantity(&f) }
        guard let i = f.firstIndex(where: { $0.0 == "component" }), case var .array(parts) = f[i].1,
            case var .object(first)? = parts.first
        else { return }
        inQuantity(&first)
        parts[0] = .object(first)
        f[i].1 = .array(parts)
    }
}
