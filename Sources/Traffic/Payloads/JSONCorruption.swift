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
        var f = fields
        let m = f.firstIndex { $0.0 == measurement }
        let ts = f.firstIndex { $0.0 == "timestamp" }
        switch corruption {
        case .truncation:
            let text = Array(JSONValue.object(f).serialized().utf8)
            return (Array(text.prefix(text.count / 2)), ExpectedRejection(status: 400, field: ""))
        case .wrongType:
            guard let m else { return nil }
            f[m].1 = .string(f[m].1.serialized())
            return (body(f), ExpectedRejection(status: 400, field: measurement))
        case .missingField:
            guard let m else { return nil }
            f.remove(at: m)
            return (body(f), ExpectedRejection(status: 400, field: measurement))
        case .outOfRange:
            guard let m else { return nil }
            f[m].1 = .int(-1)
            return (body(f), ExpectedRejection(status: 400, field: measurement))
        case .badTimestamp, .futureTimestamp:
            guard let ts, case let .string(text) = f[ts].1,
                let changed = corruption == .badTimestamp ? malformed(text) : centuryAhead(text)
            else {
                return nil
            }
            f[ts].1 = .string(changed)
            return (body(f), ExpectedRejection(status: 400, field: "timestamp"))
        case .unknownField:
            f.append((unknownKey, .bool(true)))
            return (body(f), ExpectedRejection(status: 400, field: unknownKey))
        case .badUserID:
            guard let u = f.firstIndex(where: { $0.0 == "userId" || $0.0 == "patientId" }),
                case let .string(id) = f[u].1
            else { return nil }
            f[u].1 = Int64(id).map { .int($0) } ?? .int(0)
            return (body(f), ExpectedRejection(status: 400, field: f[u].0))
        case .badCalories:
            guard let c = f.firstIndex(where: { $0.0 == "caloriesBurned" }) else {
                return apply(fields, .outOfRange, measurement: measurement)
            }
            f[c].1 = .int(-1)
            return (body(f), ExpectedRejection(status: 400, field: "caloriesBurned"))
        case .badFlags, .badCRC, .mixed:
            return nil
        }
    }

    static func body(_ f: [(String, JSONValue)]) -> [UInt8] { Array(JSONValue.object(f).serialized().utf8) }

    /// `2024-11-07T09:00:00Z` written the way a phone's locale might: `07/11/2024 09:00:00`.
    static func malformed(_ iso: String) -> String? {
        let b = Array(iso)
        guard b.count >= 19 else { return nil }
        return "\(String(b[8..<10]))/\(String(b[5..<7]))/\(String(b[0..<4])) \(String(b[11..<19]))"
    }

    /// The same instant 100 years later (the year's four digits plus 100).
    static func centuryAhead(_ iso: String) -> String? {
        guard let year = Int(iso.prefix(4)), year < 9900 else { return nil }
        return String(year + 100) + iso.dropFirst(4)
    }
}
