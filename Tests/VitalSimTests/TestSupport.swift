import Foundation
import XCTest

/// Helpers shared by the tests: temporary folders, running the built `vitalsim` and other tools.
enum TestSupport {
    /// A fresh temporary folder.
    static func temporaryDirectory(_ name: String = "vitalsim") -> String {
        let dir = NSTemporaryDirectory() + "\(name)-\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: 0...UInt64.max))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The `vitalsim` executable built next to the test bundle.
    static var vitalsimPath: String {
        var url = Bundle(for: Marker.self).bundleURL
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("vitalsim").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return ".build/debug/vitalsim"
    }

    /// Runs a program; returns exit status, stdout and stderr.
    @discardableResult
    static func run(_ executable: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        if executable.hasPrefix("/") { p.executableURL = URL(fileURLWithPath: executable) } else {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        }
        p.arguments = executable.hasPrefix("/") ? args : [executable] + args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// Writes text to a file in `dir` and returns its path.
    static func write(_ text: String, to dir: String, name: String) -> String {
        let path = dir + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    /// Repository root (for the shipped scenarios).
    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    final class Marker {}
}
