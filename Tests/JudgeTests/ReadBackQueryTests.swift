import Judge
import RunRecord
import Testing
import VitalSimCore

/// Narrowed read-backs (the InTouch PRD physician stories 8 and 9): which queries a run asks, and how an
/// answer is judged against the full read-back.
struct ReadBackQueryTests {
    /// 2024-11-30T22:00:00Z.
    static let lateNovember: Int64 = 1_733_004_000_000
    static let hour: Int64 = 3_600_000

    /// Heart rates every hour from 22:00 on 30 November for `hours`, and a glucose at 23:30.
    static func held(hours: Int64 = 6) -> [StoredReading] {
        var out = (0..<hours).map { h in
            StoredReading(id: "501/hr/\(h)", time: lateNovember + h * hour, values: [.heartRate: 70 + Double(h)])
        }
        out.append(StoredReading(id: "501/meter/1", time: lateNovember + 90 * 60_000, values: [.glucose: 100]))
        return out
    }

    @Test func aRunAcrossAMonthEndAsksEachMonthTheDayAcrossItAndEachKind() {
        let queries = ReadBackQuery.planned(for: Self.held(), kinds: nil, periods: true, byKind: true)
        #expect(
            queries.map(\.description) == [
                "by period 2024-11-01T00:00:00Z to 2024-12-01T00:00:00Z",
                "by period 2024-12-01T00:00:00Z to 2025-01-01T00:00:00Z",
                "by period 2024-11-30T12:00:00Z to 2024-12-01T12:00:00Z",
                "by period 2024-11-30T23:15:00Z to 2024-12-01T01:45:00Z",
                "by kind heart-rate",
                "by kind glucose",
            ]
        )
        let onlyGlucose = ReadBackQuery.planned(for: Self.held(), kinds: [.glucose], periods: false, byKind: true)
        #expect(onlyGlucose == [.kind(.glucose)])
        #expect(ReadBackQuery.planned(for: [], kinds: nil, periods: true, byKind: true).isEmpty)
    }

    func check(_ query: ReadBackQuery, answered: [StoredReading]) -> Check {
        var readBack = StoredReadBack()
        readBack.readings["501"] = Self.held()
        readBack.queries["501"] = [ReadBackAnswer(query: query, readings: answered)]
        let checks = StoredDataArea().storedDataChecks(StoredDataExpectations(byPatient: [:]), readBack)
        return checks.first { $0.name.contains(query.description) } ?? checks[0]
    }

    @Test func anAnswerListingWhatIsHeldThereAndNothingElsePasses() {
        let november = ReadBackQuery.period(from: 1_730_419_200_000, to: 1_733_011_200_000)
        let inNovember = Self.held().filter { $0.time < 1_733_011_200_000 }
        let made = check(november, answered: inNovember)
        #expect(made.finding == nil, "\(made.detail)")
        #expect(made.name == "stored readings of patient 501 by period 2024-11-01T00:00:00Z to 2024-12-01T00:00:00Z")
        #expect(made.detail == "3 reading(s) listed, all 3 held there among them")
    }

    @Test func aPeriodAnswerWithoutTheMonthsLastDayFails() {
        let november = ReadBackQuery.period(from: 1_730_419_200_000, to: 1_733_011_200_000)
        let made = check(november, answered: [])
        #expect(made.finding == .queryMismatch)
        #expect(made.detail.hasPrefix("3 of the 3 reading(s) the SUT holds there are not listed, first: 501/hr/0"))
    }

    @Test func aPeriodAnswerListingReadingsOutsideItFails() {
        let november = ReadBackQuery.period(from: 1_730_419_200_000, to: 1_733_011_200_000)
        let made = check(november, answered: Self.held())
        #expect(made.finding == .queryMismatch)
        #expect(
            made.detail.hasPrefix(
                "3 listed reading(s) lie outside it, first: 501/hr/3 (heart-rate at 2024-12-01T01:00:00.000Z)"
            ),
            "501/hr/2 is on the edge"
        )
    }

    @Test func aKindAnswerWithAnotherKindFailsAndReadingsOnAPeriodsEdgeMayFallEitherSide() {
        let made = check(.kind(.glucose), answered: Self.held())
        #expect(made.finding == .queryMismatch)
        #expect(made.detail.hasPrefix("6 listed reading(s) lie outside it"))
        // 501/hr/2 sits on the boundary: listed or not, the day before passes.
        let dayBefore = ReadBackQuery.period(from: 1_732_924_800_000, to: 1_733_011_200_000)
        let held = Self.held().filter { $0.time < 1_733_011_200_000 }
        #expect(check(dayBefore, answered: held).finding == nil)
        let withEdge = Self.held().filter { $0.time <= 1_733_011_200_000 }
        #expect(check(dayBefore, answered: withEdge).finding == nil)
    }

    @Test func readingsWithoutIdsAreMatchedByTimeAndValues() {
        let bare = Self.held().map { StoredReading(id: nil, time: $0.time, values: $0.values) }
        var readBack = StoredReadBack()
        readBack.readings["501"] = bare
        let glucose = bare.filter { $0.values[.glucose] != nil }
        var altered = glucose
        altered[0].values[.glucose] = 101
        for (answer, passes) in [(glucose, true), (altered, false)] {
            readBack.queries["501"] = [ReadBackAnswer(query: .kind(.glucose), readings: answer)]
            let checks = StoredDataArea().storedDataChecks(StoredDataExpectations(byPatient: [:]), readBack)
            let check = checks.first { $0.name.hasSuffix("by kind glucose") }
            #expect((check?.finding == nil) == passes, "\(check?.detail ?? "no check")")
        }
    }
}
