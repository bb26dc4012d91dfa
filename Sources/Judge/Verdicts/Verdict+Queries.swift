import RunRecord
import VitalSimCore

extension Verdict {
    /// A narrowed read-back (by period or kind) lists every reading the SUT's full read-back holds
    /// there and none outside it. The full read-back is the reference: a reading lost from both is
    /// the kept check's finding, not this one's. Readings within the time tolerance of a period's
    /// bounds may fall either side.
    static func queryCheck(
        _ p: String,
        _ query: ReadBackQuery,
        held: [StoredReading],
        answered: [StoredReading]
    ) -> Check {
        let name = "stored readings of patient \(p) \(query)"
        let expected = held.filter { query.selects($0) && !query.isOnEdge($0) }
        // How many times the answer lists each reading: a patient's day of 1 Hz readings is 86,400.
        var listed: [StoredReadingKey: Int] = [:]
        for reading in answered { listed[StoredReadingKey(reading), default: 0] += 1 }
        var missing: [StoredReading] = []
        for reading in expected {
            let key = StoredReadingKey(reading)
            if let n = listed[key], n > 0 { listed[key] = n - 1 } else { missing.append(reading) }
        }
        let outside = answered.filter { !query.selects($0) && !query.isOnEdge($0) }
        guard !missing.isEmpty || !outside.isEmpty else {
            let detail = "\(answered.count) reading(s) listed, all \(expected.count) held there among them"
            return Check(kind: .storedData, name: name, rule: nil, finding: nil, detail: detail)
        }
        var parts: [String] = []
        if !missing.isEmpty {
            parts.append(
                "\(missing.count) of the \(expected.count) reading(s) the SUT holds there are not listed, first: "
                    + named(missing)
            )
        }
        if !outside.isEmpty {
            parts.append("\(outside.count) listed reading(s) lie outside it, first: " + named(outside))
        }
        return Check(
            kind: .storedData,
            name: name,
            rule: nil,
            finding: .queryMismatch,
            detail: parts.joined(separator: "; ")
        )
    }

    /// What makes two answers' stored readings the same one: its id, or without an id its values at
    /// its device time.
    enum StoredReadingKey: Hashable {
        case id(String)
        case valuesAt(Int64, [Signal: Double])

        init(_ reading: StoredReading) {
            self = reading.id.map(Self.id) ?? .valuesAt(reading.time, reading.values)
        }
    }

    /// The first readings of a list, for a detail.
    static func named(_ readings: [StoredReading]) -> String {
        let kind = { (r: StoredReading) in r.values.readingKind?.rawValue ?? "reading" }
        return readings.prefix(namedReadings).map { "\($0.id ?? kind($0)) (\(kind($0)) at \(iso($0.time)))" }
            .joined(separator: ", ") + (readings.count > namedReadings ? ", …" : "")
    }
}
