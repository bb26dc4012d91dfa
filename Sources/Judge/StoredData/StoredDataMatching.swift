import RunRecord
import VitalSimCore

/// Pairs the acknowledged readings of one patient with the readings the SUT holds: by reading id,
/// and a reading whose payload carried no id (or a SUT that exposes none) by its kind and the nearest
/// device time within ``StoredValueRules/timeTolerance``, in time order (preferring, within that
/// window, a reading with the values sent).
package enum StoredDataMatching {
    /// For each entry, the index of its stored reading, nil when the SUT holds none.
    package static func match(_ entries: [StoredDataExpectations.Entry], _ stored: [StoredReading]) -> [Int?] {
        var pairs = [Int?](repeating: nil, count: entries.count)
        var index: [String: Int] = [:]
        for (i, e) in entries.enumerated() where index[e.id] == nil { index[e.id] = i }
        var used: Set<Int> = []
        for (j, s) in stored.enumerated() {
            guard let id = s.id, let i = index[id], pairs[i] == nil else { continue }
            pairs[i] = j
            used.insert(j)
        }
        // Readings the SUT named itself, or all of them when it shows no ids: by kind and time.
        let anonymous = stored.allSatisfy { $0.id == nil }
        var open: [Signal: [Int]] = [:]
        for (j, s) in stored.enumerated() where !used.contains(j) {
            if let k = s.values.primarySignal { open[k, default: []].append(j) }
        }
        var waiting: [Signal: [Int]] = [:]
        for (i, e) in entries.enumerated() where pairs[i] == nil && (e.selfNamed || anonymous) {
            if let k = e.values.primarySignal { waiting[k, default: []].append(i) }
        }
        for (kind, list) in waiting {
            let candidates = (open[kind] ?? []).sorted { stored[$0].time < stored[$1].time }
            var start = 0
            var taken: Set<Int> = []
            for i in list.sorted(by: { entries[$0].time < entries[$1].time }) {
                let t = entries[i].time
                while start < candidates.count, stored[candidates[start]].time < t - StoredValueRules.timeTolerance {
                    start += 1
                }
                // Within the window, the first with the values sent, else the first: two devices of a
                // kind reading at the same second are told apart by their values.
                var window: [Int] = []
                var k = start
                while k < candidates.count, stored[candidates[k]].time <= t + StoredValueRules.timeTolerance {
                    if !taken.contains(k) { window.append(k) }
                    k += 1
                }
                guard
                    let chosen = window.first(where: {
                        StoredValueRules.differences(entries[i], stored[candidates[$0]]).isEmpty
                    })
                        ?? window.first
                else { continue }
                taken.insert(chosen)
                pairs[i] = candidates[chosen]
            }
        }
        return pairs
    }
}
