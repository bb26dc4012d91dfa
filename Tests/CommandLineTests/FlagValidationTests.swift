import ArgumentParser
import Foundation
import Judge
import LiveHarness
import RunRecord
import Testing

@testable import vitalsim

/// Every flag mistake the commands check before they start, one test case each, parsed in-process
/// as `vitalsim` parses its arguments: the command refuses with a usage error (exit status 2, see
/// ``VitalSim/main()``) whose message names the flag and says what is valid. (The built command's
/// exit statuses and output: `IntegrationTests.CLITests`.)
struct FlagValidationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let core = root + "/scenarios/core"
    static let scenario = core + "/adult-tachycardia-episode.yaml"

    /// (arguments after `vitalsim`, text the message must hold).
    static let mistakes: [([String], String)] = [
        (["run", core, "--target", "ftp://127.0.0.1"], "--target must be an http:// or https:// URL"),
        (["run", core, "--connections", "0"], "--connections must be 1...64"),
        (["run", core, "--settle", "0"], "--settle must be 0.1...300 seconds"),
        (["run", core, "--alert-wait=-1"], "--alert-wait must be 0...3600 seconds"),
        (["run", core, "--outage-limit", "4000"], "--outage-limit must be 0...3600 seconds"),
        (["run", core, "--mqtt-broker-queue", "0"], "--mqtt-broker-queue must be 1...1000000"),
        (["run", core, "--mqtt", "localhost"], "--mqtt must be HOST:PORT, got 'localhost'"),
        (["run", core, "--mqtt-cacert", "/nonexistent/ca.pem"], "--mqtt-cacert: no such file /nonexistent/ca.pem"),
        (["run", core, "--qos", "3"], "--qos must be 0, 1 or 2, got 3"),
        (["run", core, "--webhook-port", "70000"], "--webhook-port must be 0...65535"),
        (["run", core, "--hci", "tcp:127.0.0.1:1"], "--hci goes with --ble hci"),
        (["run", core, "--run-id", "a run"], "--run-id must be 1 to 40 letters, digits, '.' or '-', got 'a run'"),
        (
            ["run", core, "--target", "http://127.0.0.1:9", "--sut-fault", "off-by-one"],
            "--sut-fault applies to the embedded reference SUT; drop --target"
        ),
        (["run", "/nonexistent/scenario.yaml"], "no such scenario file or folder: /nonexistent/scenario.yaml"),
        (["run", core, "--shard", "1/2", "--shards", "2"], "give --shard I/N or --shards N, not both"),
        (["run", core, "--shards", "0"], "--shards must be 1...100000, got 0"),
        (["run", core, "--no-such-flag"], "Unknown option '--no-such-flag'"),
        (["shrink", scenario, "--max-runs", "0"], "--max-runs must be 1...10000"),
        (["shrink", scenario, "--max-time", "0"], "--max-time must be 1...86400 seconds"),
        (["shrink", core], "shrink takes one scenario file, not a folder"),
        (["doctor", scenario, "--target", "ftp://127.0.0.1"], "--target must be an http:// or https:// URL"),
        (["doctor", scenario], "give the SUT with --target URL or a --sut profile with a base-url"),
        (["doctor", scenario, "--target", "http://127.0.0.1:9", "--mqtt", "broker"], "--mqtt must be HOST:PORT"),
        (["bench-transport"], "give exactly one of --http URL and --mqtt HOST:PORT"),
        (["bench-transport", "--mqtt", "127.0.0.1:1883", "--qos", "5"], "--qos must be 0, 1 or 2"),
        (
            ["bench-transport", "--http", "http://127.0.0.1:9", "--connections", "0"],
            "--connections must be 1...256 and --in-flight 1...1024"
        ),
        (["bench-transport", "--http", "http://127.0.0.1:9", "--count", "0"], "--count must be positive"),
        (["controllers", "9001"], "give at least two ports"),
        (["controllers", "9001", "70000"], "port 70000 is outside 1...65535"),
        (["controllers", "9001", "9001"], "ports must differ"),
        (["serve", "--tls-cert", "cert.pem"], "--tls-cert and --tls-key go together"),
        (
            ["serve", "--self-signed", "--tls-cert", "cert.pem", "--tls-key", "key.pem"],
            "use either --self-signed or --tls-cert/--tls-key"
        ),
        (["serve", "--http2"], "--http2 is offered over TLS (ALPN)"),
        (["serve", "--mqtt-password-env", "PASSWORD"], "--mqtt-password-env goes with --mqtt-username"),
        (["serve", "--client-ca", "ca.pem"], "--client-ca is mutual TLS"),
        (
            ["serve", "--tls-cert", "cert.pem", "--tls-key", "key.pem", "--client-ca", "self"],
            "--client-ca self goes with --self-signed"
        ),
        (["serve", "--self-signed", "--client-ca", "/nonexistent/ca.pem"], "--client-ca: no readable file at"),
        (
            ["serve", "--dev", "--credentials", "credentials.yaml"],
            "--dev prints its own credentials; drop --credentials"
        ),
        (["serve", "--port", "70000"], "--port must be 0...65535"),
        (["serve", "--rate-limit=-1"], "--rate-limit must be ≥ 0"),
        (["serve", "--read-timeout", "0"], "--read-timeout must be 0.1 to 3600 seconds"),
        (["serve", "--mqtt", "broker"], "--mqtt must be HOST:PORT"),
        (["serve", "--webhook", "ftp://127.0.0.1"], "--webhook must be an http:// or https:// URL"),
        (["serve", "--ble-gateway"], "--ble-gateway needs at least one --hci controller"),
        (["serve", "--hci", "tcp:127.0.0.1:1"], "--hci and --ble-device go with --ble-gateway"),
    ]

    @Test(arguments: mistakes)
    func aFlagMistakeIsAUsageErrorNamingTheFlag(_ arguments: [String], _ expected: String) {
        do {
            _ = try VitalSim.parseAsRoot(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(VitalSim.exitCode(for: error) == .validationFailure, "\(arguments)")
            let message = VitalSim.message(for: error)
            #expect(message.contains(expected), "\(arguments)\n→ \(message)\nwanted: \(expected)")
        }
    }

    /// The same commands with their flags right parse (so each mistake above is the one refused).
    @Test(arguments: [
        ["run", core, "--connections", "4", "--settle", "0.5", "--qos", "1", "--shards", "2"],
        ["shrink", scenario, "--max-runs", "10"],
        ["doctor", scenario, "--target", "http://127.0.0.1:9", "--mqtt", "127.0.0.1:1883"],
        ["bench-transport", "--mqtt", "127.0.0.1:1883", "--qos", "1"],
        ["controllers", "9001", "9002"],
        ["serve", "--self-signed", "--http2", "--port", "0", "--rate-limit", "0"],
    ])
    func theSameCommandsWithValidFlagsParse(_ arguments: [String]) throws {
        _ = try VitalSim.parseAsRoot(arguments)
    }
}

/// The CI gate's flags and what the SUT profile's conformance statement sets, in-process.
struct GateFlagTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gate-flags-\(getpid())").path

    func write(_ text: String, _ name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The push channels a profile claims are observed unless `--observe` says which.
    @Test func claimedPushChannelsAreObservedByDefault() throws {
        let profile = try write("name: pushes\nconformance:\n  channels: [sse, webhook]\n", "pushes.yaml")
        let run = try #require(
            try VitalSim.parseAsRoot(["run", FlagValidationTests.core, "--sut", profile]) as? VitalSim.Run
        )
        #expect(try run.live.options().push.channels == [.sse, .webhook])
        let chosen = try #require(
            try VitalSim.parseAsRoot(["run", FlagValidationTests.core, "--sut", profile, "--observe", "mqtt"])
                as? VitalSim.Run
        )
        #expect(try chosen.live.options().push.channels == [.mqtt])
    }

    /// A waivers file with a mistake is an input error naming its line; a good one loads.
    @Test func waiversAndBaselinesAreReadBeforeTheRun() throws {
        let waivers = try write("waivers:\n  - check: \"s: alert x\"\n    reason: r\n    expires: soon\n", "w.yaml")
        let run = try #require(
            try VitalSim.parseAsRoot(["run", FlagValidationTests.core, "--waivers", waivers]) as? VitalSim.Run
        )
        #expect(throws: CommandFailure.self) { try run.reports.gate(conformance: ConformanceStatement()) }
        let baseline = try write("{\"passed\": true}", "b.json")
        let withBaseline = try #require(
            try VitalSim.parseAsRoot(["run", FlagValidationTests.core, "--baseline", baseline, "--strict"])
                as? VitalSim.Run
        )
        #expect(throws: CommandFailure.self) { try withBaseline.reports.gate(conformance: ConformanceStatement()) }
        let good = try write("waivers:\n  - check: \"s: alert x\"\n    reason: r\n", "good.yaml")
        let fine = try #require(
            try VitalSim.parseAsRoot(["run", FlagValidationTests.core, "--waivers", good, "--strict"]) as? VitalSim.Run
        )
        let gate = try fine.reports.gate(conformance: ConformanceStatement())
        #expect(gate.strict && gate.waivers.count == 1)
    }
}
