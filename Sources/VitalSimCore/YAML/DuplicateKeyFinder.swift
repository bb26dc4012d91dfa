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
            let k = Array(spelling)
            var i = 0
            while i + k.count <= chars.count {
                if Array(chars[i..<i + k.count]) == k, startsKey(chars, at: i), endsKey(chars, after: i + k.count) {
                    out.append(i)
                }
                i += 1
            }
        }
        return out.sorted()
    }

    /// Whether only indentation (and a `- `), or a `{`/`,` then spaces, precede column `i`.
    static func startsKey(_ chars: [Character], at i: Int) -> Bool {
        var j = i - 1
        while j >= 0, chars[j] == " " { j -= 1 }
        if j < 0 { return true }
        if chars[j] == "{" || chars[j] == "," { return true }
        if chars[j] == "-" {
            var k = j - 1
            while k >= 0, chars[k] == " " { k -= 1 }
            return k < 0
        }
        return false
    }

    /// Whether optional spaces and a `:` (then a space or the end) follow the key.
    static func endsKey(_ chars: [Character], after end: Int) -> Bool {
        var j = end
        while j < chars.count, chars[j] == " " { j += 1 }
        guard j < chars.count, chars[j] == ":" else { return false }
        return j + 1 == chars.count || chars[j + 1] == " "
    }
}
