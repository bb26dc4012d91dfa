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
        var unused = Array(answered.indices)
        var missing: [StoredReading] = []
        for reading in expected {
            if let k = unused.firstIndex(where: { Self.isSame(reading, answered[$0]) }) {
                unused.remove(at: k)
            } else {
                missing.append(reading)
            }
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

    /// The same stored reading in two answers: the same id, or without ids the same values at the
    /// same device time.
    static func isSame(_ a: StoredReading, _ b: StoredReading) -> Bool {
        if let x = a.id, let y = b.id { return x == y }
        return a.time == b.time && a.values == b.values
    }

    /// The first readings of a list, for a detail.
    static func named(_ readings: [StoredReading]) -> String {
        let kind = { (r: StoredReading) in StoredValueRules.kind(r.values)?.rawValue ?? "reading" }
        return readings.prefix(namedReadings).map { "\($0.id ?? kind($0)) (\(kind($0)) at \(iso($0.time)))" }
            .joined(separator: ", ") + (readings.count > namedReadings ? ", …" : "")
    }
}
