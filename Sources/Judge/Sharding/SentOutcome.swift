import RunRecord
import Traffic

/// One request a run sent and how the SUT answered it, as a shard's result file lists it: whose
/// it was, when it was due, the ids of the readings it carried, and the final answer. The merge
/// refuses shards that sent one reading twice, and checks each shard's counts against its list.
package struct SentOutcome: Sendable, Codable, Equatable {
    package var patient: String
    package var device: String
    /// Intended send time of its last reading, virtual ms from the scenario's start.
    package var at: Int64
    /// The HTTP path, or `mqtt:TOPIC` for an MQTT message.
    package var to: String
    /// Its readings as runs of consecutive ids `PREFIX/SEQ`, each written `PREFIX/FIRST` or
    /// `PREFIX/FIRST+COUNT` (COUNT readings from FIRST on).
    package var readings: [String]
    /// The ids of its readings not of the form `PREFIX/SEQ`, whole (absent when none).
    package var others: [String]?
    /// The final HTTP status (MQTT: the broker's acknowledgement as 200), nil when none came.
    package var status: Int?
    /// The `field` a 4xx answer named.
    package var field: String?
    /// Why no answer came.
    package var error: String?
    package var attempts: Int

    package init(_ sentRequest: SentRequest, _ requestOutcome: RequestOutcome) {
        patient = sentRequest.patientID
        device = sentRequest.deviceID
        at = sentRequest.sendAt
        to = sentRequest.topic.map { "mqtt:" + $0 } ?? sentRequest.path
        readings = sentRequest.runs.map {
            $0.count == 1 ? "\($0.prefix)/\($0.first)" : "\($0.prefix)/\($0.first)+\($0.count)"
        }
        others = sentRequest.others.isEmpty ? nil : sentRequest.others
        status = requestOutcome.status
        field = requestOutcome.field
        error = requestOutcome.error
        attempts = requestOutcome.attempts
    }

    /// The longest run a result file may hold: a run longer than any real request's is a damaged file.
    package static let longestRun: UInt32 = 1_000_000

    /// One entry of ``readings`` as its prefix, first sequence number and count; nil when it is
    /// not of that form, would overflow, or is longer than ``longestRun``.
    package static func run(_ text: String) -> (prefix: Substring, first: UInt32, count: UInt32)? {
        guard let slash = text.lastIndex(of: "/") else { return nil }
        let parts = text[text.index(after: slash)...].split(separator: "+", omittingEmptySubsequences: false)
        guard let first = parts.first.flatMap({ UInt32($0) }), parts.count <= 2 else { return nil }
        let count = parts.count == 2 ? UInt32(parts[1]) : 1
        guard let count, count > 0, count <= longestRun, first <= UInt32.max - (count - 1) else { return nil }
        return (text[..<slash], first, count)
    }

    /// The first entry of ``readings`` that is not a valid run, if any.
    package var malformedRun: String? { readings.first { Self.run($0) == nil } }

    /// How many readings it carried (a malformed run counted as none).
    package var readingCount: Int {
        readings.reduce(others?.count ?? 0) { $0 + Int(Self.run($1)?.count ?? 0) }
    }

    /// Every reading id it carried, runs expanded (a malformed run left out).
    package var readingIDs: [String] {
        let runs = readings.compactMap(Self.run).flatMap { run in
            (0..<run.count).map { "\(run.prefix)/\(run.first + $0)" }
        }
        return runs + (others ?? [])
    }

    /// Whether the SUT acknowledged, rejected or never answered it (as the verdict counted it).
    package var fate: ReadingFate { ReadingFate(status: status) }
}
