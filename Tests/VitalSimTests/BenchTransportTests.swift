import Foundation
import XCTest

/// `vitalsim bench-transport` (used by ci/bench-harness.sh) against a real broker and the reference
/// SUT: every message and request answered, and the figures printed in the documented form.
final class BenchTransportTests: XCTestCase {
    func testBenchTransportDrivesMQTTAndHTTPS() throws {
        let dir = TestSupport.temporaryDirectory("bench-transport")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MosquittoBroker()
        for qos in ["0", "1"] {
            let r = try TestSupport.run(TestSupport.vitalsimPath, ["bench-transport", "--mqtt", "127.0.0.1:\(broker.port)", "--qos", qos, "--count", "500"])
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssertTrue(r.out.hasPrefix("500 sent, 0 failed in "), r.out)
            XCTAssertTrue(r.out.contains("peak RSS: "), r.out)
        }
        let sut = try SUTProcess(["--self-signed", "--http2", "--database", dir + "/b.sqlite", "--rate-limit", "0"], directory: dir)
        defer { _ = sut.stop() }
        for extra in [[], ["--easy-handles"]] {
            let r = try TestSupport.run(TestSupport.vitalsimPath, ["bench-transport", "--http", sut.base + "/api/v1/observations", "--cacert", sut.caFile ?? "",
                                                                  "--count", "300", "--connections", "4"] + extra)
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssertTrue(r.out.hasPrefix("300 sent, 0 failed in "), r.out)
        }
        // A generated population, streamed through vitalsim run's planner and runner.
        let population = dir + "/population.yaml"
        let gen = try TestSupport.run("/usr/bin/env", ["python3", TestSupport.repositoryRoot + "/ci/bench/population.py", "10", "2m", population])
        XCTAssertEqual(gen.status, 0, gen.err)
        let streamed = try TestSupport.run(TestSupport.vitalsimPath, ["bench-transport", "--scenario", population, "--http", sut.base, "--cacert", sut.caFile ?? ""])
        XCTAssertEqual(streamed.status, 0, streamed.err)
        XCTAssertTrue(streamed.out.contains("40 devices, "), streamed.out)
        XCTAssertTrue(streamed.out.contains(" 0 failed"), streamed.out)
        let readings = streamed.out.components(separatedBy: "40 devices, ").last?.split(separator: " ").first.flatMap { Int($0) } ?? 0
        XCTAssertGreaterThan(readings, 10 * 120, "a chest strap alone sends one reading a second: \(streamed.out)")
        let refused = try TestSupport.run(TestSupport.vitalsimPath, ["bench-transport", "--http", "https://127.0.0.1:9/api/v1/observations", "--count", "3"])
        XCTAssertEqual(refused.status, 1, "requests without an answer are failures: \(refused.out)")
        let usage = try TestSupport.run(TestSupport.vitalsimPath, ["bench-transport", "--count", "3"])
        XCTAssertEqual(usage.status, 2)
    }
}
