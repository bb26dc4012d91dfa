import Foundation
import Locking
import Transports

/// The reference SUT started as a child process (`vitalsim serve`) for a run without `--target`:
/// HTTPS with a throwaway CA, a temporary SQLite database, the scenario's patient profiles, and any
/// faulty modes asked for. The harness talks to it only over the wire, like any other SUT.
package final class EmbeddedSUT: Sendable {
    package let base: String
    package let caFile: String?
    let process: Process
    let directory: String

    /// The environment variable the SUT's broker password is handed over in (`serve --mqtt-password-env`).
    package static let mqttPasswordVariable = "VITALSIM_EMBEDDED_MQTT_PASSWORD"

    /// What the embedded SUT is started with when the run made up credentials: its `--credentials`
    /// file, and its user and password at the embedded broker.
    package struct Credentials: Sendable {
        package var file: String
        package var mqtt: (username: String, password: String)?

        package init(file: String, mqtt: (username: String, password: String)?) {
            self.file = file
            self.mqtt = mqtt
        }
    }

    /// Starts `executable serve …` (ingesting from the MQTT broker `mqtt`, HOST:PORT, when given, and
    /// from BLE devices through the controllers `bleGateway`) and waits for `listening on URL`.
    /// `credentials` make the SUT authenticate every request and MQTT message (its broker password
    /// is handed over in the child's environment, never on its command line).
    package init(
        credentials: Credentials? = nil,
        executable: String,
        scenario: String,
        faults: [String],
        directory: String,
        mqtt: String? = nil,
        mqttCAFile: String? = nil,
        mqttTopics: [String] = [],
        webhook: String? = nil,
        webhookSignature: WebhookSignature? = nil,
        bleGateway: [String] = [],
        bleSpeed: Double? = nil,
        otlpEndpoint: String? = nil
    ) throws(HarnessError) {
        self.directory = directory
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        var arguments: [String] = [
            "serve", "--port", "0", "--self-signed", "--http2", "--rate-limit", "0", "--database",
            directory + "/sut.sqlite", "--log-level",
            "error",
        ]
        arguments += ["--scenario", scenario]
        for fault in faults { arguments += ["--fault", fault] }
        if let mqtt { arguments += ["--mqtt", mqtt] }
        if let mqttCAFile { arguments += ["--mqtt-cacert", mqttCAFile] }
        for topic in mqttTopics { arguments += ["--mqtt-topic", topic] }
        if let webhook { arguments += ["--webhook", webhook] }
        if let webhookSignature, let variable = webhookSignature.secretVariable {
            arguments += ["--webhook-signature", webhookSignature.scheme.rawValue, "--webhook-secret-env", variable]
            if webhookSignature.scheme == .hubSHA256 {
                arguments += ["--webhook-signature-header", webhookSignature.header]
            }
        }
        if let otlpEndpoint { arguments += ["--otlp-endpoint", otlpEndpoint] }
        if let credentials {
            arguments += ["--credentials", credentials.file]
            if let (username, password) = credentials.mqtt {
                arguments += ["--mqtt-username", username, "--mqtt-password-env", EmbeddedSUT.mqttPasswordVariable]
                var environment = ProcessInfo.processInfo.environment
                environment[EmbeddedSUT.mqttPasswordVariable] = password
                child.environment = environment
            }
        }
        if !bleGateway.isEmpty {
            // The SUT's BLE gateway: one central per controller, stamping time-less values on the scenario's time axis.
            arguments += ["--ble-gateway"] + bleGateway.flatMap { ["--hci", $0] }
            if let bleSpeed { arguments += ["--ble-speed", String(bleSpeed)] }
        }
        child.arguments = arguments
        let out = Pipe()
        child.standardOutput = out
        let errPath = directory + "/sut.stderr"
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        child.standardError = FileHandle(forWritingAtPath: errPath)
        do { try ChildProcess.launch(child) } catch {
            throw .infrastructure("cannot start the embedded reference SUT (\(executable)): \(error)")
        }
        process = child
        var text = ""
        // The SUT reads the scenario before it listens: a minute, and two seconds per MB of it (a
        // ward of a million devices, 80 MB, took 45-70 s to read on a busy 2-core machine).
        let megabytes = ((try? FileManager.default.attributesOfItem(atPath: scenario)[.size]) as? Int ?? 0) >> 20
        let wait = 60 + 2 * megabytes
        let deadline = Date(timeIntervalSinceNow: Double(wait))
        while !text.contains("listening on"), child.isRunning, Date() < deadline {
            text += String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        }
        var base = ""
        var ca: String?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            if fields.first == "listening" { base = fields.last ?? "" }
            if fields.first == "ca-certificate" { ca = fields.last }
        }
        guard !base.isEmpty else {
            let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            let why = err.isEmpty ? (child.isRunning ? "no 'listening on' within \(wait) s" : "it exited") : err
            child.terminate()
            throw .infrastructure("the embedded reference SUT did not start: \(why)")
        }
        self.base = base
        caFile = ca
    }

    /// True while the server process runs (Process is thread-safe for this query).
    package var isRunning: Bool { process.isRunning }

    /// SIGTERM, wait, and remove the temporary directory.
    package func stop() {
        ChildProcess.stop(process, grace: 15)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Why a live run could not be carried out (exit code 3 unless stated).
package enum HarnessError: Error, Sendable, CustomStringConvertible {
    /// A SUT, broker or helper process that could not be started or reached.
    case infrastructure(String)
    /// A golden file that is missing (in CI) or cannot be read (exit code 2).
    case golden(String)
    /// Options that cannot work together for this scenario (exit code 2).
    case usage(String)

    package var description: String {
        switch self {
        case let .infrastructure(m): m
        case let .golden(m): m
        case let .usage(m): m
        }
    }

    /// True for errors in the user's input (exit code 2) rather than the infrastructure (3).
    package var isInputError: Bool {
        switch self {
        case .golden, .usage: true
        case .infrastructure: false
        }
    }
}

/// Starting helper processes.
enum ChildProcess {
    /// The watchdogs of running children (see ``launch(_:)``); finished ones are dropped at each launch.
    static let watchdogs = Locked<[Process]>([])

    /// Runs `p` with no signals blocked: Swift concurrency's threads block SIGTERM and others, and a
    /// child inherits the mask, so a broker started from one would ignore `terminate()`.
    ///
    /// A watchdog (`/bin/sh`, checking once a second) stops the child if this process dies without
    /// stopping it (a crash or SIGKILL skips every `defer`): SIGTERM, then SIGKILL 5 s later. It
    /// ends by itself once the child has ended.
    static func launch(_ process: Process) throws {
        var empty = sigset_t()
        var old = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        try process.run()
        let child = process.processIdentifier
        let parent = getpid()
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = [
            "-c",
            "while kill -0 \(parent) 2>/dev/null && kill -0 \(child) 2>/dev/null; do sleep 1; done; "
                + "kill -0 \(parent) 2>/dev/null && exit 0; kill \(child) 2>/dev/null || exit 0; sleep 5; kill -9 \(child) 2>/dev/null; exit 0",
        ]
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        // Without a watchdog the child still runs and is stopped as usual; only a crash would leave it.
        guard (try? watchdog.run()) != nil else { return }
        watchdogs.withLock { list in
            list.removeAll { !$0.isRunning }
            list.append(watchdog)
        }
    }

    /// SIGTERM, then SIGKILL if `p` has not ended after `grace` seconds; waits for it.
    static func stop(_ process: Process, grace: Double = 5) {
        if process.isRunning { process.terminate() }
        let deadline = Date(timeIntervalSinceNow: grace)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
