// VitalSim's hot paths under ordo-one/benchmark: generation, encoding, planning, sending and judging,
// each on input built once in its setup (docs/performance.md, "Hot-path benchmarks"). Built only
// with the package trait `Benchmarks`, which `ci/bench-hot-paths.sh` enables; without it this
// executable says so and exits, and the default build compiles nothing of ordo-one/benchmark.
#if Benchmarks
import Benchmark
import Benchmarks
import Foundation
import Judge
import LiveHarness
import Locking
import RunRecord
import Traffic
import Transports
import VitalSimCore

@main
struct HotPaths: BenchmarkRunnerHooks {
    static func registerBenchmarks() { HotPathBenchmarks.register() }
}

/// Input built by a benchmark's setup, read by its iterations.
final class Prepared<Value: Sendable>: Sendable {
    private let value = Locked<Value?>(nil)
    func set(_ v: Value) { value.withLock { $0 = v } }
    var get: Value {
        guard let stored = value.withLock({ $0 }) else { fatalError("the benchmark's setup did not run") }
        return stored
    }
}

/// An HTTP exchange that answers every request at once: what is timed is the runner's own work.
struct ImmediateSUT: HTTPExchange {
    func send(
        _ method: String,
        _ url: String,
        body: [UInt8]?,
        headers: [String],
        timeout: Double
    )
        async throws(HTTPTransportError) -> HTTPReply
    {
        method == "GET" ? HTTPReply(status: 200, body: Array("[]".utf8)) : HTTPReply(status: 200, body: [])
    }
}

enum HotPathBenchmarks {
    /// The repository (this file is Benchmarks/HotPaths/HotPaths.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// CPU time and allocations are what the check compares; wall time is shown, not judged (the
    /// machine is shared). A path fails `baseline check` when its fastest iteration's CPU time grows
    /// by more than 15 %, or its median allocation count by more than 2 %. The fastest of 40, not a
    /// quartile of 15: this VM's noise only ever adds time, and comes in spells of seconds (the first
    /// quartile of 15 iterations of unchanged code rose by 23 % and 43 % in two checks of three), so
    /// the fastest iteration is the one that ran without it. The CPU clock counts in 10 ms, so every
    /// iteration is a few hundred ms.
    static var configuration: Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: [.cpuTotal, .wallClock, .mallocCountTotal],
            timeUnits: .milliseconds,
            warmupIterations: 2,
            maxDuration: .seconds(30),
            maxIterations: 40,
            thresholds: [
                .cpuTotal: BenchmarkThresholds(relative: [.p0: 15.0]),
                .mallocCountTotal: BenchmarkThresholds(relative: [.p50: 2.0]),
                .wallClock: BenchmarkThresholds(),
            ]
        )
    }

    /// The core suite's scenarios, in the order `vitalsim run scenarios/core` reads them.
    static func coreSuite() throws -> [Scenario] {
        try LiveSuite.scenarioFiles(root + "/scenarios/core").map { try ScenarioLoader.load(path: $0) }
    }

    static func register() {
        generationAndEncoding()
        planningAndSending()
        judging()
    }

    /// 20 patients of the benchmark population for 2 hours (about 190,000 readings).
    static func generationAndEncoding() {
        let scenario = Prepared<Scenario>()
        Benchmark("generation: 20 patients x 2 h", configuration: configuration) { benchmark in
            blackHole(HotPathWorkloads.generate(scenario.get))
        } setup: {
            scenario.set(try HotPathWorkloads.population(patients: 20, hours: 2))
        }
        let readings = Prepared<(readings: [Reading], start: Int64)>()
        // Encoding is the cheaper half: eight passes over the readings make one iteration.
        Benchmark("encoding: 20 patients x 2 h, 8 times", configuration: configuration) { benchmark in
            for _ in 0..<8 { blackHole(HotPathWorkloads.encode(readings.get.readings, start: readings.get.start)) }
        } setup: {
            let s = try HotPathWorkloads.population(patients: 20, hours: 2)
            readings.set((HotPathWorkloads.readings(s), s.startUnixMilliseconds))
        }
    }

    /// The core suite's requests, planned as `vitalsim run` streams them; then 75 patients' 2 hours
    /// sent through the runner to a SUT that answers at once (8 connections, no pacing).
    static func planningAndSending() {
        let core = Prepared<[Scenario]>()
        Benchmark("planning: the core suite", configuration: configuration) { benchmark in
            for scenario in core.get { blackHole(HotPathWorkloads.plan(scenario)) }
        } setup: {
            core.set(try coreSuite())
        }
        let plan = Prepared<[PlannedRequest]>()
        Benchmark("sending: 75 patients x 2 h through the runner", configuration: configuration) { benchmark in
            var target = LiveOptions.Target()
            target.exchange = ImmediateSUT()
            var pacing = LiveOptions.Pacing()
            pacing.speed = nil
            pacing.settle = .zero
            pacing.alertWait = .zero
            let runner = LiveRunner(base: "http://127.0.0.1:9", target: target, pacing: pacing)
            let result = await runner.run(plan.get)
            blackHole(result.traffic.requests.count)
        } setup: {
            plan.set(TrafficPlan.requests(for: try HotPathWorkloads.population(patients: 75, hours: 2)))
        }
    }

    /// The load ward's 436 alerts paired with its golden file's expectations, and every core
    /// scenario's alerts with its own, as a run's verdict pairs them (a hundred times: one pass
    /// takes about 2 ms).
    static func judging() {
        let runs = Prepared<[(golden: GoldenFile, observed: [ObservedAlert])]>()
        Benchmark("judging: the ward and the core suite's alerts, 100 times", configuration: configuration) {
            benchmark in
            for _ in 0..<100 { blackHole(HotPathWorkloads.judge(runs.get)) }
        } setup: {
            var all = try coreSuite()
            all.append(try ScenarioLoader.load(path: root + "/scenarios/load/ward-2500-patients.yaml"))
            runs.set(
                try all.map { scenario in
                    let path = root + "/" + scenario.golden
                    let golden = try GoldenFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
                    return (golden, HotPathWorkloads.observed(Oracle.expect(scenario)))
                }
            )
        }
    }
}
#else
import Foundation

/// Without the `Benchmarks` trait: nothing to run.
@main
enum HotPaths {
    static func main() {
        FileHandle.standardError.write(
            Data("HotPaths is built with the package trait Benchmarks: run ci/bench-hot-paths.sh\n".utf8)
        )
        exit(2)
    }
}
#endif
