import Foundation

/// Small file helpers with errors a user can act on.
package enum FileText {
    /// Errors reading or writing files.
    package enum Failure: Error, CustomStringConvertible {
        case unreadable(path: String)
        /// The file is not UTF-8: the first invalid byte and its position (1-based).
        case notUTF8(path: String, line: Int, column: Int, byte: UInt8)
        case unwritable(path: String)
        package var description: String {
            switch self {
            case let .unreadable(p): "cannot read '\(p)': the file does not exist or is not readable"
            case let .notUTF8(p, line, column, byte):
                "'\(p)' is not UTF-8 text: byte 0x\(String(byte, radix: 16, uppercase: true)) at line \(line), column \(column)"
            case let .unwritable(p): "cannot write '\(p)': check that the folder exists and is writable"
            }
        }
    }

    /// Reads a UTF-8 text file; a byte that is not UTF-8 is named with its line and column.
    package static func read(_ path: String) throws(Failure) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        let bytes = [UInt8](data)
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        let (offset, line, column) = firstInvalidUTF8(bytes)
        throw .notUTF8(path: path, line: line, column: column, byte: bytes[offset])
    }

    /// The offset, line and column (1-based, in characters) of the first byte that is not UTF-8.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> (offset: Int, line: Int, column: Int) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        var line = 1
        var column = 1
        while case let .scalarValue(scalar) = decoder.decode(&iterator) {
            offset += UTF8.width(scalar)
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (min(offset, bytes.count - 1), line, column)
    }
}
