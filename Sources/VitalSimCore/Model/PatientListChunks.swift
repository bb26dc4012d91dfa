import Yams

/// A scenario's `patients:` list cut into the texts of its items, so that a large scenario is
/// composed a few patients at a time: loading a 250,000-patient ward (a million devices, 80 MB of
/// YAML) peaked at 1.9 GB with Yams's node tree of the whole document, and at 0.75 GB (mostly the
/// scenario itself) composed by groups of patients (docs/performance.md).
///
/// Only the plain form is cut: a top-level `patients:` line followed by a block list whose items
/// start with `- ` at one indentation. Anything else (a flow list, document markers, no such key,
/// the key twice) gives `nil`, and the caller composes the whole document; so does a group of
/// items that does not compose as a list of as many (an alias to another group's anchor, a syntax
/// error: the whole document's composition names it).
struct PatientListChunks {
    /// The document with the list's lines emptied (each keeps its line break, so that every other
    /// node keeps its line): `patients:` reads as null in it.
    let rest: String
    /// Each item's text, whole lines from its `- ` line, and the file's lines before it.
    let items: [(text: Substring, linesBefore: Int)]

    /// The file's lines as ranges of `text` (without their line breaks).
    private static func lines(_ text: String) -> [Range<String.Index>] {
        var lines: [Range<String.Index>] = []
        let utf8 = text.utf8
        var start = utf8.startIndex
        var position = start
        while position < utf8.endIndex {
            if utf8[position] == 0x0A {
                lines.append(start..<position)
                start = utf8.index(after: position)
            }
            position = utf8.index(after: position)
        }
        if start < utf8.endIndex { lines.append(start..<utf8.endIndex) }
        return lines
    }

    /// The indentation of a line and its first character after it (nil for a blank line).
    private static func indentation(_ line: Substring.UTF8View) -> (spaces: Int, first: UInt8?, second: UInt8?) {
        var spaces = 0
        var iterator = line.makeIterator()
        while let byte = iterator.next() {
            if byte == 0x20 {
                spaces += 1
                continue
            }
            if byte == 0x0D { return (spaces, nil, nil) }
            return (spaces, byte, iterator.next())
        }
        return (spaces, nil, nil)
    }

    /// Whether a line is the top-level key `patients:` with nothing after it but a comment.
    private static func isPatientsKey(_ line: Substring) -> Bool {
        guard line.hasPrefix("patients:") else { return false }
        let after = line.dropFirst("patients:".count).drop { $0 == " " || $0 == "\r" }
        return after.isEmpty || after.first == "#"
    }

    init?(_ text: String) {
        let lines = Self.lines(text)
        var keyLine: Int?
        for (n, range) in lines.enumerated() {
            let line = text[range]
            if line.hasPrefix("---") || line.hasPrefix("...") || line.hasPrefix("%") { return nil }
            if Self.isPatientsKey(line) {
                if keyLine != nil { return nil }
                keyLine = n
            }
        }
        guard let keyLine else { return nil }
        var items: [(text: Substring, linesBefore: Int)] = []
        var dash: Int?
        var first: Int?
        var itemStart: Int?
        var end = lines.count
        func close(_ upTo: Int) {
            guard let s = itemStart else { return }
            items.append((text[lines[s].lowerBound..<(upTo < lines.count ? lines[upTo].lowerBound : text.endIndex)], s))
        }
        for n in (keyLine + 1)..<lines.count {
            let (spaces, byte, next) = Self.indentation(text[lines[n]].utf8)
            guard let byte, byte != UInt8(ascii: "#") else { continue }
            let isItem = byte == UInt8(ascii: "-") && (next == nil || next == 0x20 || next == 0x0D)
            if dash == nil {
                guard isItem else { return nil }
                dash = spaces
                first = n
            }
            if isItem && spaces == dash {
                close(n)
                itemStart = n
            } else if spaces < dash! || (spaces == dash! && !isItem) {
                end = n
                break
            }
        }
        guard let first else { return nil }
        close(end)
        let listEnd = end < lines.count ? lines[end].lowerBound : text.endIndex
        let emptied = text[lines[first].lowerBound..<listEnd].utf8.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        rest = String(text[..<lines[first].lowerBound]) + String(repeating: "\n", count: emptied) + text[listEnd...]
        self.items = items
    }
}

/// The patients of ``PatientListChunks``, composed a group of items at a time when read and
/// dropped after (one composition per patient made loading a million devices 40 % slower).
final class PatientNodes {
    /// Items composed together: their nodes are a few hundred KB.
    static let group = 128
    private let chunks: PatientListChunks
    /// Whether a group did not compose as a list of its items (the whole document must be composed).
    private(set) var failed = false

    init(_ chunks: PatientListChunks) { self.chunks = chunks }

    /// The nodes of items `first..<first + count`, or nil when their text does not compose as a
    /// list of that many.
    private func compose(_ first: Int, _ count: Int) -> [Node]? {
        let items = chunks.items
        let text = items[first].text.base[items[first].text.startIndex..<items[first + count - 1].text.endIndex]
        guard let root = try? Yams.compose(yaml: String(text)), let list = root.sequence, list.count == count
        else { return nil }
        return Array(list)
    }

    /// Each item's index and node, with `reader`'s ``YAMLReader/linesBefore`` set to its group's
    /// place in the file while it is read (and 0 after the last); stops at the first group that
    /// does not compose.
    func read(by reader: YAMLReader) -> some Sequence<(Int, Node)> {
        var index = 0
        var nodes: ArraySlice<Node> = []
        return AnySequence {
            AnyIterator { [self] () -> (Int, Node)? in
                if nodes.isEmpty {
                    reader.linesBefore = 0
                    guard !failed, index < chunks.items.count else { return nil }
                    let count = min(Self.group, chunks.items.count - index)
                    guard let composed = compose(index, count) else {
                        failed = true
                        return nil
                    }
                    nodes = composed[...]
                    reader.linesBefore = chunks.items[index].linesBefore
                }
                defer { index += 1 }
                return (index, nodes.removeFirst())
            }
        }
    }
}
