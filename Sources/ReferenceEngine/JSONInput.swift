import Foundation

/// A decoded JSON request body that keeps JSON's types apart (true is not 1, 72 is not "72"),
/// so validation can name the field whose type is wrong.
package indirect enum JSONInput: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONInput])
    case object([String: JSONInput])

    /// True for a JSON string.
    package var isString: Bool { if case .string = self { true } else { false } }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONInput].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONInput].self))
        }
    }

    /// Parses a body; nil when it is not JSON.
    package static func parse(_ bytes: [UInt8]) -> JSONInput? { try? JSONDecoder().decode(JSONInput.self, from: Data(bytes)) }

    /// Nesting depth (a scalar is 0).
    package var depth: Int {
        switch self {
        case let .array(a): 1 + (a.map(\.depth).max() ?? 0)
        case let .object(o): 1 + (o.values.map(\.depth).max() ?? 0)
        default: 0
        }
    }

    /// The JSON type name, for messages.
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONInput {
    /// The value of a JSON number (integer or not); nil for other types.
    package var doubleValue: Double? {
        switch self {
        case let .integer(i): Double(i)
        case let .number(d): d
        default: nil
        }
    }
}
