import ArgumentParser
import Benchmarks
import Foundation
import VitalSimCore

extension VitalSim {
    /// `vitalsim bench`
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Benchmark generation + GATT encoding on one core (readings/s, peak memory).",
            discussion:
                "Default: 1,000 patients × 24 h at default cadences, written to /dev/null. See docs/performance.md."
        )
        @Option(name: .long, help: "Number of simulated patients (8 devices each).") var patients = 1000
        @Option(name: .long, help: "Virtual duration, e.g. 24h.") var duration = "24h"
        @Option(name: .long, help: "Where to write the encoded stream.") var out = "/dev/null"

        func run() throws {
            guard let virtualDuration = VirtualDuration(parsing: duration), virtualDuration.milliseconds > 0 else {
                throw CommandFailure.input("--duration: expected a positive duration such as 24h, got '\(duration)'")
            }
            guard patients > 0 else {
                throw CommandFailure.input("--patients must be at least 1")
            }
            let report = try GenerationBenchmark(patients: patients, duration: virtualDuration, sink: out).run()
            print(
                "patients \(report.patients), virtual hours \(report.hours), readings \(report.readings), bytes \(report.bytes)"
            )
            print(
                "elapsed \(String(format: "%.2f", report.seconds)) s, \(Int(report.readingsPerSecond)) readings/s, peak RSS \(String(format: "%.1f", report.peakRSSMegabytes)) MB"
            )
        }
    }
}
