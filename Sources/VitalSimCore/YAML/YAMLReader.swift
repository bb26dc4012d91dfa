import Yams

/// Strict, position-aware reading of a Yams node tree: unknown keys, duplicate keys and wrong
/// types become ``ScenarioIssue``s with the node's line and column.
/// Public so that other YAML formats (alert rules) report problems the same way.
package final class YAMLReader {
    package let file: String
    package private(set) var issues: [ScenarioIssue] = []
    /// Issues found after ``maxIssues`` were recorded (counted, not kept).
    package private(set) var dropped = 0

    /// The most issues recorded per file: a file with thousands of mistakes is reported by its first
    /// ones, and checking stops early (900,000 unknown keys once took 15 s to list).
    package static let maxIssues = 100

    /// Lines of the file before the text whose nodes are being read: a node's mark counts from the
    /// start of the text it was composed from (one patient of a large scenario, ``PatientListChunks``).
    package var linesBefore = 0

    package init(file: String) { self.file = file }

    /// The line of `node` in the file (its mark's, after ``linesBefore``); 0 when it has none.
    package func line(of node: Node?) -> Int {
        guard let line = node?.mark?.line else { return 0 }
        return line + linesBefore
    }

    /// Whether ``maxIssues`` issues have been recorded; later ones are only counted.
    package var isFull: Bool { issues.count >= Self.maxIssues }

    package func fail(_ node: Node?, _ field: String, _ message: String) {
        let mark = node?.mark
        failAt(line: mark.map { $0.line + linesBefore } ?? 1, column: mark?.column ?? 1, field, message)
    }

    /// Adds problems found in another file (one this file names).
    package func record(_ other: [ScenarioIssue]) {
        for issue in other { add(issue) }
    }

    package func failAt(line: Int, column: Int, _ field: String, _ message: String) {
        add(ScenarioIssue(file: file, line: line, column: column, field: field, message: message))
    }

    func add(_ issue: ScenarioIssue) {
        guard !isFull else {
            dropped += 1
            return
        }
        issues.append(issue)
    }

    /// The issues in file order, and a last one counting those not kept.
    package var reportedIssues: [ScenarioIssue] {
        var out = issues.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
        if dropped > 0 {
            out.append(
                ScenarioIssue(
                    file: file,
                    line: out.last?.line ?? 1,
                    column: out.last?.column ?? 1,
                    field: "",
                    message: "\(dropped) more issue(s) not listed; fix the first \(Self.maxIssues) and run again"
                )
            )
        }
        return out
    }

    /// A mapping's entries by key, after checking for unknown, duplicate and missing keys.
    package func mapping(_ node: Node, _ field: String, allowed: [String], required: [String] = []) -> Fields? {
        guard let map = node.mapping else {
            fail(node, field, "expected a mapping with keys \(allowed.joined(separator: ", ")), got \(kindName(node))")
            return nil
        }
        var entries: [String: (Node, Node)] = [:]
        for (k, v) in map {
            guard let key = k.scalar?.string else {
                fail(k, field, "keys must be plain strings")
                continue
            }
            let path = field.isEmpty ? key : field + "." + key
            if entries[key] != nil {
                fail(k, path, "duplicate key '\(key)'")
                continue
            }
            if !allowed.contains(key) {
                var msg = "unknown key '\(key)'"
                // The suggestion (an edit distance per valid key) only for an issue that will be listed.
                if !isFull, let near = YAMLReader.nearest(key, in: allowed) { msg += " (did you mean '\(near)'?)" }
                fail(k, path, msg + "; valid keys: \(allowed.joined(separator: ", "))")
                continue
            }
            entries[key] = (k, v)
        }
        for r in required where entries[r] == nil {
            fail(node, field.isEmpty ? r : field + "." + r, "required key '\(r)' is missing")
        }
        return Fields(reader: self, node: node, field: field, entries: entries)
    }

    package func kindName(_ node: Node) -> String {
        switch node {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case let .scalar(s):
            s.style == .plain && Double(s.string) != nil ? "the number \(s.string)" : "the string '\(s.string)'"
        case .alias: "an alias"
        }
    }

    package static func nearest(_ word: String, in options: [String]) -> String? {
        var best: (String, Int)?
        for option in options {
            let distance = editDistance(word.lowercased(), option.lowercased())
            if distance <= max(2, option.count / 3), distance < (best?.1 ?? .max) { best = (option, distance) }
        }
        return best?.0
    }

    static func editDistance(_ first: String, _ second: String) -> Int {
        let first = Array(first)
        let second = Array(second)
        if first.isEmpty { return second.count }
        var prev = Array(0...second.count)
        for i in 1...first.count {
            var cur = [i] + Array(repeating: 0, count: second.count)
            for j in 1...max(second.count, 1) where j <= second.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (first[i - 1] == second[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[second.count]
    }
}

/// The checked entries of one mapping, with typed accessors that record issues.
package struct Fields {
    package let reader: YAMLReader
    package let node: Node
    package let field: String
    let entries: [String: (Node, Node)]

    package func path(_ key: String) -> String { field.isEmpty ? key : field + "." + key }
    package func has(_ key: String) -> Bool { entries[key] != nil }
    package func value(_ key: String) -> Node? { entries[key]?.1 }
    package var line: Int { reader.line(of: node) }

    package func string(_ key: String) -> String? {
        guard let valueNode = value(key) else { return nil }
        guard let scalar = valueNode.scalar, !scalar.string.isEmpty else {
            reader.fail(valueNode, path(key), "expected a non-empty string, got \(reader.kindName(valueNode))")
            return nil
        }
        return scalar.string
    }

    /// `true` or `false` (plain), nil when absent or anything else (recorded).
    package func bool(_ key: String) -> Bool? {
        guard let valueNode = value(key) else { return nil }
        switch valueNode.scalar.map({ ($0.string, $0.style) }) {
        case ("true", .plain)?: return true
        case ("false", .plain)?: return false
        default:
            reader.fail(valueNode, path(key), "expected true or false, got \(reader.kindName(valueNode))")
            return nil
        }
    }

    package func number(_ key: String, in range: ClosedRange<Double>, unit: String) -> Double? {
        guard let valueNode = value(key) else { return nil }
        guard let scalar = valueNode.scalar, scalar.style == .plain, let parsed = Double(scalar.string), parsed.isFinite
        else {
            reader.fail(valueNode, path(key), "expected a number (\(unit)), got \(reader.kindName(valueNode))")
            return nil
        }
        guard range.contains(parsed) else {
            reader.fail(
                valueNode,
                path(key),
                "\(scalar.string) is out of range; valid: \(fmt(range.lowerBound))...\(fmt(range.upperBound)) \(unit)"
            )
            return nil
        }
        return parsed
    }

    package func integer(_ key: String, in range: ClosedRange<Int64>) -> Int64? {
        guard let valueNode = value(key) else { return nil }
        guard let scalar = valueNode.scalar, scalar.style == .plain, let parsed = Int64(scalar.string) else {
            reader.fail(valueNode, path(key), "expected a whole number, got \(reader.kindName(valueNode))")
            return nil
        }
        guard range.contains(parsed) else {
            reader.fail(
                valueNode,
                path(key),
                "\(parsed) is out of range; valid: \(range.lowerBound)...\(range.upperBound)"
            )
            return nil
        }
        return parsed
    }

    /// A time of day `HH:MM` (or `HH:MM:SS`), as ms after midnight.
    package func timeOfDay(_ node: Node, _ fieldPath: String) -> Int64? {
        let parts = (node.scalar?.string ?? "").split(separator: ":").map { Int($0) }
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ $0 != nil }),
            let hours = parts[0], let minutes = parts[1], (0..<24).contains(hours), (0..<60).contains(minutes),
            parts.count == 2 || (0..<60).contains(parts[2] ?? -1)
        else {
            reader.fail(node, fieldPath, "expected a time of day HH:MM (00:00...23:59), got \(reader.kindName(node))")
            return nil
        }
        return Int64(hours * 3600 + minutes * 60 + (parts.count == 3 ? parts[2]! : 0)) * 1000
    }

    package func choice<E: RawRepresentable & CaseIterable>(_ key: String, _ type: E.Type, what: String) -> E?
    where E.RawValue == String {
        guard let raw = string(key) else { return nil }
        if let match = E(rawValue: raw) { return match }
        let all = E.allCases.map(\.rawValue)
        var msg = "unknown \(what) '\(raw)'"
        if let near = YAMLReader.nearest(raw, in: all) { msg += " (did you mean '\(near)'?)" }
        reader.fail(value(key), path(key), msg + "; valid: \(all.joined(separator: ", "))")
        return nil
    }

    package func list(_ key: String) -> [Node]? {
        guard let valueNode = value(key) else { return nil }
        guard let seq = valueNode.sequence else {
            reader.fail(valueNode, path(key), "expected a list, got \(reader.kindName(valueNode))")
            return nil
        }
        return Array(seq)
    }

    private func fmt(_ number: Double) -> String { number == number.rounded() ? String(Int64(number)) : String(number) }
}
