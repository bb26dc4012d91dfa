/// A decoded JSON request body that keeps JSON's types apart (true is not 1, 72 is not "72"),
/// so validation can name the field whose type is wrong.
package indirect enum JSONInput: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONInput])
    case object([String: JSONInput])

    /// True for a JSON string.
    package var isString: Bool { if case .string = self { true } else { false } }

    /// Parses a request body strictly (``JSONInputParser``): UTF-8, at most `maxDepth` levels of
    /// arrays and objects, no duplicate keys; the failure names what is wrong and where (400).
    package static func parse(_ bytes: [UInt8], maxDepth: Int) throws(ValidationFailure) -> JSONInput {
        var parser = JSONInputParser(bytes, maxDepth: maxDepth)
        return try parser.document()
    }

    /// Parses JSON the SUT wrote itself (stored columns); nil when it is not JSON.
    package static func parse(_ bytes: [UInt8]) -> JSONInput? { try? parse(bytes, maxDepth: 64) }

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
