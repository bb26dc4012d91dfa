import Foundation
import TestFixtures
import XCTest

/// A `vitalsim serve` process started for a test: parses its start-up lines (`ca-certificate`,
/// `device-token`, `reader-token`, `listening on`) and stops it with SIGTERM (or SIGKILL).
final class SUTProcess {
    let process = Process()
    let stderrPath: String
    private(set) var base = ""
    private(set) var caFile: String?
    private(set) var deviceTokens: [String: String] = [:]
    private(set) var readerToken: String?
    /// The client certificate and key minted with `--self-signed --client-ca self`.
    private(set) var clientCertificate: String?
    private(set) var clientKey: String?

    /// Starts the server and waits for `listening on`; `arguments` follow `serve --port PORT` (0: a free one).
    init(
        _ arguments: [String],
        directory: String,
        port: Int = 0,
        file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        process.executableURL = URL(fileURLWithPath: TestSupport.vitalsimPath)
        process.arguments = ["serve", "--port", String(port)] + arguments
        let out = Pipe()
        process.standardOutput = out
        stderrPath = directory + "/serve-\(UInt32.random(in: 0...UInt32.max)).err"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
        var text = ""
        let deadline = Date(timeIntervalSinceNow: 60)
        while !text.contains("listening on"), process.isRunning, Date() < deadline {
            text += String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        }
        for l in text.split(separator: "\n") {
            let fields = l.split(separator: " ").map(String.init)
            switch fields.first {
            case "listening": base = fields.last ?? ""
            case "ca-certificate": caFile = fields.last
            case "device-token" where fields.count == 4: deviceTokens[fields[1]] = fields[3]
            case "reader-token": readerToken = fields.last
            case "client-certificate": clientCertificate = fields.last
            case "client-key": clientKey = fields.last
            default: break
            }
        }
        XCTAssertFalse(base.isEmpty, "vitalsim serve did not start: \(stderr)", file: file, line: line)
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    var pid: Int32 { process.processIdentifier }

    /// SIGTERM and wait; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGKILL (`kill -9`) and wait.
    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// curl against the server: returns (HTTP status, body). Adds the CA file and a bearer token when given.
    func curl(
        _ method: String,
        _ path: String,
        body: String? = nil,
        token: String? = nil,
        extra: [String] = []
    ) throws -> (status: Int, body: String) {
        var args = ["-s", "-w", "\n%{http_code}", "-X", method, "-H", "Content-Type: application/json"]
        if let caFile { args += ["--cacert", caFile] }
        if let token { args += ["-H", "Authorization: Bearer \(token)"] }
        if let body { args += ["--data-binary", body] }
        let ran = try TestSupport.run("curl", args + extra + [base + path])
        var lines = ran.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let status = Int(lines.popLast() ?? "") ?? 0
        return (status, lines.joined(separator: "\n"))
    }

    /// The JSON object or array of a body.
    static func json(_ body: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) }

    /// Alerts polled with the reader token (if any).
    func alerts(_ query: String = "") throws -> [[String: Any]] {
        let answer = try curl("GET", "/api/v1/alerts" + query, token: readerToken)
        return SUTProcess.json(answer.body) as? [[String: Any]] ?? []
    }
}
