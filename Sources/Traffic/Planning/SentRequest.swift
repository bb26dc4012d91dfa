import VitalSimCore

/// A request as a run keeps it once sent: no body, and its readings as runs of one device's
/// consecutive sequence numbers (a batch is usually one run), so that what a long run keeps does
/// not grow with every reading id.
package struct SentRequest: Sendable {
    /// The HTTP path (empty for MQTT messages).
    package var path: String
    /// The MQTT topic, nil for HTTP requests.
    package var topic: String?
    package var patientID: String
    /// The device whose readings it carries (the scenario's id).
    package var deviceID: String
    /// Intended emit time of its last reading (virtual ms from the start).
    package var sendAt: Int64
    package var expectedRejection: ExpectedRejection?
    /// The kinds of its readings.
    package var kinds: VitalKindSet
    /// How many readings it carried.
    package let readingCount: Int
    /// The id of its first reading (nil for a request without readings).
    package let firstReading: String?
    /// Its reading ids: `prefix/seq` for seq in first ..< first + count.
    package let runs: [(prefix: Substring, first: UInt32, count: UInt32)]
    /// Ids that are not `prefix/number`, kept whole.
    package let others: [String]

    package init(_ plannedRequest: PlannedRequest) {
        path = plannedRequest.path
        topic = plannedRequest.topic
        patientID = plannedRequest.patientID
        deviceID = plannedRequest.deviceID
        sendAt = plannedRequest.sendAt
        expectedRejection = plannedRequest.expectedRejection
        kinds = plannedRequest.kinds
        readingCount = plannedRequest.readings.count
        firstReading = plannedRequest.readings.first?.id
        var runs: [(prefix: Substring, first: UInt32, count: UInt32)] = []
        var others: [String] = []
        for reading in plannedRequest.readings {
            guard let (prefix, seq) = SentRequest.split(reading.id) else {
                others.append(reading.id)
                continue
            }
            if let last = runs.last, last.prefix == prefix, last.first &+ last.count == seq {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((prefix, seq, 1))
            }
        }
        self.runs = runs
        self.others = others
    }

    /// The ids of the readings it carried, in the order carried runs by runs, then the others.
    package var readingIDs: [String] {
        runs.flatMap { run in (0..<run.count).map { "\(run.prefix)/\(run.first + $0)" } } + others
    }

    /// Whether the request carried reading `id`.
    package func carries(_ id: String) -> Bool {
        if let (prefix, seq) = SentRequest.split(id) {
            return runs.contains { $0.prefix == prefix && seq >= $0.first && seq - $0.first < $0.count }
        }
        return others.contains(id)
    }

    /// The indices in `sent` of the requests that carried each of `ids`, in plan order (a duplicate
    /// delivery carries its reading again); ids no request carried are absent.
    package static func carriers(of ids: some Sequence<String>, in sent: [SentRequest]) -> [String: [Int]] {
        var out: [String: [Int]] = [:]
        var wanted: Set<String> = []
        var byPrefix: [Substring: [(id: String, seq: UInt32)]] = [:]
        for id in ids where wanted.insert(id).inserted {
            if let (prefix, seq) = split(id) { byPrefix[prefix, default: []].append((id, seq)) }
        }
        guard !wanted.isEmpty else { return out }
        for (i, request) in sent.enumerated() {
            for run in request.runs {
                for n in byPrefix[run.prefix] ?? [] where n.seq >= run.first && n.seq - run.first < run.count {
                    out[n.id, default: []].append(i)
                }
            }
            for id in request.others where wanted.contains(id) { out[id, default: []].append(i) }
        }
        return out
    }

    /// `PATIENT/DEVICE[/KIND]/SEQ` as its prefix and sequence number.
    package static func split(_ id: String) -> (Substring, UInt32)? {
        guard let slash = id.lastIndex(of: "/"), let seq = UInt32(id[id.index(after: slash)...]) else { return nil }
        return (id[..<slash], seq)
    }
}
