import VitalSimCore

/// The invalid forms of a JSON payload that a backend must refuse (``Corruption/jsonForms``), and
/// the field its refusal must name: the same forms for VitalEdge and observation JSON.
package enum JSONCorruption {
    /// The key `unknown-field` adds.
    package static let unknownKey = "unexpectedField"

    /// `fields` corrupted into `c`; `measurement` is the payload's measured field (`value`,
    /// `systolic`, `heartRate`, `stepCount`). nil for a corruption without a JSON form (the GATT
    /// forms, handled by their callers).
    package static func apply(
        _ fields: [(String, JSONValue)],
        _ corruption: Corruption,
        measurement: String
    ) -> ([UInt8], ExpectedRejection)? {
        var edited = fields
        let measured = edited.firstIndex { $0.0 == measurement }
        let ts = edited.firstIndex { $0.0 == "timestamp" }
        switch corruption {
        case .truncation:
            let text = Array(JSONValue.object(edited).serialized().utf8)
            return (Array(text.prefix(text.count / 2)), ExpectedRejection(status: 400, field: ""))
        case .wrongType:
            guard let measured else { return nil }
            edited[measured].1 = .string(edited[measured].1.serialized())
            return (body(edited), ExpectedRejection(status: 400, field: measurement))
        case .missingField:
            guard let measured else { return nil }
            edited.remove(at: measured)
            return (body(edited), ExpectedRejection(status: 400, field: measurement))
        case .outOfRange:
            guard let measured else { return nil }
            edited[measured].1 = .int(-1)
            return (body(edited), ExpectedRejection(status: 400, field: measurement))
        case .badTimestamp, .futureTimestamp:
            guard let ts, case let .string(text) = edited[ts].1,
                let changed = corruption == .badTimestamp ? malformed(text) : centuryAhead(text)
            else {
                return nil
            }
            edited[ts].1 = .string(changed)
            return (body(edited), ExpectedRejection(status: 400, field: "timestamp"))
        case .unknownField:
            edited.append((unknownKey, .bool(true)))
            return (body(edited), ExpectedRejection(status: 400, field: unknownKey))
        case .badUserID:
            guard let unitIndex = edited.firstIndex(where: { $0.0 == "userId" || $0.0 == "patientId" }),
                case let .string(id) = edited[unitIndex].1
            else { return nil }
            edited[unitIndex].1 = Int64(id).map { .int($0) } ?? .int(0)
            return (body(edited), ExpectedRejection(status: 400, field: edited[unitIndex].0))
        case .badCalories:
            guard let codeIndex = edited.firstIndex(where: { $0.0 == "caloriesBurned" }) else {
                return apply(fields, .outOfRange, measurement: measurement)
            }
            edited[codeIndex].1 = .int(-1)
            return (body(edited), ExpectedRejection(status: 400, field: "caloriesBurned"))
        case .badFlags, .badCRC, .mixed:
            return nil
        }
    }

    static func body(_ f: [(String, JSONValue)]) -> [UInt8] { Array(JSONValue.object(f).serialized().utf8) }

    /// `2024-11-07T09:00:00Z` written the way a phone's locale might: `07/11/2024 09:00:00`.
    static func malformed(_ iso: String) -> String? {
        let characters = Array(iso)
        guard characters.count >= 19 else { return nil }
        return
            "\(String(characters[8..<10]))/\(String(characters[5..<7]))/\(String(characters[0..<4])) \(String(characters[11..<19]))"
    }

    /// The same instant 100 years later (the year's four digits plus 100).
    static func centuryAhead(_ iso: String) -> String? {
        guard let year = Int(iso.prefix(4)), year < 9900 else { return nil }
        return String(year + 100) + iso.dropFirst(4)
    }
}
