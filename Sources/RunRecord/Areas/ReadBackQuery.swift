import VitalSimCore

/// A narrowed read-back of one patient's stored readings (the InTouch PRD, physician stories 8 and 9): the
/// readings of a device-time period (`from` inclusive, `to` exclusive, Unix ms) or of one kind.
package enum ReadBackQuery: Sendable, Hashable, CustomStringConvertible {
    case period(from: Int64, to: Int64)
    case kind(VitalKind)

    /// Patients whose narrowed read-backs a run asks for, at most: the first of the scenario, in its
    /// order (a load ward's thousands would multiply the requests for no new evidence).
    package static let patientLimit = 10
    /// Calendar months asked for one patient, at most (the first ones of the readings' span).
    package static let monthLimit = 12

    package var description: String {
        switch self {
        case .period(let from, let to): "by period \(Self.iso(from)) to \(Self.iso(to))"
        case .kind(let kind): "by kind \(kind.rawValue)"
        }
    }

    /// The queries that test a SUT's narrowing on what it holds: each calendar month the readings
    /// touch (UTC), a day straddling each month boundary they cross (noon to noon), and the middle
    /// half of their span (a SUT that ignores the period then lists too much); and each kind they
    /// hold, among `kinds` when given. Empty without readings.
    package static func planned(
        for readings: [StoredReading],
        kinds: Set<VitalKind>?,
        periods: Bool,
        byKind: Bool
    ) -> [ReadBackQuery] {
        guard let first = readings.map(\.time).min(), let last = readings.map(\.time).max() else { return [] }
        var out: [ReadBackQuery] = []
        if periods {
            let months = Self.monthStarts(from: first, through: last).prefix(monthLimit + 1)
            for (start, end) in zip(months, months.dropFirst()) { out.append(.period(from: start, to: end)) }
            let halfDay: Int64 = 43_200_000
            for boundary in months.dropFirst().dropLast() {
                out.append(.period(from: boundary - halfDay, to: boundary + halfDay))
            }
            let quarter = (last - first) / 4
            let from = (first + quarter) / 1000 * 1000
            let to = (last - quarter) / 1000 * 1000
            if to - from >= 2000 { out.append(.period(from: from, to: to)) }
        }
        if byKind {
            let held = Set(readings.compactMap { $0.values.readingKind })
            for kind in VitalKind.allCases where held.contains(kind) && kinds.map({ $0.contains(kind) }) ?? true {
                out.append(.kind(kind))
            }
        }
        return out
    }

    /// The starts (Unix ms) of the UTC months from the one holding `first` to the one after `last`.
    static func monthStarts(from first: Int64, through last: Int64) -> [Int64] {
        let civil = CivilTime(unixMilliseconds: first)
        var (year, month) = (civil.year, civil.month)
        var starts: [Int64] = []
        while true {
            let start = CivilTime(year: year, month: month, day: 1).unixMilliseconds
            starts.append(start)
            if start > last { return starts }
            (year, month) = month == 12 ? (year + 1, 1) : (year, month + 1)
        }
    }

    /// A bound as a query names it: RFC 3339 UTC, whole seconds.
    package static func iso(_ ms: Int64) -> String { CivilTime(unixMilliseconds: ms).iso8601() }
}

/// What the SUT answered to one narrowed read-back.
package struct ReadBackAnswer: Sendable, Equatable {
    package var query: ReadBackQuery
    package var readings: [StoredReading]

    package init(query: ReadBackQuery, readings: [StoredReading]) {
        self.query = query
        self.readings = readings
    }
}
