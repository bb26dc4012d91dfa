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
        for (paired, e) in entries.enumerated() where index[e.id] == nil { index[e.id] = paired }
        var used: Set<Int> = []
        for (j, s) in stored.enumerated() {
            guard let id = s.id, let paired = index[id], pairs[paired] == nil else { continue }
            pairs[paired] = j
            used.insert(j)
        }
        // Readings the SUT named itself, or all of them when it shows no ids: by kind and time.
        let anonymous = stored.allSatisfy { $0.id == nil }
        var open: [Signal: [Int]] = [:]
        for (j, s) in stored.enumerated() where !used.contains(j) {
            if let signal = s.values.primarySignal { open[signal, default: []].append(j) }
        }
        var waiting: [Signal: [Int]] = [:]
        for (paired, e) in entries.enumerated() where pairs[paired] == nil && (e.selfNamed || anonymous) {
            if let signal = e.values.primarySignal { waiting[signal, default: []].append(paired) }
        }
        for (kind, list) in waiting {
            let candidates = (open[kind] ?? []).sorted { stored[$0].time < stored[$1].time }
            var start = 0
            var taken: Set<Int> = []
            for paired in list.sorted(by: { entries[$0].time < entries[$1].time }) {
                let time = entries[paired].time
                while start < candidates.count, stored[candidates[start]].time < time - StoredValueRules.timeTolerance {
                    start += 1
                }
                // Within the window, the first with the values sent, else the first: two devices of a
                // kind reading at the same second are told apart by their values.
                var window: [Int] = []
                var signal = start
                while signal < candidates.count,
                    stored[candidates[signal]].time <= time + StoredValueRules.timeTolerance
                {
                    if !taken.contains(signal) { window.append(signal) }
                    signal += 1
                }
                guard
                    let chosen = window.first(where: {
                        StoredValueRules.differences(entries[paired], stored[candidates[$0]]).isEmpty
                    })
                        ?? window.first
                else { continue }
                taken.insert(chosen)
                pairs[paired] = candidates[chosen]
            }
        }
        return pairs
    }
}
