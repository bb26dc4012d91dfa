import RunRecord

/// Pairs the expected alerts of a golden file with the observed alerts, per patient and rule, by a
/// minimum-cost assignment: an observed alert inside an expected window costs nothing, one outside
/// costs its distance to the window, and a pair further apart than ``pairingBound`` is no pair (the
/// expectation is missed and the alert is spurious). Among assignments the one that pairs the most
/// expectations wins, then the one with the least total distance; golden-file order breaks ties.
package enum AlertMatching {
    /// How far outside its window (device time) an alert may be and still be diagnosed as early or
    /// late rather than as a missed expectation plus a spurious alert: 30 minutes.
    package static let pairingBound: Int64 = 30 * 60_000

    /// How far `time` lies outside `[from, to]` (0 inside).
    package static func distance(_ time: Int64, from: Int64, to: Int64) -> Int64 {
        time < from ? from - time : (time > to ? time - to : 0)
    }

    /// The observed alert paired with each expectation (by index), nil when none is within the bound.
    package static func match(_ expected: [GoldenFile.ExpectedAlert], _ observed: [ObservedAlert]) -> [Int?] {
        var result = [Int?](repeating: nil, count: expected.count)
        var groups: [String: (expected: [Int], observed: [Int])] = [:]
        var order: [String] = []
        func key(_ patient: String, _ rule: String) -> String { patient + "\u{0}" + rule }
        for (i, expectedAlerts) in expected.enumerated() {
            let groupKey = key(expectedAlerts.patientID, expectedAlerts.rule)
            if groups[groupKey] == nil { order.append(groupKey) }
            groups[groupKey, default: ([], [])].expected.append(i)
        }
        for (j, a) in observed.enumerated() {
            groups[key(a.patientID, a.rule)]?.observed.append(j)
        }
        for groupKey in order {
            guard let group = groups[groupKey], !group.observed.isEmpty else { continue }
            let alerts = group.observed.sorted {
                (observed[$0].raisedAt, observed[$0].alertID) < (observed[$1].raisedAt, observed[$1].alertID)
            }
            for cluster in clusters(group.expected.map { expected[$0] }, alerts.map { observed[$0].raisedAt }) {
                let expectedAlerts = cluster.expected.map { group.expected[$0] }
                let observedAlerts = cluster.observed.map { alerts[$0] }
                for (i, j) in pairs(expectedAlerts.map { expected[$0] }, observedAlerts.map { observed[$0] }) {
                    result[expectedAlerts[i]] = observedAlerts[j]
                }
            }
        }
        return result
    }

    /// Groups of expectations and alerts (indices) that could pair with each other: items whose
    /// reach (window ± bound, or the alert's time) overlaps are in one group; groups are solved apart.
    static func clusters(
        _ expected: [GoldenFile.ExpectedAlert],
        _ times: [Int64]
    ) -> [(expected: [Int], observed: [Int])] {
        var items: [(start: Int64, end: Int64, expected: Bool, index: Int)] = []
        for (i, e) in expected.enumerated() { items.append((e.from - pairingBound, e.to + pairingBound, true, i)) }
        for (j, t) in times.enumerated() { items.append((t, t, false, j)) }
        items.sort { ($0.start, $0.expected ? 0 : 1, $0.index) < ($1.start, $1.expected ? 0 : 1, $1.index) }
        var out: [(expected: [Int], observed: [Int])] = []
        var end = Int64.min
        for item in items {
            if out.isEmpty || item.start > end {
                out.append(([], []))
                end = item.end
            }
            end = max(end, item.end)
            if item.expected {
                out[out.count - 1].expected.append(item.index)
            } else {
                out[out.count - 1].observed.append(item.index)
            }
        }
        return out.filter { !$0.expected.isEmpty && !$0.observed.isEmpty }
    }

    /// The optimal pairs (expected index, observed index) of one patient and rule.
    static func pairs(_ expected: [GoldenFile.ExpectedAlert], _ observed: [ObservedAlert]) -> [(Int, Int)] {
        let size = expected.count + observed.count
        // Leaving an expectation or an alert unpaired costs the bound: pairing within the bound
        // (≤ bound) beats leaving both (2 × bound); pairing beyond it costs more than leaving both.
        let unpaired = pairingBound
        let forbidden = 2 * pairingBound + 1
        let scale = Int64(size * size + 1)
        var cost = [[Int64]](repeating: [Int64](repeating: 0, count: size), count: size)
        for i in 0..<size {
            for assigned in 0..<size {
                switch (i < expected.count, assigned < observed.count) {
                case (true, true):
                    let gap = distance(observed[assigned].raisedAt, from: expected[i].from, to: expected[i].to)
                    // Scaled so that equal distances prefer pairing in order (the i-th expectation with
                    // the i-th alert by time); the tie terms of all pairs together stay below one unit.
                    cost[i][assigned] = gap > pairingBound ? forbidden * scale : gap * scale + Int64(abs(i - assigned))
                case (true, false), (false, true): cost[i][assigned] = unpaired * scale
                case (false, false): cost[i][assigned] = 0
                }
            }
        }
        let assignment = MinimumCostAssignment.solve(cost)
        var out: [(Int, Int)] = []
        for i in 0..<expected.count where assignment[i] < observed.count {
            let assigned = assignment[i]
            if distance(observed[assigned].raisedAt, from: expected[i].from, to: expected[i].to) <= pairingBound {
                out.append((i, assigned))
            }
        }
        return out
    }
}
