import Crypto
import Foundation
import W3CTraceContext

/// The W3C trace context (`traceparent`) a run sends with each request and MQTT message, so a team
/// finds a reading in its own tracing system and follows it through its backend: one trace per
/// request (its readings share it), named by the run id, the scenario and the request's first
/// reading — `trace-id` the first 16 bytes of SHA-256 of those, a new `parent-id` per attempt — and
/// sampled. Deterministic, as all traffic: the same run id gives the same ids, so give each run its
/// own (`--run-id`, `VITALSIM_RUN_ID`) to keep runs apart.
package struct RequestTrace: Sendable, Equatable {
    /// The run id and scenario the ids are drawn from.
    package var run: String
    package var scenario: String

    package init(run: String, scenario: String) {
        self.run = run
        self.scenario = scenario
    }

    /// The W3C header and MQTT user property name.
    package static let header = "traceparent"

    func digest(_ parts: [String]) -> [UInt8] {
        Array(SHA256.hash(data: Data((["vitalsim-trace", run, scenario] + parts).joined(separator: "\u{1F}").utf8)))
    }

    /// The trace of the request whose first reading is `reading`.
    package func traceID(firstReading reading: String) -> TraceID {
        let hash = digest(["trace", reading])
        // An all-zero id is invalid (W3C Trace Context §3.2.2.3); a SHA-256 prefix of zeros is not met.
        return TraceID(
            bytes: (
                hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7], hash[8], hash[9], hash[10],
                hash[11], hash[12], hash[13], hash[14], hash[15]
            )
        )
    }

    /// The span of one attempt at the request.
    package func spanID(firstReading reading: String, attempt: Int) -> SpanID {
        let hash = digest(["span", reading, String(attempt)])
        return SpanID(bytes: (hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7]))
    }

    /// What names a request's trace: its first reading's id (a request without readings, its
    /// patient, device and due time).
    package static func key(firstReading: String?, patient: String, device: String, sendAt: Int64) -> String {
        firstReading ?? "\(patient)/\(device)@\(sendAt)"
    }

    /// The key of a planned request.
    package static func key(_ request: PlannedRequest) -> String {
        key(
            firstReading: request.readings.first?.id,
            patient: request.patientID,
            device: request.deviceID,
            sendAt: request.sendAt
        )
    }

    /// The trace id (32 lowercase hex digits) of a planned request.
    package func traceID(of request: PlannedRequest) -> String {
        traceID(firstReading: Self.key(request)).description
    }

    /// The key of a sent request.
    package static func key(_ request: SentRequest) -> String {
        key(
            firstReading: request.firstReading,
            patient: request.patientID,
            device: request.deviceID,
            sendAt: request.sendAt
        )
    }

    /// The trace id (32 lowercase hex digits) of a sent request.
    package func traceID(of request: SentRequest) -> String {
        traceID(firstReading: Self.key(request)).description
    }

    /// The `traceparent` value of an attempt at the request whose first reading is `reading`.
    package func traceparent(firstReading reading: String, attempt: Int) -> String {
        TraceContext(
            traceID: traceID(firstReading: reading),
            spanID: spanID(firstReading: reading, attempt: attempt),
            flags: .sampled,
            state: TraceState()
        ).traceParentHeaderValue
    }
}
