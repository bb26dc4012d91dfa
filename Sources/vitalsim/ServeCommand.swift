import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ReferenceSUT
import VitalSimCore

extension VitalSim {
    /// `vitalsim serve` — the reference SUT (partial: see docs/alert-rules.md "Status").
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the reference SUT: VitalEdge and observation ingestion, the alert engine, alert polling (plain HTTP; partial).",
            discussion: """
            Built so far: POST /api/iot-heart-rate and /api/healthkit (seeds 001/002), POST /api/v1/observations,
            GET /api/v1/alerts?patient=&since=, GET /healthz; observations kept in memory. Not yet: HTTPS, credentials,
            FHIR, MQTT, storage, webhook/MQTT/SSE delivery, faulty modes. Prints `listening on URL` when ready.
            """
        )
        @Option(name: .long, help: "Address to bind (loopback by default).") var host = "127.0.0.1"
        @Option(name: .long, help: "Port; 0 picks a free one.") var port = 8080
        @Option(name: .long, help: "Alert rules file (default: the shipped rules).") var rules: String?
        @Option(name: .long, help: "Take patients' profiles from this scenario file.") var scenario: String?
        @Option(name: .long, help: "A patient's profile, PATIENT=PROFILE (repeatable); others are adult.") var patient: [String] = []
        @Flag(name: .long, help: "Demo credentials: prints `device-token PATIENT DEVICE TOKEN` per patient (501 and the --patient/--scenario ones) and `reader-token TOKEN`; requests must then carry them.") var dev = false

        func run() async throws {
            let ruleSet: [AlertRule]
            do {
                if let rules { ruleSet = try RuleSetLoader.parse(try FileText.read(rules), file: rules) } else { ruleSet = try RuleSetLoader.defaultRules() }
            } catch let e as ScenarioLoadError { printError(e.description); throw ExitCodes.input } catch { printError("\(error)"); throw ExitCodes.input }
            var profiles: [String: Profile] = [:]
            if let scenario {
                do { for p in try ScenarioLoader.load(path: scenario).patients { profiles[p.id] = p.profile } } catch { printError(error.description); throw ExitCodes.input }
            }
            for item in patient {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let profile = Profile(rawValue: parts[1]) else {
                    printError("--patient: expected PATIENT=PROFILE with a profile of \(Profile.allCases.map(\.rawValue).joined(separator: ", ")), got '\(item)'")
                    throw ExitCodes.input
                }
                profiles[parts[0]] = profile
            }
            let store = ReferenceStore(rules: ruleSet, profiles: profiles)
            var credentials = Credentials()
            if dev {
                credentials = Credentials.demo(patients: Array(Set(["501"] + profiles.keys)).sorted())
                var lines = ""
                for (token, owner) in credentials.devices.sorted(by: { $0.value.patientID < $1.value.patientID }) {
                    lines += "device-token \(owner.patientID) \(owner.deviceID) \(token)\n"
                }
                for token in credentials.readers.sorted() { lines += "reader-token \(token)\n" }
                FileHandle.standardOutput.write(Data(lines.utf8))
            }
            let router = ReferenceServer.router(store: store, credentials: credentials) { Int64(Date().timeIntervalSince1970 * 1000) }
            let host = self.host
            // Server logs go to standard error at warning level; standard output carries only `listening on URL`.
            var logger = Logger(label: "vitalsim.serve") { StreamLogHandler.standardError(label: $0) }
            logger.logLevel = .warning
            let app = Application(router: router, configuration: .init(address: .hostname(host, port: port)), onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(bound)\n".utf8))
            }, logger: logger)
            try await app.runService()
        }
    }
}
