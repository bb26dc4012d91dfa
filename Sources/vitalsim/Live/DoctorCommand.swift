import ArgumentParser
import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import VitalSimCore

extension VitalSim {
    /// `vitalsim doctor SCENARIO --target URL …`
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Check that a SUT can be tested before running against it: reachable, TLS, the alert source readable, one valid reading per ingestion route accepted and one invalid refused, the MQTT broker.",
            discussion: """
                The scenario's routes and first readings are the probes: each route's first valid request is \
                posted (the SUT stores that reading; a later run sends it again as a duplicate) and then the same \
                body cut in half, which must be refused with a 4xx. Exit status: 0 every check holds, 2 usage or \
                input error, 3 a check failed.
                """
        )
        @Argument(help: "A scenario file whose traffic the SUT will get.") var scenario: String
        @Option(
            name: .long,
            help: "SUT profile (YAML; docs/sut-profiles.md): credentials, alert source and name mapping."
        ) var sut: String?
        @Option(name: .long, help: "Base URL of the SUT (default: the profile's base-url).") var target: String?
        @Option(name: .long, help: "PEM CA bundle to verify the SUT's certificate.") var cacert: String?
        @Flag(name: .long, help: "Do not verify the SUT's certificate (only when you must).") var insecure = false
        @Option(name: .long, help: "PEM client certificate for a SUT that requires mutual TLS (with --client-key).")
        var clientCert: String?
        @Option(name: .long, help: "PEM private key of --client-cert.") var clientKey: String?
        @Option(
            name: .long,
            help: "Extra request header for every request, e.g. 'Authorization: Bearer TOKEN' (repeatable)."
        )
        var header: [String] = []
        @Option(name: .long, help: "The SUT's MQTT broker, HOST:PORT, for scenarios with MQTT devices.") var mqtt:
            String?
        @Option(name: .long, help: "PEM CA bundle: MQTT over TLS, verifying the broker.") var mqttCacert: String?
        @Option(name: .long, help: "Seed overriding the scenario's own.") var seed: UInt64?

        func validate() throws {
            if let target, !(target.hasPrefix("http://") || target.hasPrefix("https://")) {
                throw ValidationError("--target must be an http:// or https:// URL")
            }
            if target == nil, sut == nil {
                throw ValidationError("give the SUT with --target URL or a --sut profile with a base-url")
            }
            if let mqtt, parseHostPort(mqtt) == nil { throw ValidationError("--mqtt must be HOST:PORT, got '\(mqtt)'") }
        }

        func run() async throws {
            let loaded: Scenario
            do throws(ScenarioLoadError) { loaded = try TracedScenarioLoader.load(path: scenario) } catch {
                throw CommandFailure.input(error.description)
            }
            let profile = try loadProfile(sut)
            guard let base = target ?? profile?.baseURL else {
                throw CommandFailure.input("\(sut ?? "the profile") has no base-url: give --target URL")
            }
            var t = SUTAdapter.Doctor.Target(base: base)
            t.profile = profile ?? .vitalsim
            t.caFile = cacert ?? profile?.tls.caFile
            t.insecure = insecure || profile?.tls.insecure == true
            t.clientCertificate = try clientCertificate(certificate: clientCert, key: clientKey, profile: profile)
            t.mqttCredentials = mqttCredentials(profile)
            t.headers = header
            t.mqtt = mqtt.flatMap(parseHostPort)
            t.mqttCAFile = mqttCacert
            t.names = .flags
            // A run id of its own, so that the probes' patients never meet a run's on a shared SUT.
            t.runID = String(format: "doctor-%06x", UInt32.random(in: 0...0xFF_FFFF))
            print("conformance statement of \(t.profile.name)" + (sut.map { " (\($0))" } ?? "") + ":")
            for line in t.profile.conformance.lines(knownRules: Oracle.derivedRuleIDs.sorted()) { print("  \(line)") }
            let checks = await SUTAdapter.Doctor.examine(loaded, seed: seed, target: t)
            for c in checks { print("\(c.warning ? "!" : c.passed ? "✓" : "✗") \(c.name): \(c.detail)") }
            let failed = checks.filter { !$0.passed }.count
            print(
                failed == 0
                    ? "the SUT can be tested (\(checks.count) checks)" : "\(failed) of \(checks.count) checks failed"
            )
            if failed > 0 { throw ExitCodes.infrastructure }
        }
    }
}
