import Foundation

/// JSON a SUT sent (an answer, a pushed message), parsed only when its shape keeps memory a small
/// multiple of its bytes. Foundation's parser turns every value into an object of tens to hundreds of
/// bytes, so 15 MiB of `[]` items or of arrays nested 500 deep would take gigabytes before any
/// count of alerts or readings is checked. A scan first counts values and nesting without
/// allocating; past ``valueBudget`` values or ``depthLimit`` levels the body is refused with why.
package enum SUTJSON {
    /// The most values (objects, arrays, strings, numbers, literals, keys) one body may hold: about
    /// 50,000 alerts in the reference SUT's shape, 12 pages of 1,000 FHIR Observations.
    package static let valueBudget = 600_000
    /// The deepest nesting one body may have (an alert or a FHIR resource is under 10 deep).
    package static let depthLimit = 64

    /// Why a body was not parsed.
    package enum Problem: Error, Equatable, CustomStringConvertible {
        case notJSON
        case tooManyValues
        case tooDeep

        package var description: String {
            switch self {
            case .notJSON: "not JSON"
            case .tooManyValues: "JSON of more than \(SUTJSON.valueBudget) values (the harness's bound)"
            case .tooDeep: "JSON nested more than \(SUTJSON.depthLimit) levels deep (the harness's bound)"
            }
        }
    }

    /// The document in `bytes` (a bare scalar allowed).
    package static func document(_ bytes: [UInt8]) throws(Problem) -> Any {
        if let problem = shapeProblem(bytes) { throw problem }
        guard let document = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            throw .notJSON
        }
        return document
    }

    /// Counts values and depth without parsing: strings skipped whole (escapes honoured), every
    /// opening bracket, string and scalar start after `[`, `{`, `,`, `:` or at the top counted.
    static func shapeProblem(_ bytes: [UInt8]) -> Problem? {
        var values = 0
        var depth = 0
        var inString = false
        var escaped = false
        var expectingValue = true
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == 0x5C {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x22:
                inString = true
                values += 1
                expectingValue = false
            case 0x5B, 0x7B:
                depth += 1
                values += 1
                if depth > depthLimit { return .tooDeep }
                expectingValue = true
            case 0x5D, 0x7D:
                depth -= 1
                expectingValue = false
            case 0x2C, 0x3A:
                expectingValue = true
            case 0x20, 0x09, 0x0A, 0x0D:
                continue
            default:
                if expectingValue {
                    values += 1
                    expectingValue = false
                }
            }
            if values > valueBudget { return .tooManyValues }
        }
        return nil
    }
}
