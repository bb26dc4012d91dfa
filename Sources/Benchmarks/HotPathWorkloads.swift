import Foundation
import Judge
import RunRecord
import Traffic
import VitalSimCore

/// The hot paths that `Benchmarks/HotPaths` times with ordo-one/benchmark (`ci/bench-hot-paths.sh`
/// compares them with the stored baseline): generation, encoding, planning and judging (sending needs
/// the runner, a module above this one: the benchmark drives it itself), each a fixed
/// piece of work on input built once, so that a change in its cost is the code's. Each returns what
/// it produced (a count), which the benchmark keeps from the optimiser and the tests check.
package enum HotPathWorkloads {
    /// The benchmark population of ``GenerationBenchmark`` (every patient with a strap, a CGM, a
    /// cuff, a meter, an oximeter, a thermometer, a scale and the phone bridge).
    package static func population(patients: Int, hours: Int) throws(ScenarioLoadError) -> Scenario {
        let yaml = GenerationBenchmark(patients: patients, duration: .hours(Int64(hours))).scenarioYAML()
        return try ScenarioLoader.parse(yaml, file: "bench.yaml")
    }

    /// Generation: every reading of `scenario`, physiology and devices, in emit order; returns how many.
    package static func generate(_ scenario: Scenario) -> Int {
        var run = ScenarioRun(scenario: scenario)
        var count = 0
        while run.next() != nil { count += 1 }
        return count
    }

    /// Every reading of `scenario`, kept (the input of ``encode(_:start:)``).
    package static func readings(_ scenario: Scenario) -> [Reading] {
        var run = ScenarioRun(scenario: scenario)
        var out: [Reading] = []
        while let (reading, _) = run.next() { out.append(reading) }
        return out
    }

    /// Encoding: each reading as its device sends it (GATT values, or JSON serialised to text);
    /// returns the bytes produced.
    package static func encode(_ readings: [Reading], start: Int64) -> Int {
        let encoder = ReadingEncoder(startUnixMilliseconds: start)
        var bytes = 0
        for reading in readings {
            for payload in encoder.encode(reading) {
                bytes += payload.json.map { $0.serialized().utf8.count } ?? payload.bytes.count
            }
        }
        return bytes
    }

    /// Planning: the requests a run sends for `scenario` (readings generated, encoded and batched
    /// into request bodies, the stream's digest computed), as `vitalsim run` streams them; returns the
    /// body bytes.
    package static func plan(_ scenario: Scenario) -> Int {
        var bytes = 0
        let stream = TrafficPlanStream(for: scenario)
        for request in stream { bytes += request.body.count }
        return bytes
    }

    /// The oracle's alerts as a SUT would list them (ids in order, evidence the completing reading).
    package static func observed(_ expected: [OracleAlert]) -> [ObservedAlert] {
        expected.enumerated().map { i, a in
            ObservedAlert(
                alertID: "a\(i)",
                patientID: a.patientID,
                rule: a.rule,
                severity: a.severity.rawValue,
                raisedAt: a.raisedAt,
                evidence: [a.evidence]
            )
        }
    }

    /// Judging: each run's observed alerts paired with its golden file's expectations, as a verdict
    /// pairs them (``Verdict/alertChecks(_:_:waited:)``); returns the checks made.
    package static func judge(_ runs: [(golden: GoldenFile, observed: [ObservedAlert])]) -> Int {
        runs.reduce(0) { $0 + AlertsArea().alertChecks($1.golden.alerts, $1.observed).count }
    }
}
