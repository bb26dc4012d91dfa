/// Finds where a YAML key appears the second time, for the duplicate-key error Yams raises with the
/// position of the mapping only: a key repeated in a mapping is reported where the repetition is.
///
/// It scans the text for the key written as a mapping key (plain, single- or double-quoted, then
/// `:`), at the start of a line (after indentation and an optional `- `) or after `{` or `,` in a
/// flow mapping, and returns the second occurrence among those at the same column (block
/// mappings) or on the same line (flow mappings). Nil when it cannot tell.
package enum DuplicateKeyFinder {
    package static func secondOccurrence(of key: String, in text: String) -> (line: Int, column: Int)? {
        var seenColumns: Set<Int> = []
        for (index, lineText) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let chars = Array(lineText)
            var flowSeen = false
            for column in keyColumns(of: key, in: chars) {
                let isFlow = column > 0 && chars[..<column].contains { $0 == "{" || $0 == "," }
                if isFlow {
                    if flowSeen { return (index + 1, column + 1) }
                    flowSeen = true
                } else if !seenColumns.insert(column).inserted {
                    return (index + 1, column + 1)
                }
            }
        }
        return nil
    }

    /// 0-based columns where `key` starts as a mapping key in one line.
    static func keyColumns(of key: String, in chars: [Character]) -> [Int] {
        var out: [Int] = []
        for spelling in [key, "\"\(key)\"", "'\(key)'"] {
            let keyBytes = Array(spelling)
            var position = 0
            while position + keyBytes.count <= chars.count {
                if Array(chars[position..<position + keyBytes.count]) == keyBytes, startsKey(chars, at: position),
                    endsKey(chars, after: position + keyBytes.count)
                {
                    out.append(position)
                }
                position += 1
            }
        }
        return out.sorted()
    }

    /// Whether only indentation (and a `- `), or a `{`/`,` then spaces, precede column `i`.
    static func startsKey(_ chars: [Character], at i: Int) -> Bool {
        var previous = i - 1
        while previous >= 0, chars[previous] == " " { previous -= 1 }
        if previous < 0 { return true }
        if chars[previous] == "{" || chars[previous] == "," { return true }
        if chars[previous] == "-" {
            var before = previous - 1
            while before >= 0, chars[before] == " " { before -= 1 }
            return before < 0
        }
        return false
    }

    /// Whether optional spaces and a `:` (then a space or the end) follow the key.
    static func endsKey(_ chars: [Character], after end: Int) -> Bool {
        var position = end
        while position < chars.count, chars[position] == " " { position += 1 }
        guard position < chars.count, chars[position] == ":" else { return false }
        return position + 1 == chars.count || chars[position + 1] == " "
    }
}
