#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON value with ordered object keys, serialised deterministically (no dictionary ordering).
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// A number kept as its exact decimal text (e.g. an SFLOAT `0.0055`).
    case decimal(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// Two values are equal when every field is.
    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized() == b.serialized() }

    /// Compact JSON text.
    public func serialized() -> String {
        var out = ""
        write(into: &out)
        return out
    }

    /// Appends compact JSON text to `out`.
    public func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case let .bool(b): out += b ? "true" : "false"
        case let .int(i): out += String(i)
        case let .double(d): out += JSONValue.format(d)
        case let .decimal(s): out += s
        case let .string(s): JSONValue.quote(s, into: &out)
        case let .array(a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(into: &out)
            }
            out += "]"
        case let .object(o):
            out += "{"
            for (i, (k, v)) in o.enumerated() {
                if i > 0 { out += "," }
                JSONValue.quote(k, into: &out)
                out += ":"
                v.write(into: &out)
            }
            out += "}"
        }
    }

    /// Indented JSON text for people.
    public func pretty(indent: String = "") -> String {
        switch self {
        case let .array(a) where !a.isEmpty && a.contains(where: { if case .object = $0 { true } else { false } }):
            let inner = indent + "  "
            return "[\n" + a.map { inner + $0.pretty(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case let .object(o) where !o.isEmpty:
            let inner = indent + "  "
            return "{\n"
                + o.map { inner + JSONValue.string($0.0).serialized() + ": " + $0.1.pretty(indent: inner) }.joined(
                    separator: ",\n"
                )
                + "\n\(indent)}"
        default: return serialized()
        }
    }

    /// Shortest round-tripping text of a finite double; non-finite values become null.
    public static func format(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    /// The bytes a JSON string escapes: control characters, the quote and the backslash.
    static let escapedBytes = String(decoding: Array(1...0x1F) + [0x22, 0x5C], as: UTF8.self)

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        // Most strings (ids, kinds, times, hex) need no escape: appended whole, not scalar by scalar.
        // libc's strcspn finds the first byte needing an escape (a NUL stops it early: escaped below).
        if s.withCString({ strcspn($0, JSONValue.escapedBytes) }) == s.utf8.count {
            out += s
            out += "\""
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }

    /// Member lookup for objects.
    public subscript(key: String) -> JSONValue? {
        if case let .object(o) = self { return o.first { $0.0 == key }?.1 }
        return nil
    }
}
