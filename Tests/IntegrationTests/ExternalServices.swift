import Foundation
import XCTest

/// A throwaway PostgreSQL cluster from Debian's package: `initdb` into a temporary directory,
/// started with `pg_ctl` on a free loopback port (as the `postgres` user when the tests run as root).
final class PostgresServer {
    let directory: String
    let port: UInt16
    let bin: String
    let asRoot = getuid() == 0

    /// Nil (with the reason) when PostgreSQL's server binaries are not installed.
    static func binaries() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted {
            (Int($0) ?? 0) > (Int($1) ?? 0)
        }
        return versions.map { "\(root)/\($0)/bin" }.first {
            FileManager.default.isExecutableFile(atPath: $0 + "/initdb")
        }
    }

    init() throws {
        guard let bin = PostgresServer.binaries() else {
            throw XCTSkip("PostgreSQL server binaries missing: run ci/setup-debian.sh")
        }
        self.bin = bin
        directory = TestSupport.temporaryDirectory("pg")
        port = TestSupport.freePorts(1)[0]
        try? FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        if asRoot { _ = try TestSupport.run("chown", ["-R", "postgres:postgres", directory]) }
        let initdb = try run("initdb", ["-D", directory + "/data", "-A", "trust", "-U", "vitalsim", "--no-sync"])
        XCTAssertEqual(initdb.status, 0, initdb.out)
        let start = try run(
            "pg_ctl",
            [
                "-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "60", "start",
                "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=on",
            ]
        )
        XCTAssertEqual(
            start.status,
            0,
            start.out + ((try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? "")
        )
    }

    var url: String { "postgres://vitalsim@127.0.0.1:\(port)/postgres" }

    func run(_ tool: String, _ args: [String]) throws -> (status: Int32, out: String) {
        asRoot
            ? try TestSupport.runToFiles("/usr/sbin/runuser", ["-u", "postgres", "--", bin + "/" + tool] + args)
            : try TestSupport.runToFiles(bin + "/" + tool, args)
    }

    /// Rows of a query through psql (tab-separated).
    func query(_ sql: String) throws -> [String] {
        let ran = try TestSupport.run(
            "psql",
            ["-h", "127.0.0.1", "-p", String(port), "-U", "vitalsim", "-d", "postgres", "-At", "-c", sql]
        )
        return ran.out.split(separator: "\n").map(String.init)
    }

    deinit {
        _ = try? run("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A mosquitto broker (Debian's package) on a free loopback port, anonymous, MQTT 3.1.1 and 5.
final class MosquittoBroker {
    let process = Process()
    let port: UInt16
    let directory: String

    /// Starts the broker on `port` (a free one when nil), with `settings` (configuration lines)
    /// after the listener's.
    init(port fixed: UInt16? = nil, settings: String = "") throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else {
            throw XCTSkip("mosquitto missing: run ci/setup-debian.sh")
        }
        directory = TestSupport.temporaryDirectory("mosquitto")
        port = fixed ?? TestSupport.freePorts(1)[0]
        let conf = TestSupport.write(
            "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n" + settings,
            to: directory,
            name: "mosquitto.conf"
        )
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", conf]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // From an async test this runs on a Swift concurrency thread, which blocks SIGTERM; the
        // broker would inherit that mask and ignore terminate() (as ChildProcess.launch explains).
        var empty = sigset_t()
        var old = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        try process.run()
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            if (try? TestSupport.run(
                "mosquitto_pub",
                ["-h", "127.0.0.1", "-p", String(port), "-t", "probe", "-m", "x"]
            ))?.status == 0 {
                return
            }
            usleep(100_000)
        }
        XCTFail("mosquitto did not start on port \(port)")
    }

    var address: String { "127.0.0.1:\(port)" }

    /// Kills the broker like a crash (SIGKILL): its sessions and queued messages are gone.
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A webhook receiver in Python's standard library (an independent HTTP server): records every
/// POST body, one JSON per line, and answers the first `failFirst` requests with 503 to exercise retries.
final class WebhookReceiver {
    let process = Process()
    let port: UInt16
    let log: String
    let directory: String

    init(failFirst: Int = 0) throws {
        directory = TestSupport.temporaryDirectory("webhook")
        port = TestSupport.freePorts(1)[0]
        log = directory + "/received.jsonl"
        let script = """
            import http.server, sys, threading
            fails = [\(failFirst)]
            lock = threading.Lock()
            class H(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                def do_POST(self):
                    body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                    with lock:
                        failing = fails[0] > 0
                        if failing:
                            fails[0] -= 1
                        else:
                            with open(sys.argv[2], "ab") as f:
                                f.write(body + b"\\n")
                    status = 503 if failing else 204
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                def log_message(self, *args):
                    pass
            http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
            """
        let path = TestSupport.write(script, to: directory, name: "receiver.py")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", path, String(port), log]
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            if (try? TestSupport.run("curl", ["-s", "-o", "/dev/null", "http://127.0.0.1:\(port)/"]))?.status == 0 {
                return
            }
            usleep(50_000)
        }
    }

    var url: String { "http://127.0.0.1:\(port)/alerts" }

    /// The bodies received so far.
    var received: [[String: Any]] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
