import Foundation

enum FileManagerShim {
    static func contents(_ dir: String) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir) }
    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }
}

extension FileManagerShim {
    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}
