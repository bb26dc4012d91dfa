import Foundation
import XCTest

/// OpenTelemetry out, end to end: `vitalsim run --otlp-endpoint` against the embedded
/// reference SUT, both exporting to an OTLP/HTTP receiver the test starts (`Tests/otlp/otlp_receiver.py`,
/// which decodes with the OpenTelemetry project's own protobuf classes). The run's spans and metrics
/// arrive labelled with run, shard and scenario; every reading's span shares its trace id with the
/// reference SUT's span of that request; each alert's span is in a trace the JSON verdict names for it.
/// A build without the OTLP trait says how to get one.
final class OTLPExportTests: XCTestCase {
    var directory = ""
    let root = TestSupport.repositoryRoot
    var received: String { directory + "/otlp.jsonl" }

    override func setUp() { directory = TestSupport.temporaryDirectory("otlp") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// Starts the receiver; returns it and its base URL.
    func startReceiver() throws -> (Process, String) {
        let venv = root + "/.venv-test"
        if (try? TestSupport.run(venv + "/bin/python", ["-c", "import opentelemetry.proto"]).status) != 0 {
            let pip = try TestSupport.run(venv + "/bin/pip", ["install", "-q", "opentelemetry-proto==1.45.2"])
            XCTAssertEqual(pip.status, 0, pip.err)
        }
        let receiver = Process()
        receiver.executableURL = URL(fileURLWithPath: venv + "/bin/python")
        receiver.arguments = [root + "/Tests/otlp/otlp_receiver.py", received]
        let out = Pipe()
        receiver.standardOutput = out
        try receiver.run()
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let port = try XCTUnwrap(
            line.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        )
        return (receiver, "http://127.0.0.1:\(port)")
    }

    func rows() throws -> [[String: Any]] {
        try String(contentsOfFile: received, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func testTheRunsAndTheReferenceSUTsSpansAndMetricsReachACollectorInOneTracePerReading() throws {
        #if OTLP
        let (receiver, endpoint) = try startReceiver()
        defer { receiver.terminate() }
        let run = try TestSupport.vitalsim(
            [
                "run", root + "/scenarios/boundaries/adult-thresholds.yaml", "--golden-dir", root + "/golden",
                "--run-id", "otlp-test", "--otlp-endpoint", endpoint, "--json", directory + "/verdict.json",
            ],
            in: directory
        )
        XCTAssertEqual(run.status, 0, run.out + run.err)
        XCTAssertTrue(run.err.contains("OpenTelemetry: spans and metrics to \(endpoint)/v1/traces"), run.err)
        let rows = try rows()
        let spans = rows.filter { $0["signal"] as? String == "span" }
        func named(_ service: String, _ prefix: String) -> [[String: Any]] {
            spans.filter { $0["service"] as? String == service && ($0["name"] as? String ?? "").hasPrefix(prefix) }
        }
        let readings = named("vitalsim", "POST /api/")
        let ingested = named("vitalsim-reference-sut", "/api/").filter {
            ["/api/iot-heart-rate", "/api/v1/observations", "/api/healthkit"].contains($0["name"] as? String)
        }
        XCTAssertGreaterThan(readings.count, 100)
        // One trace per request, and the SUT's span of each request in it.
        let traces = Set(readings.compactMap { $0["traceId"] as? String })
        XCTAssertEqual(traces.count, readings.count)
        XCTAssertEqual(Set(ingested.compactMap { $0["traceId"] as? String }), traces)
        for span in readings {
            let attributes = try XCTUnwrap(span["attributes"] as? [String: Any])
            XCTAssertEqual(attributes["vitalsim.run_id"] as? String, "otlp-test")
            XCTAssertEqual(attributes["vitalsim.scenario"] as? String, "adult-thresholds")
            XCTAssertEqual(attributes["vitalsim.shard"] as? String, "all")
            XCTAssertLessThanOrEqual(try XCTUnwrap(span["start"] as? Int), try XCTUnwrap(span["end"] as? Int))
        }
        // Each alert's span is in a trace the JSON verdict names for that alert.
        let verdict = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/verdict.json")))
                as? [String: Any]
        )
        let scenario = try XCTUnwrap((verdict["scenarios"] as? [[String: Any]])?.first)
        var traced: [String: Set<String>] = [:]
        for alert in scenario["alerts"] as? [[String: Any]] ?? [] {
            traced[alert["id"] as? String ?? ""] = Set(alert["traceIds"] as? [String] ?? [])
        }
        // Every alert has one, the heart-rate alerts too, which the reference SUT cites by ids of its
        // own (the VitalEdge SDS's payload has none): found by their time.
        let alerts = named("vitalsim", "alert ")
        XCTAssertEqual(alerts.count, traced.count)
        XCTAssertTrue(traced.values.allSatisfy { !$0.isEmpty }, "\(traced)")
        XCTAssertEqual(alerts.count, 8)
        XCTAssertTrue(alerts.contains { $0["name"] as? String == "alert hr.bradycardia" })
        for span in alerts {
            let id = try XCTUnwrap((span["attributes"] as? [String: Any])?["vitalsim.alert.id"] as? String)
            XCTAssertTrue(traced[id]?.contains(span["traceId"] as? String ?? "") == true, "\(id): \(span)")
        }
        // The metrics, exported as the run went and once more at its end.
        let metrics = rows.filter { $0["signal"] as? String == "metric" }
        func last(_ name: String) -> [String: Any]? { metrics.last { $0["name"] as? String == name } }
        XCTAssertEqual(last("vitalsim.harness.requests_sent")?["value"] as? Int, readings.count)
        XCTAssertEqual(last("vitalsim.harness.reading_to_ack_seconds")?["count"] as? Int, readings.count)
        XCTAssertEqual(last("vitalsim.harness.progress_ratio")?["value"] as? Double, 1)
        let acknowledged = try XCTUnwrap(last("vitalsim.harness.readings"))
        XCTAssertEqual((acknowledged["attributes"] as? [String: Any])?["outcome"] as? String, "acknowledged")
        XCTAssertEqual((acknowledged["resource"] as? [String: Any])?["vitalsim.run_id"] as? String, "otlp-test")
        #else
        let run = try TestSupport.vitalsim(
            ["run", root + "/scenarios/boundaries/adult-thresholds.yaml", "--otlp-endpoint", "http://127.0.0.1:4318"],
            in: directory
        )
        XCTAssertEqual(run.status, 2, run.out + run.err)
        XCTAssertTrue(run.err.contains("swift build -c release --traits OTLP"), run.err)
        #endif
    }
}
