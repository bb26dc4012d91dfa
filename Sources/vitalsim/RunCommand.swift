import ArgumentParser
import Foundation
import Judge
import LiveRun
import Locking
import RunHelpers
import SUTProfile
import Sharding

/// Options shared by `run` and `record`.
struct LiveFlags: ParsableArguments {
    @Argument(help: "A scenario file or a folder of them (a suite).") var path: String
    @Option(
        name: .long,
        help:
            "SUT profile (YAML; docs/sut-profiles.md): how the SUT is reached, authenticated to and its alerts read and mapped. Default: the reference SUT's own contract."
    ) var sut: String?
    @Option(
        name: .long,
        help:
            "Base URL of the SUT, overriding the profile's base-url (default: start the embedded reference SUT, over HTTPS, per scenario)."
    ) var target: String?
    @Option(name: .long, help: "PEM CA bundle to verify the SUT's certificate.") var cacert: String?
    @Flag(name: .long, help: "Do not verify the SUT's certificate (only when you must).") var insecure = false
    @Option(name: .long, help: "PEM client certificate for a SUT that requires mutual TLS (with --client-key).") var clientCert: String?
    @Option(name: .long, help: "PEM private key of --client-cert.") var clientKey: String?
    @Flag(
        name: .long,
        help: """
            Speak HTTP/2 where the SUT offers it over TLS (ALPN). Off by default: libcurl 7.88 resets every finished \
            HTTP/2 stream, which servers with rapid-reset protection answer with GOAWAY after a few hundred requests.
            """
    ) var http2 = false
    @Option(name: .long, help: "Extra request header for every request, e.g. 'Authorization: Bearer TOKEN' (repeatable).") var header:
        [String] = []
    @Option(name: .long, help: "Virtual seconds per wall second (a positive number, e.g. 60), or max.") var speed = Speed.max
    @Option(name: .long, help: "Seed overriding each scenario's own (golden files record the seed they were made with).") var seed: UInt64?
    @Option(name: .long, help: "Faulty mode of the embedded SUT, as vitalsim serve --fault (repeatable).") var sutFault: [String] = []
    @Option(name: .long, help: "Folder of golden files (default: each scenario's golden path).") var goldenDir: String?
    @Option(name: .long, help: "Parallel connections to the SUT.") var connections = 8
    @Option(name: .long, help: "Seconds without a new alert, after the last reading is answered, before the alerts are judged.") var settle:
        Double = 2
    @Option(
        name: .long,
        help:
            "Seconds past the reading → alert budget that an expected alert not yet listed is still waited for after the last answer, so that a late one is judged over budget rather than missed."
    ) var alertWait: Double = 30
    @Option(
        name: .long,
        help:
            "Seconds a request is retried while a SUT (or MQTT broker) that answered before is down (a restart); the run holds its later readings meanwhile, then stops and counts the rest as not sent."
    ) var outageLimit: Double = 60
    @Option(name: .long, help: "MQTT broker HOST:PORT for devices with transport mqtt (default: start mosquitto for the embedded SUT).")
    var mqtt: String?
    @Option(name: .long, help: "QoS of MQTT messages: 0, 1 or 2.") var qos = 1
    @Option(
        name: .long,
        help:
            "QoS 1/2 messages the embedded mosquitto queues per client beyond those in flight before dropping them (max_queued_messages; 1...1000000)."
    ) var mqttBrokerQueue = 100_000
    @Option(name: .long, help: "PEM CA bundle: MQTT over TLS, verifying the broker (the embedded SUT uses it too).") var mqttCacert: String?
    @Option(name: .long, help: "MQTT session of the publisher: clean or persistent (queued QoS 1/2 messages survive a reconnection).")
    var mqttSession = MQTTSession.clean
    @Option(
        name: .long,
        help:
            "Also observe alerts on a push channel and check every alert arrives there: sse, mqtt or webhook (repeatable; the alert list is polled too, unless the SUT profile's alerts.source is a push channel)."
    ) var observe: [PushChannel] = []
    @Option(name: .long, help: "Port of the webhook receiver for --observe webhook (127.0.0.1; 0 picks a free one, printed with --target).")
    var webhookPort = 0
    @Option(
        name: .long,
        help:
            "How Bluetooth devices with transport ble reach the SUT: relay (decoded and posted over HTTPS, as a phone gateway does) or hci (live BLE peripherals on HCI controllers, connected to by the SUT's BLE gateway; needs a finite --speed)."
    ) var ble = LiveOptions.BLEMode.relay
    @Option(
        name: .long,
        help:
            "With --ble hci and --target: the HCI controller of each BLE device, in scenario order (tcp:HOST:PORT or hciN; repeatable). Without --target, bumble's virtual controllers are started."
    ) var hci: [String] = []
    @Option(
        name: .long,
        help: "Python interpreter with bumble for --ble hci (default: $VITALSIM_BUMBLE_PYTHON or .venv-bumble/bin/python)."
    ) var bumblePython: String?

    @Option(
        name: .long,
        help:
            "The run id that {run} stands for in the SUT profile's lifecycle ids (letters, digits, '.', '-'; default: $VITALSIM_RUN_ID, else a random one, printed)."
    ) var runId: String?

    func validate() throws {
        if let runId, !LiveFlags.isRunID(runId) {
            throw ValidationError("--run-id must be 1 to 40 letters, digits, '.' or '-', got '\(runId)'")
        }
        if target != nil && !sutFault.isEmpty { throw ValidationError("--sut-fault applies to the embedded reference SUT; drop --target") }
        if let target, !(target.hasPrefix("http://") || target.hasPrefix("https://")) {
            throw ValidationError("--target must be an http:// or https:// URL")
        }
        if !(1...64).contains(connections) { throw ValidationError("--connections must be 1...64") }
        if !(0.1...300).contains(settle) { throw ValidationError("--settle must be 0.1...300 seconds") }
        if !(0...3600).contains(alertWait) { throw ValidationError("--alert-wait must be 0...3600 seconds") }
        if !(1...1_000_000).contains(mqttBrokerQueue) { throw ValidationError("--mqtt-broker-queue must be 1...1000000") }
        if !(0...3600).contains(outageLimit) { throw ValidationError("--outage-limit must be 0...3600 seconds") }
        if let mqtt, parseHostPort(mqtt) == nil { throw ValidationError("--mqtt must be HOST:PORT, got '\(mqtt)'") }
        if !(0...65535).contains(webhookPort) { throw ValidationError("--webhook-port must be 0...65535") }
        if let mqttCacert, !FileManager.default.fileExists(atPath: mqttCacert) {
            throw ValidationError("--mqtt-cacert: no such file \(mqttCacert)")
        }
        if !(0...2).contains(qos) { throw ValidationError("--qos must be 0, 1 or 2, got \(qos)") }
        if ble == .hci, speed == .max {
            throw ValidationError(
                "--ble hci needs a finite --speed (e.g. --speed 60): devices send on their own schedule and a gateway stamps heart rate and SpO2 on receipt"
            )
        }
        if !hci.isEmpty, ble != .hci { throw ValidationError("--hci goes with --ble hci") }
        if !hci.isEmpty, target == nil {
            throw ValidationError(
                "--hci names the BLE devices' controllers for a SUT given with --target; without --target virtual controllers are started"
            )
        }
        if let bumblePython, !FileManager.default.isExecutableFile(atPath: bumblePython) {
            throw ValidationError("--bumble-python: no executable at \(bumblePython)")
        }
        if !FileManager.default.fileExists(atPath: path) { throw ValidationError("no such scenario file or folder: \(path)") }
    }

    /// The options of the run; a SUT profile that cannot be loaded is printed and exits 2.
    func options() throws -> LiveOptions {
        var o = LiveOptions(executable: Self.executablePath)
        let profile = try loadProfile(sut)
        o.profile = profile ?? .vitalsim
        o.target = target ?? profile?.baseURL
        o.caFile = cacert ?? profile?.tls.caFile
        o.insecure = insecure || profile?.tls.insecure == true
        o.clientCertificate = try clientCertificate(certificate: clientCert, key: clientKey, profile: profile)
        o.mqttCredentials = mqttCredentials(profile)
        if o.target != nil, !sutFault.isEmpty {
            printError("--sut-fault applies to the embedded reference SUT, but the profile names a base-url (\(o.target ?? ""))")
            throw ExitCodes.input
        }
        o.http2 = http2
        o.headers = header
        o.speed = speed.factor
        o.seed = seed
        o.sutFaults = sutFault
        o.goldenDirectory = goldenDir
        o.connections = connections
        o.quiet = .milliseconds(Int64(settle * 1000))
        o.alertWait = .milliseconds(Int64(alertWait * 1000))
        o.outageLimit = .milliseconds(Int64(outageLimit * 1000))
        o.mqtt = mqtt.flatMap(parseHostPort)
        o.qos = qos
        o.mqttBrokerQueue = mqttBrokerQueue
        o.observe = observe
        o.webhookPort = webhookPort
        o.mqttCAFile = mqttCacert
        o.mqttPersistentSession = mqttSession == .persistent
        o.ble = ble
        o.hci = hci
        o.bumblePython = bumblePython
        o.note = { printError($0) }
        o.runID = try runID(for: o.profile)
        o.ci = ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "false" && $0 != "0" } ?? false
        return o
    }

    /// `--run-id`, else `$VITALSIM_RUN_ID`, else (when the profile's lifecycle ids use `{run}`) a
    /// random one, printed so that the run's ids can be repeated.
    func runID(for profile: SUTProfile) throws -> String {
        if let runId { return runId }
        if let env = ProcessInfo.processInfo.environment["VITALSIM_RUN_ID"], !env.isEmpty {
            guard LiveFlags.isRunID(env) else {
                printError("VITALSIM_RUN_ID must be 1 to 40 letters, digits, '.' or '-', got '\(env)'")
                throw ExitCodes.input
            }
            return env
        }
        guard profile.lifecycle.usesRunID else { return "run" }
        var g = SystemRandomNumberGenerator()
        let id = String(format: "%08x", UInt32.random(in: 0...UInt32.max, using: &g))
        printError("run id \(id) ({run} in the SUT profile's lifecycle; --run-id \(id) repeats this run's ids)")
        return id
    }

    static func isRunID(_ s: String) -> Bool {
        (1...40).contains(s.count) && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
    }

    /// This executable, to start `vitalsim serve` as the embedded SUT.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

extension VitalSim {
    /// `vitalsim run SCENARIO|SUITE …`
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Run scenarios live against a SUT over HTTP(S) and judge its alerts, rejections and latency against the golden files.",
            discussion:
                "Exit status: 0 every check passed, 1 an expectation failed, 2 usage or input error (including a missing golden file), 3 SUT unreachable or infrastructure failure."
        )
        @OptionGroup var live: LiveFlags
        @OptionGroup var reports: ReportFlags
        @Option(
            name: .long,
            help:
                "Write an evidence bundle per scenario under this folder (inputs, traffic log, answers, alerts, verdicts, captures, sha256 manifest; check with vitalsim replay)."
        ) var evidence: String?
        @OptionGroup var sharding: ShardFlags

        func validate() throws {
            if evidence != nil, sharding.isSharded {
                throw ValidationError(
                    "--evidence cannot go with --shard/--shards: a bundle replays a whole scenario, a shard sends only its patients"
                )
            }
        }

        func run() async throws {
            let files = LiveSuite.scenarioFiles(live.path)
            guard !files.isEmpty else {
                printError("\(live.path): no scenario files")
                throw ExitCodes.input
            }
            let colour = isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            let suite: SuiteRun
            var options = try live.options()
            let shard = try sharding.patientShard()
            do throws(HarnessError) {
                options.charts = reports.html != nil
                options.evidence = evidence
                options.shard = shard
                options.startAt = sharding.startInstant
                options.listsRequests = sharding.result != nil
                // A progress bar on a terminal (stderr), redrawn at most every 100 ms.
                if isatty(2) == 1 { options.progress = ProgressBar().update }
                suite = try await LiveSuite.runSuite(files, options: options) { printError($0) }
            } catch {
                printError("vitalsim run: \(error)")
                if error.isInputError { throw ExitCodes.input }
                throw ExitCodes.infrastructure
            }
            if let result = sharding.result {
                let s = shard ?? PatientShard(index: 1, count: 1)
                let r = ShardResult(
                    shard: s.index,
                    shards: s.count,
                    suite: live.path,
                    seed: live.seed,
                    startAt: options.startAt,
                    scenarios: suite.parts
                )
                try ReportFlags.write(r.json(), to: result.replacingOccurrences(of: "{shard}", with: String(s.index)))
            }
            let verdicts = suite.verdicts
            if let shard {
                let ran = suite.parts.reduce(0) { $0 + $1.ran.count }
                let all = suite.parts.reduce(0) { $0 + $1.patients.count }
                printError(
                    "shard \(shard.index)/\(shard.count): \(ran) of the suite's \(all) patient(s), in \(verdicts.count) of \(suite.parts.count) scenario(s)"
                )
            }
            do { try reports.emit(verdicts, title: "VitalSim run of \(live.path)", colour: colour) } catch let exit as ExitCode {
                // A shard's verdict is partial: with its result written, vitalsim merge gives the run's.
                guard shard != nil, sharding.result != nil, exit != ExitCodes.input else { throw exit }
                printError(
                    "a partial verdict (this shard's patients): vitalsim merge of every shard's result gives the run's verdict and exit status"
                )
            }
        }

    }

    /// `vitalsim record SCENARIO|SUITE …`
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run scenarios live and write their golden files from what the SUT did (review them before committing).",
            discussion: "Refused when the CI environment variable is set: in CI a missing golden file is an error, never written."
        )
        @OptionGroup var live: LiveFlags

        func run() async throws {
            let options = try live.options()
            if options.ci {
                printError("vitalsim record: refusing to write golden files in CI (CI is set)")
                throw ExitCodes.input
            }
            let files = LiveSuite.scenarioFiles(live.path)
            guard !files.isEmpty else {
                printError("\(live.path): no scenario files")
                throw ExitCodes.input
            }
            do throws(HarnessError) {
                for (path, warnings) in try await LiveSuite.record(files, options: options, progress: { printError($0) }) {
                    print("wrote \(path)")
                    for w in warnings { printError("  warning: \(w)") }
                }
            } catch {
                printError("vitalsim record: \(error)")
                if error.isInputError { throw ExitCodes.input }
                throw ExitCodes.infrastructure
            }
        }
    }
}

/// A one-line progress bar on stderr: `[#####.....] 52% scenario (1,234 requests answered, 06:14:00 of 12:00:00 scenario time)`.
/// The plan is generated while it is sent, so progress is measured in scenario time.
final class ProgressBar: Sendable {
    let last = Locked<ContinuousClock.Instant?>(nil)

    func update(_ scenario: String, _ p: LiveRunner.Progress) {
        let now = ContinuousClock.now
        let done = p.fraction >= 1
        let draw = last.withLock { t -> Bool in
            if !done, let t, now - t < .milliseconds(100) { return false }
            t = now
            return true
        }
        guard draw else { return }
        let width = 30
        let filled = Int(Double(width) * p.fraction)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let line =
            done
            ? "\r\u{1B}[2K"
            : "\r[\(bar)] \(Int(100 * p.fraction))% \(scenario) (\(p.answered) requests answered, \(Self.clock(p.reached)) of \(Self.clock(p.span)) scenario time)"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Virtual ms as `HH:MM:SS`.
    static func clock(_ ms: Int64) -> String {
        let s = max(0, ms / 1000)
        return String(format: "%02lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60)
    }
}
