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
        var i = 0
        func line(_ at: Int) -> Int { b[..<at].reduce(1) { $1 == 10 ? $0 + 1 : $0 } }
        func starts(_ token: String, at j: Int) -> Bool {
            let t = Array(token.utf8)
            return j + t.count <= b.count && Array(b[j..<(j + t.count)]) == t
        }
        func blank(_ from: Int, through to: Int) {
            for k in from...min(to, b.count - 1) where b[k] != 10 { b[k] = 32 }
        }
        func end(of token: String, from j: Int) -> Int? {
            let t = Array(token.utf8)
            var k = j
            while k + t.count <= b.count {
                if Array(b[k..<(k + t.count)]) == t { return k + t.count - 1 }
                k += 1
            }
            return nil
        }
        while i < b.count {
            guard b[i] == 60 || b[i] == 38 else {
                i += 1
                continue
            }
            if starts("<?", at: i) || starts("<!--", at: i) {
                guard let last = end(of: starts("<?", at: i) ? "?>" : "-->", from: i + 2) else {
                    return .failure(Problem(line: line(i), message: "not well-formed XML: markup not closed"))
                }
                blank(i, through: last)
                i = last + 1
            } else if starts("<!DOCTYPE", at: i) {
                guard let last = doctypeEnd(b, from: i) else {
                    return .failure(
                        Problem(
                            line: line(i),
                            message: "not well-formed XML: the document type declaration is not closed"
                        )
                    )
                }
                blank(i, through: last)
                i = last + 1
            } else if starts("<!", at: i) {
                return .failure(
                    Problem(
                        line: line(i),
                        message: "not an export: unexpected markup '<!' (a declaration or CDATA section)"
                    )
                )
            } else if b[i] == 38, !knownReference(b, at: i) {
                return .failure(
                    Problem(
                        line: line(i),
                        message: "not an export: an entity reference other than &lt; &gt; &amp; &quot; &apos; or &#…;"
                    )
                )
            } else {
                i += 1
            }
        }
        return .success(String(decoding: b, as: UTF8.self))
    }

    /// The last byte of a document type declaration starting at `i`: its `>`, after the internal
    /// subset's `]` when it has one (quoted strings inside may hold either).
    static func doctypeEnd(_ b: [UInt8], from i: Int) -> Int? {
        var k = i + 9
        var quote: UInt8?
        var inSubset = false
        while k < b.count {
            let c = b[k]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == 34 || c == 39 {
                quote = c
            } else if c == 91 {
                inSubset = true
            } else if c == 93 {
                inSubset = false
            } else if c == 62, !inSubset {
                return k
            }
            k += 1
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
