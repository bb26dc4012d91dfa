import Foundation

/// Small file helpers with errors a user can act on.
package enum FileText {
    /// Errors reading or writing files.
    package enum Failure: Error, CustomStringConvertible {
        case unreadable(path: String)
        case unwritable(path: String)
        package var description: String {
            switch self {
            case let .unreadable(p): "cannot read '\(p)': the file does not exist or is not readable UTF-8 text"
            case let .unwritable(p): "cannot write '\(p)': check that the folder exists and is writable"
            }
        }
    }

    /// Reads a UTF-8 text file.
    package static func read(_ path: String) throws(Failure) -> String {
        guard let data = FileManager.default.contents(atPath: path), let s = String(data: data, encoding: .utf8) else {
            throw .unreadable(path: path)
        }
        return s
    }
}
