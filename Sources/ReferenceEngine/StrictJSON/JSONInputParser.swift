/// A strict RFC 8259 parser for request bodies, written for hostile input: UTF-8 only, the nesting
/// limit enforced while parsing (a body nested too deep costs no more than reading it up to the
/// limit), duplicate object keys refused with the key's path, numbers outside IEEE-754 doubles
/// refused, nothing after the value but whitespace. Errors are ``ValidationFailure``s (400) naming
/// the byte offset, so a client can find the fault in what it sent.
///
/// Foundation's `JSONDecoder` keeps the first of two equal keys silently, accepts UTF-16 and checks
/// depth only after the whole body is built, which is why the reference SUT has its own parser.
struct JSONInputParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0
    /// Where the parser is: object keys and array indices from the root, made into text only for
    /// a duplicate key's message (no string is built per key on the way).
    var path: [PathSegment] = []

    /// One step of ``path``.
    enum PathSegment {
        case key(String)
        case index(Int)
    }

    /// Longest number literal accepted, in bytes (a double needs at most 24).
    static let maxNumberLength = 100

    init(_ bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// The whole body as one value.
    mutating func document() throws(ValidationFailure) -> JSONInput {
        try checkEncoding()
        skipWhitespace()
        let value = try value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw syntax("unexpected \(describe(bytes[index])) after the JSON value") }
        return value
    }

    /// UTF-16 and UTF-32 bodies (with or without a byte order mark) are named as such; RFC 8259 §8.1
    /// requires UTF-8 between systems.
    func checkEncoding() throws(ValidationFailure) {
        let head = Array(bytes.prefix(4))
        let utf16 =
            head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF])
            || (head.count >= 2 && (head[0] == 0 || head[1] == 0))
        if utf16 {
            throw ValidationFailure(
                field: "",
                message: "the body is UTF-16 or UTF-32; JSON must be UTF-8 (RFC 8259 §8.1)"
            )
        }
        if head.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw ValidationFailure(
                field: "",
                message: "the body starts with a byte order mark; send UTF-8 without one (RFC 8259 §8.1)"
            )
        }
    }

    mutating func value(depth: Int) throws(ValidationFailure) -> JSONInput {
        guard index < bytes.count else { throw syntax("the body ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw syntax("unexpected \(describe(bytes[index])) where a value was expected")
        }
    }

    mutating func object(depth: Int) throws(ValidationFailure) -> JSONInput {
        try enter(depth)
        index += 1
        var members: [String: JSONInput] = [:]
        skipWhitespace()
        if try consume(UInt8(ascii: "}")) { return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw syntax("expected a quoted key") }
            let keyOffset = index
            let key = try string()
            guard members[key] == nil else {
                let keyPath = pathText(then: key)
                throw ValidationFailure(
                    field: keyPath,
                    message: "duplicate key \"\(keyPath)\" at byte \(keyOffset); each key may appear once"
                )
            }
            skipWhitespace()
            guard try consume(UInt8(ascii: ":")) else { throw syntax("expected ':' after the key \"\(key)\"") }
            skipWhitespace()
            path.append(.key(key))
            members[key] = try value(depth: depth)
            path.removeLast()
            skipWhitespace()
            if try consume(UInt8(ascii: "}")) { return .object(members) }
            guard try consume(UInt8(ascii: ",")) else { throw syntax("expected ',' or '}' in an object") }
        }
    }

    mutating func array(depth: Int) throws(ValidationFailure) -> JSONInput {
        try enter(depth)
        index += 1
        var items: [JSONInput] = []
        skipWhitespace()
        if try consume(UInt8(ascii: "]")) { return .array(items) }
        while true {
            skipWhitespace()
            path.append(.index(items.count))
            items.append(try value(depth: depth))
            path.removeLast()
            skipWhitespace()
            if try consume(UInt8(ascii: "]")) { return .array(items) }
            guard try consume(UInt8(ascii: ",")) else { throw syntax("expected ',' or ']' in an array") }
        }
    }

    /// The field path of `key` in the current object: `valueQuantity.value`, `[1].patientId`.
    func pathText(then key: String) -> String {
        var text = ""
        for segment in path + [.key(key)] {
            switch segment {
            case let .key(k): text += text.isEmpty ? k : ".\(k)"
            case let .index(i): text += "[\(i)]"
            }
        }
        return text
    }

    func enter(_ depth: Int) throws(ValidationFailure) {
        guard depth <= maxDepth else {
            throw ValidationFailure(field: "", message: "JSON nested deeper than \(maxDepth) levels (at byte \(index))")
        }
    }

    mutating func literal(_ word: StaticString, _ value: JSONInput) throws(ValidationFailure) -> JSONInput {
        let text = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= text.count, bytes[index..<index + text.count].elementsEqual(text) else {
            throw syntax("unexpected \(describe(bytes[index])) where a value was expected")
        }
        index += text.count
        return value
    }

    /// Skips the bytes JSON calls whitespace (space, tab, line feed, carriage return).
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` when it is next; false (nothing consumed) otherwise.
    mutating func consume(_ byte: UInt8) throws(ValidationFailure) -> Bool {
        guard index < bytes.count else { throw syntax("the body ends inside a value") }
        guard bytes[index] == byte else { return false }
        index += 1
        return true
    }

    func syntax(_ what: String) -> ValidationFailure {
        ValidationFailure(field: "", message: "the body is not valid JSON: \(what) at byte \(index)")
    }

    func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte)
            ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }
}
