import ArgumentParser
import Foundation
import Judge
import LiveHarness
import Locking
import Requirements
import RunRecord
import SUTAdapter
import Telemetry
import VitalSimCore

/// Options shared by `run` and `record`.
struct LiveFlags: ParsableArguments {
    @Argument(help: "A scenario file or a folder of them (a suite).") var path: String
    @OptionGroup(title: "Target and TLS") var connection: TargetFlags
    @OptionGroup(title: "Pacing and timing") var pacing: PacingFlags
    @OptionGroup(title: "MQTT") var broker: MQTTFlags
    @OptionGroup(title: "Alert push channels") var push: PushFlags
    @OptionGroup(title: "Bluetooth") var bluetooth: BluetoothFlags
    @Option(name: .long, help: "Faulty mode of the embedded SUT, as vitalsim serve --fault (repeatable).") var sutFault:
        [String] = []
    @Option(name: .long, help: "Folder of golden files (default: each scenario's golden path).") var goldenDir: String?

    @Option(
        name: .long,
        help:
            "The run id that {run} stands for in the SUT profile's lifecycle ids (letters, digits, '.', '-'; default: $VITALSIM_RUN_ID, else a random one, printed)."
    ) var runId: String?

    /// Checks across groups (each group checks its own values).
    func validate() throws {
        if let runId, !LiveFlags.isRunID(runId) {
            throw ValidationError("--run-id must be 1 to 40 letters, digits, '.' or '-', got '\(runId)'")
        }
        if connection.target != nil && !sutFault.isEmpty {
            throw ValidationError("--sut-fault applies to the embedded reference SUT; drop --target")
        }
        if bluetooth.ble == .hci, pacing.speed == .max {
            throw ValidationError(
                "--ble hci needs a finite --speed (e.g. --speed 60): devices send on their own schedule and a gateway stamps heart rate and SpO2 on receipt"
            )
        }
        if !bluetooth.hci.isEmpty, connection.target == nil {
            throw ValidationError(
                "--hci names the BLE devices' controllers for a SUT given with --target; without --target virtual controllers are started"
            )
        }
        if !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("no such scenario file or folder: \(path)")
        }
    }

    /// The options of the run, group by group from the flags; a SUT profile that cannot be loaded is
    /// printed and exits 2.
    func options() throws -> LiveOptions {
        var options = LiveOptions(executable: Self.executablePath)
        let profile = try loadProfile(connection.sut)
        options.target = try connection.settings(profile: profile)
        if options.target.url != nil, !sutFault.isEmpty {
            throw CommandFailure.input(
                "--sut-fault applies to the embedded reference SUT, but the profile names a base-url (\(options.target.url ?? ""))"
            )
        }
        options.embedded.faults = sutFault
        options.pacing = pacing.settings
        options.network = pacing.weather
        options.mqtt = broker.settings(credentials: mqttCredentials(profile))
        options.push = push.settings
        // The push channels the SUT's conformance statement claims are observed unless --observe says which.
        if push.observe.isEmpty { options.push.channels = options.target.profile.conformance.channels }
        options.ble = bluetooth.settings
        options.reports.goldenDirectory = goldenDir
        options.reports.ci =
            ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "false" && $0 != "0" }
            ?? false
        options.note = { printError($0) }
        options.names = .flags
        options.runID = try runID(for: options.target.profile)
        return options
    }

    /// `--run-id`, else `$VITALSIM_RUN_ID`, else (when the profile's lifecycle ids use `{run}`) a
    /// random one, printed so that the run's ids can be repeated.
    func runID(for profile: SUTProfile) throws -> String {
        if let runId { return runId }
        if let env = ProcessInfo.processInfo.environment["VITALSIM_RUN_ID"], !env.isEmpty {
            guard LiveFlags.isRunID(env) else {
                throw CommandFailure.input("VITALSIM_RUN_ID must be 1 to 40 letters, digits, '.' or '-', got '\(env)'")
            }
            return env
        }
        guard profile.lifecycle.usesRunID else { return "run" }
        var generator = SystemRandomNumberGenerator()
        let id = String(format: "%08x", UInt32.random(in: 0...UInt32.max, using: &generator))
        printError("run id \(id) ({run} in the SUT profile's lifecycle; --run-id \(id) repeats this run's ids)")
        return id
    }

    static func isRunID(_ s: String) -> Bool {
        (1...40).contains(s.count)
            && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
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
                "Exit status: 0 every check passed or was excused (a SHOULD warning without --strict, not claimed by the profile's conformance statement, waived, or in the --baseline), 1 a check failed (an expired waiver included), 2 usage or input error (a missing golden file, an unreadable waivers or baseline file), 3 not judged: SUT unreachable, infrastructure failure or misconfiguration."
        )
        @OptionGroup var live: LiveFlags
        @OptionGroup(title: "Reports") var reports: ReportFlags
        @Option(
            name: .long,
            help:
                "Write an evidence bundle per scenario under this folder (inputs, traffic log, answers, alerts, verdicts, captures, sha256 manifest; check with vitalsim replay)."
        ) var evidence: String?
        @Option(
            name: .customLong("sign-key"),
            help: ArgumentHelp(
                "Sign each evidence bundle's manifest with this Ed25519 private key (PEM; vitalsim keygen or openssl genpkey -algorithm ed25519). Without it, the key in the environment variable VITALSIM_SIGNING_KEY (its PEM text), if set.",
                valueName: "PEM"
            )
        ) var signKey: String?
        @OptionGroup(title: "Sharding") var sharding: ShardFlags
        @OptionGroup(title: "OpenTelemetry") var telemetry: TelemetryFlags
        @Option(
            name: .long,
            help:
                "Serve the run's live metrics for Prometheus on http://127.0.0.1:PORT/metrics while it goes (requests, readings by outcome, latency histograms, scheduling lag, progress; labelled with run, shard and scenario)."
        ) var metricsPort: Int?

        func validate() throws {
            if let metricsPort, !(0...65535).contains(metricsPort) {
                throw ValidationError("--metrics-port must be a TCP port (0…65535), got \(metricsPort)")
            }
            if signKey != nil, evidence == nil {
                throw ValidationError("--sign-key signs evidence bundles: give --evidence DIR too")
            }
            if evidence != nil, sharding.isSharded {
                throw ValidationError(
                    "--evidence cannot go with --shard/--shards: a bundle replays a whole scenario, a shard sends only its patients"
                )
            }
        }

        /// With `--result`, this shard's result file (the whole suite as shard 1 of 1 without `--shard`).
        func writeShardResult(_ suite: SuiteRun, shard: PatientShard?, startAt: Int64?, target: String?) throws {
            guard let result = sharding.result else { return }
            let part = shard ?? PatientShard(index: 1, count: 1)
            var shardResult = ShardResult(
                shard: part.index,
                shards: part.count,
                suite: live.path,
                seed: live.pacing.seed,
                startAt: startAt,
                scenarios: suite.parts
            )
            shardResult.target = target
            try ReportFlags.write(
                shardResult.json(),
                to: result.replacingOccurrences(of: "{shard}", with: String(part.index))
            )
        }

        /// The key that signs evidence bundles: `--sign-key`'s file, else the environment's PEM text.
        func signingKey() throws -> EvidenceSignature.SigningKey? {
            let text: String
            let source: String
            if let signKey {
                guard let t = try? String(contentsOfFile: signKey, encoding: .utf8) else {
                    throw CommandFailure.input("--sign-key \(signKey): cannot read the file")
                }
                (text, source) = (t, "--sign-key \(signKey)")
            } else if let t = ProcessInfo.processInfo.environment[EvidenceSignature.environmentKey], !t.isEmpty {
                (text, source) = (t, "the environment variable \(EvidenceSignature.environmentKey)")
            } else {
                return nil
            }
            do throws(EvidenceError) { return try EvidenceSignature.privateKey(pem: text, source: source) } catch {
                throw CommandFailure.input(error.description)
            }
        }

        /// Runs the suite with its live metrics served (`--metrics-port`) and its spans and metrics
        /// exported (`--otlp-endpoint`) while it goes; the export is flushed before the verdicts are
        /// reported, whatever the outcome.
        func runObserved(_ files: [String], options: LiveOptions) async throws -> SuiteRun {
            var options = options
            let exporter = try telemetry.start(
                service: "vitalsim",
                attributes: ["vitalsim.run_id": options.runID, "vitalsim.shard": options.sharding.label],
                buckets: HarnessMetrics.bounds
            )
            options.tracer = exporter?.tracer
            // The embedded reference SUT exports its spans to the same collector.
            if exporter != nil { options.embedded.otlpEndpoint = telemetry.otlpEndpoint }
            var stopMetrics: (@Sendable () -> Void)?
            defer { stopMetrics?() }
            do throws(HarnessError) {
                if metricsPort != nil || exporter != nil {
                    let metrics = HarnessMetrics(
                        run: options.runID,
                        shard: options.sharding.label,
                        exporting: exporter?.metrics
                    )
                    if let metricsPort {
                        let (port, stop) = try await metrics.serve(port: metricsPort)
                        printError("live metrics: http://127.0.0.1:\(port)/metrics")
                        stopMetrics = stop
                    }
                    options.metrics = metrics
                }
                let suite = try await LiveSuite(options: options).runSuite(files) { printError($0) }
                await exporter?.shutdown()
                return suite
            } catch {
                await exporter?.shutdown()
                printError("vitalsim run: \(error)")
                if error.isInputError { throw ExitCodes.input }
                throw ExitCodes.infrastructure
            }
        }

        func run() async throws {
            let files = LiveSuite.scenarioFiles(live.path)
            guard !files.isEmpty else {
                throw CommandFailure.input("\(live.path): no scenario files")
            }
            let started = Date()
            let colour = isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            let suite: SuiteRun
            var options = try live.options()
            if evidence != nil {
                options.reports.catalogueVersion = try RequirementsCatalogue.shipped().version
                options.reports.signingKey = try signingKey()
            }
            let gate = try reports.gate(conformance: options.target.profile.conformance)
            let shard = try sharding.patientShard()
            options.reports.charts = reports.html != nil
            options.reports.evidence = evidence
            options.sharding.shard = shard
            options.sharding.startAt = sharding.startInstant
            options.reports.listsRequests = sharding.result != nil
            // A progress bar on a terminal (stderr), redrawn at most every 100 ms.
            if isatty(2) == 1 { options.progress = ProgressBar().update }
            suite = try await runObserved(files, options: options)
            try writeShardResult(suite, shard: shard, startAt: options.sharding.startAt, target: options.target.url)
            let verdicts = suite.verdicts
            if let shard {
                let ran = suite.parts.reduce(0) { $0 + $1.ran.count }
                let all = suite.parts.reduce(0) { $0 + $1.patients.count }
                printError(
                    "shard \(shard.index)/\(shard.count): \(ran) of the suite's \(all) patient(s), in \(verdicts.count) of \(suite.parts.count) scenario(s)"
                )
            }
            var about = RunDescription(
                sut: options.target.profile.name,
                profile: live.connection.sut,
                target: options.target.url,
                suite: live.path,
                seed: live.pacing.seed,
                runID: options.runID,
                started: Int64(started.timeIntervalSince1970 * 1000),
                duration: Date().timeIntervalSince(started),
                gate: reports.gateSettings
            )
            if let weather = options.network { about.fields.append(.init("network", weather.summary)) }
            do {
                try reports.emit(
                    verdicts,
                    gate: gate,
                    about: about,
                    title: "VitalSim run of \(live.path)",
                    colour: colour,
                    sources: suite.parts
                )
            } catch let exit
                as ExitCode
            {
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
            abstract:
                "Run scenarios live and write their golden files from what the SUT did (review them before committing).",
            discussion:
                "Refused when the CI environment variable is set: in CI a missing golden file is an error, never written."
        )
        @OptionGroup var live: LiveFlags

        func run() async throws {
            let options = try live.options()
            if options.reports.ci {
                throw CommandFailure.input("vitalsim record: refusing to write golden files in CI (CI is set)")
            }
            let files = LiveSuite.scenarioFiles(live.path)
            guard !files.isEmpty else {
                throw CommandFailure.input("\(live.path): no scenario files")
            }
            do throws(HarnessError) {
                for (path, warnings) in try await LiveSuite(options: options).record(
                    files,
                    progress: { printError($0) }
                ) {
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

/// A one-line progress bar on stderr: `[#####.....] 52% scenario (1,234 requests answered, 06:14:00 of 12:00:00
/// scenario time)`.
/// The plan is generated while it is sent, so progress is measured in scenario time.
final class ProgressBar: Sendable {
    let last = Locked<ContinuousClock.Instant?>(nil)

    func update(_ scenario: String, _ liveRunner: LiveRunner.Progress) {
        let now = ContinuousClock.now
        let done = liveRunner.fraction >= 1
        let draw = last.withLock { t -> Bool in
            if !done, let t, now - t < .milliseconds(100) { return false }
            t = now
            return true
        }
        guard draw else { return }
        let width = 30
        let filled = Int(Double(width) * liveRunner.fraction)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let line =
            done
            ? "\r\u{1B}[2K"
            : "\r[\(bar)] \(Int(100 * liveRunner.fraction))% \(scenario) (\(liveRunner.answered) requests answered, \(Self.clock(liveRunner.reached)) of \(Self.clock(liveRunner.span)) scenario time)"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Virtual ms as `HH:MM:SS`.
    static func clock(_ ms: Int64) -> String {
        let seconds = max(0, ms / 1000)
        return String(format: "%02lld:%02lld:%02lld", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }
}
