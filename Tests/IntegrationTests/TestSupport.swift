import Foundation
import XCTest

/// Helpers shared by the tests: temporary folders, running the built `vitalsim` and other tools.
enum TestSupport {
    /// A fresh temporary folder.
    static func temporaryDirectory(_ name: String = "vitalsim") -> String {
        let dir =
            NSTemporaryDirectory()
            + "\(name)-\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: 0...UInt64.max))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The shipped golden files copied into `directory`/golden with their latency budgets as SHOULD
    /// (judged, reported as warnings): for tests of something other than latency, whose runs share a
    /// loaded CI machine that passes 1 s now and then. The folder's path.
    static func goldensWithBudgetsAsShould(in directory: String) throws -> String {
        let folder = directory + "/golden"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let shipped = repositoryRoot + "/golden"
        for name in try FileManager.default.contentsOfDirectory(atPath: shipped) where name.hasSuffix(".golden.yaml") {
            let text = try String(contentsOfFile: shipped + "/" + name, encoding: .utf8)
            try text.replacingOccurrences(of: "budgets: SHALL", with: "budgets: SHOULD").write(
                toFile: folder + "/" + name,
                atomically: true,
                encoding: .utf8
            )
        }
        return folder
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

    /// Runs `vitalsim` with its output in files under `directory` (long runs write more than a pipe
    /// holds), with `environment` changes applied (nil removes a variable).
    static func vitalsim(
        _ args: [String],
        in directory: String,
        environment: [String: String?] = [:]
    ) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: vitalsimPath)
        process.arguments = args
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = directory + "/out-\(UInt32.random(in: 0...UInt32.max))"
        let err = out + ".err"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: out)
        process.standardError = FileHandle(forWritingAtPath: err)
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        )
    }

    /// Runs a program; returns exit status, stdout and stderr.
    @discardableResult
    static func run(_ executable: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        }
        process.arguments = executable.hasPrefix("/") ? args : [executable] + args
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errorOutput = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: output, as: UTF8.self),
            String(decoding: errorOutput, as: UTF8.self)
        )
    }

    /// Runs a program with its output going to files rather than pipes, for programs that leave
    /// daemons behind (`pg_ctl start`); returns status and output. Foundation's `Process` notices a
    /// child's exit through a descriptor the child inherits, so a daemon that kept it would make
    /// `waitUntilExit` hang: Python's `subprocess` (which closes every other descriptor) starts the program.
    @discardableResult
    static func runToFiles(_ executable: String, _ args: [String]) throws -> (status: Int32, out: String) {
        let dir = temporaryDirectory("run")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/out", contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments =
            ["-c", "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))", executable] + args
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: dir + "/out")
        process.standardError = process.standardOutput
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: dir + "/out", encoding: .utf8)) ?? "")
    }

    /// Writes text to a file in `dir` and returns its path.
    static func write(_ text: String, to dir: String, name: String) -> String {
        let path = dir + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    /// Repository root (for the shipped scenarios).
    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// `n` distinct free TCP ports on 127.0.0.1 (bound together, then released).
    static func freePorts(_ n: Int) -> [UInt16] {
        var sockets: [Int32] = []
        var ports: [UInt16] = []
        for _ in 0..<n {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in(
                sin_family: sa_family_t(AF_INET),
                sin_port: 0,
                sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")),
                sin_zero: (0, 0, 0, 0, 0, 0, 0, 0)
            )
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutablePointer(to: &addr) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    _ = bind(fd, $0, len)
                    _ = getsockname(fd, $0, &len)
                }
            }
            ports.append(UInt16(bigEndian: addr.sin_port))
            sockets.append(fd)
        }
        for fd in sockets { close(fd) }
        return ports
    }

    /// Starts `python3 script arguments…` (a backend or proxy of `Tests/backends/`) and reads the
    /// `listening on URL` line it prints first; the process and the URL.
    static func startListening(_ script: String, _ arguments: [String]) throws -> (Process, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", repositoryRoot + "/Tests/backends/" + script] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        guard line.hasPrefix("listening on "), let url = line.split(separator: " ").last else {
            process.terminate()
            XCTFail("\(script) did not start: \(line)")
            throw CocoaError(.executableLoad)
        }
        return (process, url.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    final class Marker {}
}
