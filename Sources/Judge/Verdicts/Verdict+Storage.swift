import RunRecord
import VitalSimCore

extension Verdict {
    /// How many ids a stored-data check names in its detail.
    static let namedReadings = 3

    /// The stored-data checks of each patient: every acknowledged reading kept (`lost-after-ack`),
    /// each with the value, unit and device time it was sent with (`altered`), each held once
    /// (`stored-twice`), and the SUT's counts per UTC day and month equal to what it acknowledged
    /// (`count-mismatch`), and each narrowed read-back (by period, by kind) answering what the full
    /// one holds there (`query-mismatch`).
    package static func storedDataChecks(_ expected: StoredDataExpectations, _ readBack: StoredReadBack) -> [Check] {
        let patients = Set(expected.byPatient.keys).union(readBack.readings.keys).sorted()
        var checks: [Check] = []
        for p in patients {
            let all = expected.byPatient[p] ?? []
            let entries = readBack.kinds.map { kinds in all.filter { kinds.contains($0.kind) } } ?? all
            let judged = { (s: StoredReading) -> Bool in
                let linked = s.id.flatMap(EvidenceCatalog.device(of:)).map(expected.linkedDevices.contains) ?? false
                let listed =
                    readBack.kinds.map { kinds in s.values.readingKind.map(kinds.contains) ?? true } ?? true
                return !linked && listed
            }
            let stored = (readBack.readings[p] ?? []).filter(judged)
            guard !all.isEmpty || !stored.isEmpty else { continue }
            let pairs = StoredDataMatching.match(entries, stored)
            checks.append(keptCheck(p, entries, stored, pairs))
            checks.append(unalteredCheck(p, entries, stored, pairs))
            if let counts = readBack.counts {
                checks.append(countsCheck(p, all, counts[p] ?? [:], linked: !expected.linkedDevices.isEmpty))
            }
            checks.append(storedOnceCheck(p, entries, stored, pairs))
            for answer in readBack.queries[p] ?? [] {
                checks.append(queryCheck(p, answer.query, held: stored, answered: answer.readings.filter(judged)))
            }
        }
        return checks
    }

    /// Every acknowledged reading of the patient is held by the SUT.
    static func keptCheck(
        _ p: String,
        _ entries: [StoredDataExpectations.Entry],
        _ stored: [StoredReading],
        _ pairs: [Int?]
    ) -> Check {
        let name = "stored readings of patient \(p) kept"
        let lost = entries.indices.filter { pairs[$0] == nil }.map { entries[$0] }
        let used = Set(pairs.compactMap { $0 })
        let extra = stored.indices.filter { !used.contains($0) }
        var note = ""
        if let first = extra.first {
            note =
                "; \(extra.count) stored reading(s) match none the SUT acknowledged (first: \(stored[first].id ?? "without id") at \(iso(stored[first].time)))"
        }
        guard !lost.isEmpty else {
            let detail = "all \(entries.count) acknowledged reading(s) read back" + note
            return Check(kind: .storedData, name: name, rule: nil, finding: nil, detail: detail)
        }
        let named = lost.prefix(namedReadings).map { "\($0.id) (\($0.kind.rawValue) at \(iso($0.time)))" }.joined(
            separator: ", "
        )
        let detail =
            "\(lost.count) of \(entries.count) acknowledged reading(s) are not held by the SUT when read back, first: \(named)"
            + (lost.count > namedReadings ? ", …" : "") + note
        return Check(kind: .storedData, name: name, rule: nil, finding: .lostAfterAck, detail: detail)
    }

    /// Each acknowledged reading the SUT holds has the value, unit and device time it was sent with.
    static func unalteredCheck(
        _ p: String,
        _ entries: [StoredDataExpectations.Entry],
        _ stored: [StoredReading],
        _ pairs: [Int?]
    ) -> Check {
        let name = "stored readings of patient \(p) unaltered"
        var altered: [String] = []
        var count = 0
        var compared = 0
        for (i, j) in pairs.enumerated() {
            guard let j else { continue }
            compared += 1
            let differences = StoredValueRules.differences(entries[i], stored[j])
            guard !differences.isEmpty else { continue }
            count += 1
            if altered.count < namedReadings {
                altered.append("\(entries[i].id): " + differences.joined(separator: ", "))
            }
        }
        guard count > 0 else {
            let detail = "\(compared) reading(s) read back with the value, unit and device time they were sent with"
            return Check(kind: .storedData, name: name, rule: nil, finding: nil, detail: detail)
        }
        let detail =
            "\(count) of \(compared) reading(s) read back differ from what was sent, first: "
            + altered.joined(separator: "; ")
            + (count > namedReadings ? "; …" : "")
        return Check(kind: .storedData, name: name, rule: nil, finding: .altered, detail: detail)
    }

    /// Each acknowledged reading is held once: no other stored reading carries its id, or (under an
    /// id of the SUT's own) its kind, device time and values. A retry the SUT stored again is
    /// `stored-twice`; other readings it holds that match nothing sent stay a note of the kept check.
    static func storedOnceCheck(
        _ p: String,
        _ entries: [StoredDataExpectations.Entry],
        _ stored: [StoredReading],
        _ pairs: [Int?]
    ) -> Check {
        let name = "stored readings of patient \(p) held once"
        var pairedBy: [String: Int] = [:]
        var byKind: [Signal: [Int]] = [:]
        for (i, j) in pairs.enumerated() {
            guard let j else { continue }
            if let id = stored[j].id { pairedBy[id] = i }
            if let kind = entries[i].values.primarySignal { byKind[kind, default: []].append(i) }
        }
        for kind in byKind.keys { byKind[kind]?.sort { entries[$0].time < entries[$1].time } }
        let used = Set(pairs.compactMap { $0 })
        var twice: [String] = []
        for (j, s) in stored.enumerated() where !used.contains(j) {
            if let id = s.id, let i = pairedBy[id] {
                twice.append(entries[i].id)
                continue
            }
            // Under an id of the SUT's own: the kind, device time and values of an acknowledged one.
            guard let kind = s.values.primarySignal, let list = byKind[kind] else { continue }
            var k = firstIndex(in: list) { entries[$0].time >= s.time - StoredValueRules.timeTolerance }
            while k < list.count, entries[list[k]].time <= s.time + StoredValueRules.timeTolerance {
                if StoredValueRules.differences(entries[list[k]], s).isEmpty {
                    twice.append(entries[list[k]].id)
                    break
                }
                k += 1
            }
        }
        guard !twice.isEmpty else {
            let detail = "no acknowledged reading is held more than once"
            return Check(kind: .storedData, name: name, rule: nil, finding: nil, detail: detail)
        }
        let named = twice.prefix(namedReadings).joined(separator: ", ")
        let detail =
            "\(twice.count) acknowledged reading(s) are held more than once (a retry stored again; at-least-once delivery needs the SUT to keep each reading once), first: \(named)"
            + (twice.count > namedReadings ? ", …" : "")
        return Check(kind: .storedData, name: name, rule: nil, finding: .storedTwice, detail: detail)
    }

    /// The first index of `list` whose element satisfies `isAtOrAfter` (false for a prefix, true for
    /// the rest): a binary search.
    static func firstIndex(in list: [Int], where isAtOrAfter: (Int) -> Bool) -> Int {
        var low = 0
        var high = list.count
        while low < high {
            let mid = (low + high) / 2
            if isAtOrAfter(list[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// The SUT's counts per UTC day and month equal the acknowledged readings' (by device time).
    static func countsCheck(
        _ p: String,
        _ entries: [StoredDataExpectations.Entry],
        _ counted: [String: Int],
        linked: Bool
    ) -> Check {
        let name = "stored reading counts of patient \(p) per day and month"
        if linked {
            let detail =
                "not checked: readings carried over a BLE link have no acknowledgement to count, and the SUT counts what its gateway stored of them"
            return Check(kind: .storedData, name: name, rule: nil, finding: nil, detail: detail, skipped: true)
        }
        var sent: [String: Int] = [:]
        for e in entries {
            let day = String(iso(e.time).prefix(10))
            sent[day, default: 0] += 1
            sent[String(day.prefix(7)), default: 0] += 1
        }
        let periods = Set(sent.keys).union(counted.keys).sorted()
        let wrong = periods.filter { sent[$0, default: 0] != counted[$0, default: 0] }
        guard !wrong.isEmpty else {
            let days = periods.filter { $0.count == 10 }.count
            let detail = "\(entries.count) reading(s) over \(days) day(s), counted alike per day and month"
            return Check(kind: .storedData, name: name, rule: nil, finding: nil, detail: detail)
        }
        let named = wrong.prefix(namedReadings).map {
            "\($0): the SUT counts \(counted[$0, default: 0]), \(sent[$0, default: 0]) acknowledged"
        }
        let detail =
            "\(wrong.count) period(s) counted otherwise: " + named.joined(separator: "; ")
            + (wrong.count > namedReadings ? "; …" : "")
        return Check(kind: .storedData, name: name, rule: nil, finding: .countMismatch, detail: detail)
    }
}
