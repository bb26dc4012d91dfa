import RunRecord
import VitalSimCore

/// What the SUT holds after the run, read back through the profile's `stored-readings:`: for each
/// patient, every acknowledged reading kept (`lost-after-ack`), with the value, unit and device time
/// it was sent with (`altered`), each held once (`stored-twice`), the SUT's counts per day and month
/// (`count-mismatch`), and each narrowed read-back (by period, by kind) answering what the full one
/// holds there (`query-mismatch`). Observed by its probe after the run, before the reset.
package struct StoredDataArea: ConformanceArea {
    package var name: String { "stored-data" }
    package var title: String { "stored data" }
    package var kinds: Set<CheckKind> { [.storedData] }
    package var observedBy: ObservationSource { .probe }
    package var requirementIDs: [String] {
        [
            "store.kept", "store.unaltered", "store.once", "query.by-day", "query.by-month", "query.by-period",
            "query.by-kind",
        ]
    }

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] {
        guard let expected = run.stored, let readBack = run.observation.areas[StoredReadBack.self] else { return [] }
        return storedDataChecks(expected, readBack)
    }

    /// Each shard judged its own patients: their checks, in patient order.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        parts.flatMap { $0.checks(of: self) }.stablySorted { $0.patient }
    }

    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] {
        let name = check.name
        if name.hasSuffix(" kept") { return ["store.kept"] }
        if name.hasSuffix(" unaltered") { return ["store.unaltered"] }
        if name.hasSuffix(" held once") { return ["store.once"] }
        if name.hasSuffix(" per day and month") { return ["query.by-day", "query.by-month"] }
        if name.contains(" by period ") { return ["query.by-period"] }
        if name.contains(" by kind ") { return ["query.by-kind"] }
        return ["store.kept"]
    }

    /// A run whose profile reads back stored readings: each patient's checks, and the narrowed
    /// read-backs of the first patients with readings (``ReadBackQuery/patientLimit``).
    package func exercised(by plan: ExercisePlan) -> [Check] {
        var checks: [Check] = []
        for patient in plan.scenario.patients.map(\.id) {
            for name in ["kept", "unaltered", "held once"] {
                checks.append(plan.check(.storedData, "stored readings of patient \(patient) \(name)"))
            }
            checks.append(plan.check(.storedData, "stored reading counts of patient \(patient) per day and month"))
        }
        let senders = Set(plan.traffic.validKinds.keys.map { String($0.prefix { $0 != "/" }) })
        for patient in plan.scenario.patients.prefix(ReadBackQuery.patientLimit).map(\.id).filter(senders.contains) {
            checks.append(
                plan.check(
                    .storedData,
                    "stored readings of patient \(patient) by period (each month, each month boundary)"
                )
            )
            checks.append(plan.check(.storedData, "stored readings of patient \(patient) by kind (each kind held)"))
        }
        return checks
    }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation {
        sources.patient(mentionedIn: check.name)
    }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        let patients = Set(checks.map { $0.patient }).count
        return AreaRow(self, checks, about: "\(patients) patient(s) read back")
    }

    /// How many ids a stored-data check names in its detail.
    let namedReadings = 3

    /// The stored-data checks of each patient: every acknowledged reading kept (`lost-after-ack`),
    /// each with the value, unit and device time it was sent with (`altered`), each held once
    /// (`stored-twice`), and the SUT's counts per UTC day and month equal to what it acknowledged
    /// (`count-mismatch`), and each narrowed read-back (by period, by kind) answering what the full
    /// one holds there (`query-mismatch`).
    package func storedDataChecks(_ expected: StoredDataExpectations, _ readBack: StoredReadBack) -> [Check] {
        let patients = Set(expected.byPatient.keys).union(readBack.readings.keys).sorted()
        var checks: [Check] = []
        for p in patients {
            let all = expected.byPatient[p] ?? []
            let entries = readBack.kinds.map { kinds in all.filter { kinds.contains($0.kind) } } ?? all
            let judged = { (s: StoredReading) -> Bool in
                if let id = s.id, expected.corrupted.contains(id) { return false }
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
            checks.append(storedOnceCheck(p, entries, stored, pairs, plainCreates: expected.plainCreates))
            for answer in readBack.queries[p] ?? [] {
                checks.append(queryCheck(p, answer.query, held: stored, answered: answer.readings.filter(judged)))
            }
        }
        return checks
    }

    /// Every acknowledged reading of the patient is held by the SUT.
    func keptCheck(
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
                "; \(extra.count) stored reading(s) match none the SUT acknowledged (first: \(stored[first].id ?? "without id") at \(Verdict.iso(stored[first].time)))"
        }
        guard !lost.isEmpty else {
            let detail = "all \(entries.count) acknowledged reading(s) read back" + note
            return Check(kind: .storedData, name: name, rule: nil, finding: nil, detail: detail)
        }
        let named = lost.prefix(namedReadings).map { "\($0.id) (\($0.kind.rawValue) at \(Verdict.iso($0.time)))" }
            .joined(
                separator: ", "
            )
        let detail =
            "\(lost.count) of \(entries.count) acknowledged reading(s) are not held by the SUT when read back, first: \(named)"
            + (lost.count > namedReadings ? ", …" : "") + note
        return Check(kind: .storedData, name: name, rule: nil, finding: .lostAfterAck, detail: detail)
    }

    /// Each acknowledged reading the SUT holds has the value, unit and device time it was sent with.
    func unalteredCheck(
        _ p: String,
        _ entries: [StoredDataExpectations.Entry],
        _ stored: [StoredReading],
        _ pairs: [Int?]
    ) -> Check {
        let name = "stored readings of patient \(p) unaltered"
        var altered: [String] = []
        var count = 0
        var compared = 0
        for (i, paired) in pairs.enumerated() {
            guard let paired else { continue }
            compared += 1
            let differences = StoredValueRules.differences(entries[i], stored[paired])
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
    /// A reading among `plainCreates` (sent as plain FHIR creates) held twice is not judged: FHIR has
    /// every create make a resource. The check says how many.
    func storedOnceCheck(
        _ p: String,
        _ entries: [StoredDataExpectations.Entry],
        _ stored: [StoredReading],
        _ pairs: [Int?],
        plainCreates: Set<String> = []
    ) -> Check {
        let name = "stored readings of patient \(p) held once"
        var pairedBy: [String: Int] = [:]
        var byKind: [Signal: [Int]] = [:]
        for (i, paired) in pairs.enumerated() {
            guard let paired else { continue }
            if let id = stored[paired].id { pairedBy[id] = i }
            if let kind = entries[i].values.primarySignal { byKind[kind, default: []].append(i) }
        }
        for kind in byKind.keys { byKind[kind]?.sort { entries[$0].time < entries[$1].time } }
        let used = Set(pairs.compactMap { $0 })
        var twice: [String] = []
        for (paired, s) in stored.enumerated() where !used.contains(paired) {
            if let id = s.id, let i = pairedBy[id] {
                twice.append(entries[i].id)
                continue
            }
            // Under an id of the SUT's own: the kind, device time and values of an acknowledged one.
            guard let kind = s.values.primarySignal, let list = byKind[kind] else { continue }
            var position = firstIndex(in: list) { entries[$0].time >= s.time - StoredValueRules.timeTolerance }
            while position < list.count, entries[list[position]].time <= s.time + StoredValueRules.timeTolerance {
                if StoredValueRules.differences(entries[list[position]], s).isEmpty {
                    twice.append(entries[list[position]].id)
                    break
                }
                position += 1
            }
        }
        let created = twice.filter(plainCreates.contains)
        twice.removeAll(where: plainCreates.contains)
        guard !twice.isEmpty else {
            var detail = "no acknowledged reading is held more than once"
            if !created.isEmpty {
                detail =
                    "\(created.count) reading(s) sent as plain FHIR creates (writes: create) are held more than once, as FHIR has a create sent again make a new resource: not judged; no other is"
            }
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
    func firstIndex(in list: [Int], where isAtOrAfter: (Int) -> Bool) -> Int {
        var low = 0
        var high = list.count
        while low < high {
            let mid = (low + high) / 2
            if isAtOrAfter(list[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// The SUT's counts per UTC day and month equal the acknowledged readings' (by device time).
    func countsCheck(
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
            let day = String(Verdict.iso(e.time).prefix(10))
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

    /// A narrowed read-back (by period or kind) lists every reading the SUT's full read-back holds
    /// there and none outside it. The full read-back is the reference: a reading lost from both is
    /// the kept check's finding, not this one's. Readings within the time tolerance of a period's
    /// bounds may fall either side.
    func queryCheck(
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
            if let count = listed[key], count > 0 { listed[key] = count - 1 } else { missing.append(reading) }
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
    func named(_ readings: [StoredReading]) -> String {
        let kind = { (r: StoredReading) in r.values.readingKind?.rawValue ?? "reading" }
        return readings.prefix(namedReadings).map { "\($0.id ?? kind($0)) (\(kind($0)) at \(Verdict.iso($0.time)))" }
            .joined(separator: ", ") + (readings.count > namedReadings ? ", …" : "")
    }
}
