import Foundation
import Judge
import RunRecord
import Traffic
import XCTest

/// Each alert names the W3C traces of the requests that carried its evidence, in the JSON verdict
/// and across a shard's result file.
final class AlertTracesTests: XCTestCase {
    func request(_ readings: [String], at t: Int64) -> SentRequest {
        SentRequest(
            PlannedRequest(
                path: "/api/v1/observations",
                body: [],
                readings: readings.map { ($0, t) },
                patientID: "1",
                sendAt: t,
                expectedRejection: nil,
                deviceID: "d1"
            )
        )
    }

    func testAnAlertsEvidenceLeadsToTheTracesOfItsRequests() throws {
        let trace = RequestTrace(run: "r", scenario: "s")
        let plan = [
            request(["1/d1/1", "1/d1/2", "1/d1/3"], at: 0), request(["1/d1/4"], at: 1000), request(["x"], at: 2000),
        ]
        let alert = ObservedAlert(
            alertID: "a1",
            patientID: "1",
            rule: "hr.tachycardia",
            severity: "high",
            raisedAt: 0,
            evidence: ["1/d1/2", "1/d1/4", "x", "unknown/9"]
        )
        let traces = Verdict.alertTraces([alert], plan: plan, trace: trace)
        let expected = [plan[0], plan[1], plan[2]].map { trace.traceID(of: $0) }.sorted()
        XCTAssertEqual(traces["a1"], expected)
        XCTAssertEqual(expected.first?.count, 32)
        let header = trace.traceparent(firstReading: "1/d1/1", attempt: 1).split(separator: "-").map(String.init)
        XCTAssertEqual(trace.traceID(of: plan[0]), header[1])
        XCTAssertTrue(Verdict.alertTraces([alert], plan: plan, trace: nil).isEmpty, "no trace context sent")

        var verdict = Verdict(scenario: "s", checks: [])
        verdict.alerts = [alert]
        verdict.alertTraces = traces
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(RunReport([verdict]).json.utf8)) as? [String: Any]
        )
        let alerts = try XCTUnwrap((json["scenarios"] as? [[String: Any]])?.first?["alerts"] as? [[String: Any]])
        XCTAssertEqual(alerts.first?["traceIds"] as? [String], expected)
        // A shard's result file keeps them.
        XCTAssertEqual(VerdictRecord(verdict).verdict(scenario: "s").alertTraces, traces)
    }
}
