import Foundation

/// What the unit tests share: the repository's files and fresh temporary folders (no processes).
public enum Fixtures {
    /// The repository root, for the shipped scenarios and golden files.
    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// A fresh temporary folder.
    public static func temporaryDirectory(_ name: String = "vitalsim") -> String {
        let unique = "\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: 0...UInt64.max))"
        let dir = NSTemporaryDirectory() + "\(name)-\(unique)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}
