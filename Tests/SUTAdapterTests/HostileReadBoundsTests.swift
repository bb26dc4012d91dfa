import Foundation
import Judge
import Locking
import RunRecord
import Testing
import Transports

@testable import SUTAdapter

/// Alert lists and read-backs from a SUT that never stops answering: a cursor that cycles, pages
/// that never end, more alerts than any scenario raises, a read-back slower than its deadline.
/// Each ends at a named bound (`atBound`: the run stops unjudged, exit 3), never in an endless
/// loop or an allocation that grows with whatever the SUT sends.
@Suite struct HostileReadBoundsTests {
    static let base = "http://127.0.0.1:9"

    /// A SUT answering every GET with `answer(url, n)` (n: requests so far, from 1).
    struct ScriptedSUT: HTTPExchange {
        let answer: @Sendable (String, Int) -> String
        let requests = Locked(0)

        func send(
            _ method: String,
            _ url: String,
            body: [UInt8]?,
            headers: [String],
            timeout: Double
        ) async throws(HTTPTransportError) -> HTTPReply {
            let count = requests.withLock { count in
                count += 1
                return count
            }
            return HTTPReply(status: 200, body: Array(answer(url, count).utf8))
        }
    }

    func auth(_ sut: ScriptedSUT) -> RequestAuth { RequestAuth(headers: [], client: sut) }

    static func alert(_ id: Int) -> String {
        #"{"alertId":"a\#(id)","patientId":"p1","rule":"hr.high","severity":"high","raisedAt":"2024-11-07T00:00:00Z","evidence":["p1/hrm/\#(id)"]}"#
    }

    /// Two cursors that name each other: before, 10,000 page requests (453 s against a fast server).
    @Test func aCyclingAlertCursorIsStoppedAtTheFirstRepeat() async throws {
        var source = AlertSource.vitalsim
        source.list = JSONPointer(tokens: ["items"])
        source.paging = .cursor(JSONPointer(tokens: ["next"]), parameter: "after")
        let sut = ScriptedSUT { url, n in
            #"{"items":[\#(Self.alert(n))],"next":"\#(url.hasSuffix("after=A") ? "B" : "A")"}"#
        }
        let (read, _) = await AlertList.fetch(sut, base: Self.base, source: source, mapping: .init(), auth: auth(sut))
        guard case .failure(let problem) = read else {
            Issue.record("a cycling cursor was read to its end")
            return
        }
        #expect(problem.atBound)
        #expect(problem.text.contains("already gave as the next page"), "\(problem.text)")
        #expect(sut.requests.withLock { $0 } == 3)
    }

    /// A list of more alerts than any scenario raises is read no further (a million alerts once
    /// drove the harness past 6 GB).
    @Test func moreAlertsThanTheBoundEndTheRead() async throws {
        let pageSize = 20_000
        var source = AlertSource.vitalsim
        source.list = JSONPointer(tokens: ["items"])
        source.paging = .cursor(JSONPointer(tokens: ["next"]), parameter: "after")
        let sut = ScriptedSUT { _, n in
            let items = ((n - 1) * pageSize..<n * pageSize).map(Self.alert).joined(separator: ",")
            return #"{"items":[\#(items)],"next":"page\#(n)"}"#
        }
        let (read, _) = await AlertList.fetch(sut, base: Self.base, source: source, mapping: .init(), auth: auth(sut))
        guard case .failure(let problem) = read else {
            Issue.record("an endless alert list was read to its end")
            return
        }
        #expect(problem.atBound)
        #expect(problem.text.contains("more than \(AlertList.alertLimit) alerts"), "\(problem.text)")
        #expect(sut.requests.withLock { $0 } == AlertList.alertLimit / pageSize + 1)
    }

    func readBack(
        _ sut: ScriptedSUT,
        sent: Int = 10,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    )
        async -> Result<StoredReadBack, AlertList.Problem>
    {
        var source = StoredReadingsSource.vitalsim
        source.counts = nil
        var fetch = StoredReadBackFetch(client: sut, base: Self.base, source: source, auth: auth(sut))
        fetch.sent = ["p1": sent]
        fetch.now = now
        return await fetch.fetch(patients: [("p1", "p1")], readingID: { $0 })
    }

    static func readings(_ page: Int, count: Int) -> String {
        (0..<count).map { i in
            #"{"readingId":"p1/hrm/\#(page * count + i)","timestamp":"2024-11-07T00:00:00Z","values":{"heartRate":70},"units":{"heartRate":"/min"}}"#
        }.joined(separator: ",")
    }

    @Test func aCyclingReadBackCursorIsStopped() async {
        let sut = ScriptedSUT { url, n in
            #"{"items":[\#(Self.readings(n, count: 1))],"next":"\#(url.hasSuffix("after=A") ? "B" : "A")"}"#
        }
        guard case .failure(let problem) = await readBack(sut) else {
            Issue.record("a cycling read-back cursor was followed to its end")
            return
        }
        #expect(problem.atBound)
        #expect(problem.text.contains("the cursor cycles"), "\(problem.text)")
        #expect(sut.requests.withLock { $0 } == 3)
    }

    /// Full pages with fresh cursors for ever: stopped at twice the readings sent and 10,000 more
    /// (before, 3.7 GB and still growing at 300 s).
    @Test func aReadBackThatNeverEndsStopsAtItsReadingBound() async {
        let sut = ScriptedSUT { _, n in #"{"items":[\#(Self.readings(n, count: 1000))],"next":"c\#(n)"}"# }
        guard case .failure(let problem) = await readBack(sut, sent: 500) else {
            Issue.record("an endless read-back was read to its end")
            return
        }
        #expect(problem.atBound)
        #expect(problem.text.contains("more than 11000 stored readings for patient p1"), "\(problem.text)")
        #expect(sut.requests.withLock { $0 } == 12)
    }

    /// A read-back still going at its deadline stops, on the injected time (each page "takes" 10 s).
    @Test func aReadBackPastItsDeadlineStops() async {
        let start = ContinuousClock.now
        let sut = ScriptedSUT { _, n in #"{"items":[\#(Self.readings(n, count: 1))],"next":"c\#(n)"}"# }
        let result = await readBack(sut) { start + .seconds(10 * sut.requests.withLock { $0 }) }
        guard case .failure(let problem) = result else {
            Issue.record("a slow read-back went on past its deadline")
            return
        }
        #expect(problem.atBound)
        #expect(problem.text.contains("did not end within 300.0 seconds"), "\(problem.text)")
        #expect(sut.requests.withLock { $0 } == 30)
    }

    /// The deadline grows with the patients read back past 30,000 (10 ms each): a ward of 250,000
    /// patients read back one page after another needs more than 300 s of a healthy SUT.
    @Test func theDeadlineGrowsWithTheWard() {
        #expect(StoredReadBackFetch.deadline(patients: 1) == .seconds(300))
        #expect(StoredReadBackFetch.deadline(patients: 30_000) == .seconds(300))
        #expect(StoredReadBackFetch.deadline(patients: 250_000) == .seconds(2_500))
    }
}
