extension JSONInputParser {
    /// A quoted string (the index on its opening quote): escapes decoded, raw control characters
    /// and invalid UTF-8 refused.
    mutating func string() throws(ValidationFailure) -> String {
        let start = index
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else {
                throw ValidationFailure(
                    field: "",
                    message: "the body is not valid JSON: the string at byte \(start) is not closed"
                )
            }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw ValidationFailure(
                        field: "",
                        message:
                            "the body is not UTF-8: the string at byte \(start) holds an invalid byte sequence (RFC 8259 §8.1)"
                    )
                }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            case 0..<0x20:
                throw syntax("control character \(describe(byte)) in a string; escape it")
            default:
                out.append(byte)
                index += 1
            }
        }
    }

    /// One escape sequence (the index on its backslash), appended as UTF-8.
    mutating func escape(into out: inout [UInt8]) throws(ValidationFailure) {
        index += 1
        guard index < bytes.count else { throw syntax("the body ends inside an escape") }
        let c = bytes[index]
        index += 1
        if let byte = Self.simpleEscapes[c] {
            out.append(byte)
            return
        }
        guard c == UInt8(ascii: "u") else { throw syntax("invalid escape \\\(describe(c))") }
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else {
                throw syntax("a high surrogate \\u\(String(scalar, radix: 16)) without its low surrogate")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw syntax("a high surrogate followed by \\u\(String(low, radix: 16))")
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else {
            throw syntax("a lone surrogate \\u\(String(scalar, radix: 16))")
        }
        out.append(contentsOf: String(Character(unicode)).utf8)
    }

    /// The escapes of one character after the backslash, and the byte each stands for.
    static let simpleEscapes: [UInt8: UInt8] = [
        UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
        UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
    ]

    /// Four hexadecimal digits of a `\u` escape.
    mutating func hex4() throws(ValidationFailure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw syntax("a \\u escape needs four hexadecimal digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Character(Unicode.Scalar(bytes[index])).hexDigitValue else {
                throw syntax("a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// A number by RFC 8259's grammar: an integer when it has no fraction or exponent and fits 64
    /// bits, otherwise a double; refused when out of a double's range.
    mutating func number() throws(ValidationFailure) -> JSONInput {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard digitAhead else { throw syntax("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if digitAhead { throw syntax("a number with a leading zero") }
        } else {
            skipDigits()
        }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard digitAhead else { throw syntax("expected a digit after '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digitAhead else { throw syntax("expected a digit in the exponent") }
            skipDigits()
        }
        guard index - start <= Self.maxNumberLength else {
            throw ValidationFailure(
                field: "",
                message: "a number of \(index - start) digits at byte \(start); at most \(Self.maxNumberLength)"
            )
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else {
            throw ValidationFailure(field: "", message: "the number \(text) at byte \(start) is out of range")
        }
        return .number(number)
    }

    var digitAhead: Bool { index < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) }

    mutating func skipDigits() { while digitAhead { index += 1 } }
}
