import ArgumentParser
import Benchmarks
import Foundation
import Judge
import LiveHarness
import RunRecord
import Traffic
import Transports
import VitalSimCore

extension VitalSim {
    /// `vitalsim bench-transport`
    struct BenchTransport: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench-transport",
            abstract:
                "Drive the harness's HTTP(S) or MQTT transport as fast as the server answers and print its rate and latency (see ci/bench-harness.sh).",
            discussion:
                "HTTP: single-reading POSTs to URL (bodies as ci/bench/serve.lua builds them) over keep-alive connections. MQTT: messages on vitals/{patient}/heart-rate from one client (or --connections clients)."
        )
        @Option(name: .long, help: "POST to this URL (e.g. https://127.0.0.1:8443/api/v1/observations).") var http:
            String?
        @Option(name: .long, help: "PEM CA bundle for HTTPS.") var cacert: String?
        @Flag(name: .long, help: "Do not verify the server's certificate.") var insecure = false
        @Option(
            name: .long,
            help: "Connections: HTTP keep-alive ones (default 8), or MQTT clients publishing side by side (default 1)."
        ) var connections: Int?
        @Flag(
            name: .long,
            help:
                "HTTP through one blocking libcurl easy handle per connection (the older transport) instead of the multi handle vitalsim run uses."
        ) var easyHandles = false
        @Flag(
            name: .long,
            help:
                "Speak HTTP/2 where the server offers it (as vitalsim run --http2); the default is HTTP/1.1 keep-alive, as wrk."
        ) var http2 = false
        @Option(name: .long, help: "Publish to this MQTT broker, HOST:PORT.") var mqtt: String?
        @Option(name: .long, help: "MQTT QoS: 0, 1 or 2.") var qos = 1
        @Option(
            name: .long,
            help: "Publishes awaiting their acknowledgement at once (MQTT QoS ≥ 1; vitalsim run: 64 per connection)."
        )
        var inFlight = 64
        @Option(
            name: .long,
            help:
                "A full window wakes the publisher once this many are outstanding (default: half of --in-flight, as vitalsim run; in-flight − 1 wakes it per message)."
        ) var resumeAt: Int?
        @Option(name: .long, help: "Requests or messages to send.") var count = 100_000
        @Option(
            name: .long,
            help:
                "Instead of synthetic requests, send this scenario's traffic plan (as vitalsim run does) to the --http base URL."
        ) var scenario: String?

        func validate() throws {
            if (http == nil) == (mqtt == nil) {
                throw ValidationError("give exactly one of --http URL and --mqtt HOST:PORT")
            }
            if let mqtt, parseHostPort(mqtt) == nil { throw ValidationError("--mqtt must be HOST:PORT, got '\(mqtt)'") }
            if !(0...2).contains(qos) { throw ValidationError("--qos must be 0, 1 or 2") }
            if !(1...256).contains(connections ?? 1) || !(1...1024).contains(inFlight) {
                throw ValidationError("--connections must be 1...256 and --in-flight 1...1024")
            }
            if let resumeAt, !(0..<inFlight).contains(resumeAt) {
                throw ValidationError("--resume-at must be 0...in-flight − 1")
            }
            if count < 1 { throw ValidationError("--count must be positive") }
        }

        func run() async throws {
            if let scenario, let http { return try await sendScenario(scenario, to: http) }
            let result: TransportBenchmark.Result
            if let http {
                result = await TransportBenchmark.http(
                    url: http,
                    caFile: cacert,
                    insecure: insecure,
                    count: count,
                    connections: connections ?? 8,
                    easyHandles: easyHandles,
                    http2: http2
                )
            } else {
                let (host, port) = parseHostPort(mqtt ?? "")!
                do throws(MQTTError) {
                    result = try await TransportBenchmark.mqtt(
                        host: host,
                        port: port,
                        qos: qos,
                        count: count,
                        inFlight: inFlight,
                        resumeAt: resumeAt ?? inFlight / 2,
                        connections: connections ?? 1
                    )
                } catch {
                    throw CommandFailure.infrastructure("vitalsim bench-transport: \(error)")
                }
            }
            print(result.summary)
            printPeakRSS()
            if result.failed > 0 { throw ExitCode(1) }
        }

        /// As vitalsim run does: the scenario's traffic plan, generated while it is sent.
        func sendScenario(_ path: String, to http: String) async throws {
            let loaded: Scenario
            do throws(ScenarioLoadError) { loaded = try TracedScenarioLoader.load(path: path) } catch {
                throw CommandFailure.input(error.description)
            }
            let devices = loaded.patients.reduce(0) { $0 + $1.devices.count }
            let clock = ContinuousClock()
            let start = clock.now
            var target = LiveOptions.Target()
            target.caFile = cacert
            target.insecure = insecure
            target.http2 = http2
            var pacing = LiveOptions.Pacing()
            pacing.connections = connections ?? 8
            pacing.settle = .milliseconds(100)
            let runner = LiveRunner(base: http, target: target, pacing: pacing)
            let run = await runner.run(TrafficPlanStream(for: loaded))
            let readings = run.traffic.requests.reduce(0) { $0 + $1.readingCount }
            let failed = run.traffic.outcomes.filter { ($0.status ?? 500) >= 300 }.count
            let sending = (clock.now - start).seconds
            let rates = String(
                format: "%.2f s (%.0f readings/s, %.0f requests/s)",
                sending,
                Double(readings) / sending,
                Double(run.traffic.requests.count) / sending
            )
            print(
                "\(loaded.name): \(devices) devices, \(readings) readings in \(run.traffic.requests.count) requests, generated and sent in \(rates), \(failed) failed"
            )
            printPeakRSS()
            if failed > 0 { throw ExitCode(1) }
        }

        func printPeakRSS() {
            let rss =
                (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8))?.split(separator: "\n").first {
                    $0.hasPrefix("VmHWM")
                }
                ?? ""
            print("peak RSS: " + rss.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
    }
}
