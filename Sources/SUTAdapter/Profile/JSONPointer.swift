import Foundation

/// A JSON Pointer (RFC 6901) into a parsed JSON document (`JSONSerialization` objects), with one
/// extension: a `*` segment applied to an array stands for each of its elements, so that
/// `/evidence/*/detail/*/reference` collects every reference of a FHIR `DetectedIssue`. On an
/// object, `*` is the member named `*`, as RFC 6901 has it.
package struct JSONPointer: Sendable, Equatable, CustomStringConvertible {
    /// The unescaped reference tokens (`~1` → `/`, `~0` → `~`).
    package let tokens: [String]
    /// The pointer as written.
    package let description: String
    /// True when the pointer has a `*` segment (it may select several values).
    package let selectsMany: Bool

    /// Why a text is not a JSON Pointer.
    package struct SyntaxError: Error, Sendable {
        package let message: String
    }

    /// Parses `text`: empty (the whole document) or `/`-separated tokens.
    package init(_ text: String) throws(SyntaxError) {
        description = text
        guard !text.isEmpty else {
            tokens = []
            selectsMany = false
            return
        }
        guard text.hasPrefix("/") else {
            throw SyntaxError(message: "a JSON Pointer is empty or starts with '/' (RFC 6901), got '\(text)'")
        }
        var parsed: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var chars = raw.makeIterator()
            while let character = chars.next() {
                guard character == "~" else {
                    token.append(character)
                    continue
                }
                switch chars.next() {
                case "0": token.append("~")
                case "1": token.append("/")
                default:
                    throw SyntaxError(
                        message: "'~' must be followed by 0 or 1 in '\(text)' (RFC 6901 escapes ~0 and ~1)"
                    )
                }
            }
            parsed.append(token)
        }
        tokens = parsed
        selectsMany = parsed.contains("*")
    }

    /// The pointer of `tokens` (escaped as RFC 6901 has it).
    package init(tokens: [String]) {
        self.tokens = tokens
        selectsMany = tokens.contains("*")
        description = tokens.map {
            "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        }.joined()
    }

    /// The values the pointer selects in `document` (none when a member or index is absent).
    package func values(in document: Any) -> [Any] {
        var current: [Any] = [document]
        for token in tokens {
            var next: [Any] = []
            for value in current {
                if let array = value as? [Any] {
                    if token == "*" {
                        next += array
                    } else if let position = JSONPointer.index(token), position < array.count {
                        next.append(array[position])
                    }
                } else if let object = value as? [String: Any], let member = object[token] {
                    next.append(member)
                }
            }
            current = next
        }
        return current
    }

    /// The one value the pointer selects, or nil.
    package func value(in document: Any) -> Any? {
        guard selectsMany else { return walk(document) }
        let all = values(in: document)
        return all.count == 1 ? all[0] : nil
    }

    /// The value at a pointer without `*`, member by member (no intermediate lists: the alert poller
    /// reads every field of every listed alert this way on each poll).
    func walk(_ document: Any) -> Any? {
        var current = document
        for token in tokens {
            if let array = current as? [Any] {
                guard let position = JSONPointer.index(token), position < array.count else { return nil }
                current = array[position]
            } else if let object = current as? [String: Any], let member = object[token] {
                current = member
            } else {
                return nil
            }
        }
        return current
    }

    /// An array index token: digits without a leading zero.
    static func index(_ token: String) -> Int? {
        guard !token.isEmpty, token.allSatisfy(\.isASCII), token == "0" || !token.hasPrefix("0") else { return nil }
        return Int(token)
    }
}
