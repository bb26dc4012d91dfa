import VitalSimCore

/// A GATT characteristic value with a byte-exact encoder and a strict decoder.
///
/// `decode(encode(x)) == x` for every encodable `x`, and `encode(decode(b)) == b` for every valid `b`.
public protocol GATTCharacteristic: Sendable, Equatable {
    /// The 16-bit assigned UUID, e.g. 0x2A37.
    static var uuid: UInt16 { get }
    /// The command-line name, e.g. `heart-rate-measurement`.
    static var name: String { get }
    /// Decodes a characteristic value; throws ``GATTError`` naming the byte offset of any problem.
    static func decode(_ bytes: [UInt8]) throws(GATTError) -> Self
    /// Encodes to the characteristic value bytes.
    func encode() throws(GATTError) -> [UInt8]
    /// The decoded fields as JSON (what `vitalsim decode` prints).
    var fields: JSONValue { get }
    /// Builds a value from named fields (what `vitalsim encode` accepts).
    init(fields: FieldInput) throws(GATTError)
}

extension GATTCharacteristic {
    /// `0x2A37`-style text of the UUID.
    public static var uuidString: String { "0x" + hex16(uuid) }
}

/// Named field values given on the command line (`--heart-rate 72 --rr-intervals 850,860`).
///
/// Names are matched in camelCase; `--heart-rate` and `--heartRate` are the same field.
public final class FieldInput {
    private var values: [String: String]
    private var used: Set<String> = []
    let characteristic: String

    /// Named fields for the characteristic called `characteristic` (named in error messages).
    public init(_ values: [String: String], characteristic: String) {
        var camelCased: [String: String] = [:]
        for (key, value) in values { camelCased[FieldInput.camel(key)] = value }
        self.values = camelCased
        self.characteristic = characteristic
    }

    static func camel(_ name: String) -> String {
        var out = ""
        var upper = false
        for c in name {
            if c == "-" || c == "_" {
                upper = true
                continue
            }
            out.append(upper ? Character(c.uppercased()) : c)
            upper = false
        }
        return out
    }

    func raw(_ name: String) -> String? {
        used.insert(name)
        return values[name]
    }

    func fail(_ name: String, _ reason: String) -> GATTError {
        .unencodable(characteristic: characteristic, field: name, reason: reason)
    }

    /// Whether the field was given.
    public func has(_ name: String) -> Bool { values[name] != nil }

    /// An integer field within `range`; `default` when absent, else an error naming the field.
    public func int(_ name: String, _ range: ClosedRange<Int>, default def: Int? = nil) throws(GATTError) -> Int {
        guard let text = raw(name) else {
            if let def { return def }
            throw fail(name, "required; give --\(name) N")
        }
        guard let value = FieldInput.parseInt(text), range.contains(value) else {
            throw fail(name, "'\(text)' is not a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// An integer field within `range`, or nil when absent.
    public func optionalInt(_ name: String, _ range: ClosedRange<Int>) throws(GATTError) -> Int? {
        has(name) ? try int(name, range) : nil
    }

    static func parseInt(_ text: String) -> Int? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return Int(text.dropFirst(2), radix: 16) }
        return Int(text)
    }

    /// An SFLOAT field (a decimal number or a special value name); with `nameExponent` (as
    /// `vitalsim decode` prints it) the number is encoded at that exponent.
    public func sfloat(_ name: String) throws(GATTError) -> SFloat {
        guard let text = raw(name) else {
            throw fail(name, "required; give --\(name) VALUE (a decimal such as 120 or 0.0055, or NaN)")
        }
        if let exponent = try optionalInt(name + "Exponent", SFloat.exponentRange) {
            guard let value = SFloat(decimal: text, exponent: exponent) else {
                throw fail(name, "'\(text)' is not an SFLOAT with exponent \(exponent) (mantissa ±2045)")
            }
            return value
        }
        guard let value = SFloat(decimal: text) else {
            throw fail(name, "'\(text)' does not fit an SFLOAT (mantissa ±2045, exponent -8...7)")
        }
        return value
    }

    /// An SFLOAT field, or nil when absent.
    public func optionalSFloat(_ name: String) throws(GATTError) -> SFloat? { has(name) ? try sfloat(name) : nil }

    /// A FLOAT field (a decimal number or a special value name); with `nameExponent` the number is
    /// encoded at that exponent.
    public func medFloat(_ name: String) throws(GATTError) -> MedFloat {
        guard let text = raw(name) else { throw fail(name, "required; give --\(name) VALUE") }
        if let exponent = try optionalInt(name + "Exponent", MedFloat.exponentRange) {
            guard let value = MedFloat(decimal: text, exponent: exponent) else {
                throw fail(name, "'\(text)' is not a FLOAT with exponent \(exponent) (mantissa ±8388605)")
            }
            return value
        }
        guard let value = MedFloat(decimal: text) else {
            throw fail(name, "'\(text)' does not fit a FLOAT (mantissa ±8388605, exponent -128...127)")
        }
        return value
    }

    /// A boolean field (`true`/`false`, `1`/`0`).
    public func bool(_ name: String) throws(GATTError) -> Bool {
        guard let text = raw(name) else { return false }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw fail(name, "'\(text)' is not true or false")
        }
    }

    /// A date-time field (ISO 8601), or nil when absent.
    public func dateTime(_ name: String) throws(GATTError) -> DateTime? {
        guard let text = raw(name) else { return nil }
        guard let dateTime = DateTime(iso8601: text) else {
            throw fail(name, "'\(text)' is not a date time YYYY-MM-DDTHH:MM:SS")
        }
        return dateTime
    }

    /// A comma-separated list of integers within `range`.
    public func intList(_ name: String, _ range: ClosedRange<Int>) throws(GATTError) -> [Int] {
        guard let text = raw(name), !text.isEmpty else { return [] }
        var out: [Int] = []
        for part in text.split(separator: ",") {
            guard let value = FieldInput.parseInt(String(part)), range.contains(value) else {
                throw fail(name, "'\(part)' is not a whole number in \(range.lowerBound)...\(range.upperBound)")
            }
            out.append(value)
        }
        return out
    }

    /// A field that must be one of `options`; `default` when absent.
    public func choice(_ name: String, _ options: [String], default def: String? = nil) throws(GATTError) -> String {
        guard let text = raw(name) else {
            if let def { return def }
            throw fail(name, "required; valid: \(options.joined(separator: ", "))")
        }
        guard options.contains(text) else {
            throw fail(name, "'\(text)' is not one of \(options.joined(separator: ", "))")
        }
        return text
    }

    /// A field of hexadecimal bytes.
    public func bytes(_ name: String) throws(GATTError) -> [UInt8] {
        guard let text = raw(name) else { return [] }
        guard let bytes = Hex.decode(text) else { throw fail(name, "'\(text)' is not hex bytes") }
        return bytes
    }

    /// Throws when a field was given that the characteristic does not have.
    public func finish(known: [String]) throws(GATTError) {
        for k in values.keys.sorted() where !used.contains(k) {
            throw fail(k, "unknown field; valid: \(known.joined(separator: ", "))")
        }
    }
}

/// Hex text helpers (`16 48 52`, `164852`, `0x164852`).
public enum Hex {
    /// Bytes as lowercase hexadecimal, `separator` between bytes.
    public static func encode(_ bytes: [UInt8], separator: String = "") -> String {
        let digits = Array("0123456789abcdef")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: separator)
    }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ text: String) -> [UInt8]? {
        var hex = text.filter { !$0.isWhitespace && $0 != ":" && $0 != "-" }
        if hex.hasPrefix("0x") || hex.hasPrefix("0X") { hex.removeFirst(2) }
        guard hex.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var it = hex.makeIterator()
        while let high = it.next(), let low = it.next() {
            guard let byte = UInt8(String([high, low]), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }
}
