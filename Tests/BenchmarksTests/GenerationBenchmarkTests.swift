import Benchmarks
import Foundation
import Testing
import Traffic
import VitalSimCore

/// What `vitalsim bench generate` counts is what was generated and written: its population loads,
/// its reading count is the scenario's own, and the bytes it reports are the bytes in the sink.
struct GenerationBenchmarkTests {
    @Test func thePopulationWearsEightDevicesEach() throws {
        let bench = GenerationBenchmark(patients: 3, duration: .hours(1))
        let scenario = try ScenarioLoader.parse(bench.scenarioYAML(), file: "bench.yaml")
        #expect(scenario.patients.map(\.id) == ["b0", "b1", "b2"])
        #expect(scenario.patients.allSatisfy { $0.devices.count == 8 })
        #expect(scenario.patients.map(\.profile.rawValue) == ["adult", "diabetic-cgm", "adult"])
    }

    @Test func readingsAndBytesAreTheOnesGeneratedAndWritten() throws {
        let sink = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(getpid()).bin").path
        #expect(FileManager.default.createFile(atPath: sink, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: sink) }
        let bench = GenerationBenchmark(patients: 2, duration: .hours(1), sink: sink)
        let result = try bench.run()

        var run = ScenarioRun(scenario: try ScenarioLoader.parse(bench.scenarioYAML(), file: "bench.yaml"))
        var expected = 0
        while run.next() != nil { expected += 1 }
        #expect(expected > 2 * 3_600)  // two heart-rate straps at 1 s alone
        #expect(result.readings == expected)
        let written = try FileManager.default.attributesOfItem(atPath: sink)[.size] as? Int
        #expect(result.bytes == written)
        #expect(result.readingsPerSecond > 0)
    }

    @Test func transportBodiesAreUniquePerRequestAndWorker() throws {
        let bodies = (0..<1_000).flatMap { n in (0..<2).map { TransportBenchmark.observation(n, worker: $0) } }
        let ids = try bodies.map { body in
            let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
            return try #require(object?["readingId"] as? String)
        }
        #expect(Set(ids).count == 2_000)
        let crisis = try #require(
            JSONSerialization.jsonObject(with: Data(TransportBenchmark.observation(0, worker: 0))) as? [String: Any]
        )
        #expect(crisis["systolic"] as? Int == 185)
    }
}
