/// An export's XML reduced to what Foundation's XMLParser can be given safely: elements, attributes,
/// text and the predefined or numeric character references. swift-corelibs-foundation's SAX
/// callbacks (Swift 6.3, Linux) pass NULL to strlen for a DTD's attribute declarations (which
/// every Apple Health export carries) and for a processing instruction without data, and crash
/// (found by an export and by `ci/fuzz.sh`). So processing instructions (the XML declaration
/// among them), document type declarations and comments are blanked out, line breaks kept so
/// lines still count, and any other `<!` or `<?` markup, or an entity reference of another name,
/// is refused before the parser sees it. The records need none of them.
enum HealthXMLText {
    struct Problem: Error {
        var line: Int
        var message: String
    }

    static func elementsOnly(_ text: String) -> Result<String, Problem> {
        var b = Array(text.utf8)
        var index = 0
        func line(_ at: Int) -> Int { b[..<at].reduce(1) { $1 == 10 ? $0 + 1 : $0 } }
        func starts(_ token: String, at j: Int) -> Bool {
            let tokenBytes = Array(token.utf8)
            return j + tokenBytes.count <= b.count && Array(b[j..<(j + tokenBytes.count)]) == tokenBytes
        }
        func blank(_ from: Int, through to: Int) {
            for k in from...min(to, b.count - 1) where b[k] != 10 { b[k] = 32 }
        }
        func end(of token: String, from j: Int) -> Int? {
            let tokenBytes = Array(token.utf8)
            var scan = j
            while scan + tokenBytes.count <= b.count {
                if Array(b[scan..<(scan + tokenBytes.count)]) == tokenBytes { return scan + tokenBytes.count - 1 }
                scan += 1
            }
            return nil
        }
        while index < b.count {
            guard b[index] == 60 || b[index] == 38 else {
                index += 1
                continue
            }
            if starts("<?", at: index) || starts("<!--", at: index) {
                guard let last = end(of: starts("<?", at: index) ? "?>" : "-->", from: index + 2) else {
                    return .failure(Problem(line: line(index), message: "not well-formed XML: markup not closed"))
                }
                blank(index, through: last)
                index = last + 1
            } else if starts("<!DOCTYPE", at: index) {
                guard let last = doctypeEnd(b, from: index) else {
                    return .failure(
                        Problem(
                            line: line(index),
                            message: "not well-formed XML: the document type declaration is not closed"
                        )
                    )
                }
                blank(index, through: last)
                index = last + 1
            } else if starts("<!", at: index) {
                return .failure(
                    Problem(
                        line: line(index),
                        message: "not an export: unexpected markup '<!' (a declaration or CDATA section)"
                    )
                )
            } else if b[index] == 38, !knownReference(b, at: index) {
                return .failure(
                    Problem(
                        line: line(index),
                        message: "not an export: an entity reference other than &lt; &gt; &amp; &quot; &apos; or &#…;"
                    )
                )
            } else {
                index += 1
            }
        }
        return .success(String(decoding: b, as: UTF8.self))
    }

    /// The last byte of a document type declaration starting at `i`: its `>`, after the internal
    /// subset's `]` when it has one (quoted strings inside may hold either).
    static func doctypeEnd(_ b: [UInt8], from i: Int) -> Int? {
        var scan = i + 9
        var quote: UInt8?
        var inSubset = false
        while scan < b.count {
            let byte = b[scan]
            if let q = quote {
                if byte == q { quote = nil }
            } else if byte == 34 || byte == 39 {
                quote = byte
            } else if byte == 91 {
                inSubset = true
            } else if byte == 93 {
                inSubset = false
            } else if byte == 62, !inSubset {
                return scan
            }
            scan += 1
        }
        return nil
    }

    /// Whether `&` at `i` starts one of the predefined references or a numeric one.
    static func knownReference(_ b: [UInt8], at i: Int) -> Bool {
        guard let semicolon = b[i...].prefix(12).firstIndex(of: 59) else { return false }
        let name = String(decoding: b[(i + 1)..<semicolon], as: UTF8.self)
        if ["lt", "gt", "amp", "quot", "apos"].contains(name) { return true }
        if name.hasPrefix("#x") { return name.count > 2 && name.dropFirst(2).allSatisfy(\.isHexDigit) }
        return name.hasPrefix("#") && name.count > 1 && name.dropFirst().allSatisfy(\.isNumber)
    }
}
