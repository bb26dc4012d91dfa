import Foundation

/// What the unit tests share: the repository's files and fresh temporary folders (no processes).
public enum Fixtures {
    /// The repository root, for the shipped scenarios and golden files.
    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// A fresh temporary folder.
    public static func temporaryDirectory(_ name: String = "vitalsim") -> String {
        let unique = "\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: 0...UInt64.max))"
        let dir = NSTemporaryDirectory() + "\(name)-\(unique)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}

/// ISO-8601 UTC text of Unix seconds, written by Foundation (not VitalSim's own `CivilTime`), so
/// that a test of what the reference SUT renders does not share the code that renders it.
public enum CivilTimeText {
    /// `2024-11-07T08:00:00Z` for 1_730_966_400.
    public static func iso(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
