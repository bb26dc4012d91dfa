import Foundation
import InProcessSUT
import Judge
import LiveHarness
import Locking
import RunRecord
import SUTAdapter
import TestFixtures
import Testing
import Traffic
import Transports

/// A run against a SUT that answers what no SUT should, in-process: the reference SUT's routes
/// with one answer replaced. The run ends unjudged (exit 3) naming the bound the SUT passed, never
/// with clinical or latency findings, an endless wait or memory that grows with what the SUT sends.
struct InProcessHostileSUTTests {
    /// The reference SUT's routes, with GETs of the alert list answered by `alerts` instead.
    struct HostileAlertList: HTTPExchange {
        let inner: RouterExchange
        /// The answer to the n-th read (from 1).
        let alerts: @Sendable (Int) -> [UInt8]
        let reads = Locked(0)

        func send(
            _ method: String,
            _ url: String,
            body: [UInt8]?,
            headers: [String],
            timeout: Double
        ) async throws(HTTPTransportError) -> HTTPReply {
            guard method == "GET", url.hasPrefix(RouterExchange.base + "/api/v1/alerts") else {
                return try await inner.send(method, url, body: body, headers: headers, timeout: timeout)
            }
            let count = reads.withLock { count in
                count += 1
                return count
            }
            return HTTPReply(status: 200, body: alerts(count))
        }
    }

    /// A list of more alerts than any scenario raises (a million once took the harness past 6 GB),
    /// before the run or during it: read no further, and the scenario ends unjudged naming the
    /// bound after that read.
    @Test(arguments: [1, 2]) func anAlertListPastTheBoundEndsTheRunUnjudged(from firstFlood: Int) async throws {
        let count = AlertList.alertLimit + 1
        let list = Array(
            ("["
                + (0..<count).map { i in
                    #"{"alertId":"x\#(i)","patientId":"508","rule":"temp.fever","severity":"medium","raisedAt":"2024-11-07T11:00:00.000Z","evidence":[]}"#
                }.joined(separator: ",") + "]").utf8
        )
        let path = InProcessRun.path("core", "fever-spike")
        let sut = try InProcessSUT(scenario: TracedScenarioLoader.load(path: path))
        let (verdict, reads) = try await sut.test { client in
            let exchange = HostileAlertList(inner: RouterExchange(client)) { $0 < firstFlood ? Array("[]".utf8) : list }
            let verdicts = try await InProcessRun.verdicts([path], on: client) { $0.target.exchange = exchange }
            return (try #require(verdicts.first), exchange.reads.withLock { $0 })
        }
        let error = try #require(verdict.error, "a flooded alert list must not be judged")
        #expect(error.contains("a bound of the harness was reached"), "\(error)")
        // Whichever bound comes first: 100,001 alerts in the reference shape pass the JSON value
        // budget before the alert count.
        #expect(
            error.contains("more than \(AlertList.alertLimit) alerts")
                || error.contains("JSON of more than \(SUTJSON.valueBudget) values"),
            "\(error)"
        )
        #expect(!verdict.checks.contains { $0.kind == .budget && !$0.passed }, "no latency finding")
        // Found by the read before the run (of alerts left by earlier runs): nothing was sent; found
        // by the first poll: the run stopped polling there (the wait at the end of the run may have
        // begun one read of its own alongside that poll).
        #expect(firstFlood == 1 ? reads == 1 : (2...3).contains(reads), "\(reads) reads")
    }

    /// A push channel delivering faster than the bounds is stopped, its problem named.
    @Test func aPushFloodIsStoppedAtItsBounds() async {
        let flood = Locked(PushFlood(channel: "the SSE stream S"))
        let (stream, continuation) = PushFlood.stream()
        let alert = ObservedAlert(
            alertID: "a",
            patientID: "p",
            rule: "r",
            severity: "high",
            raisedAt: 0,
            evidence: []
        )
        var passed = 0
        while PushFlood.pass(alert, to: continuation, flood) { passed += 1 }
        // Within one second: the rate bound comes before the buffer's.
        #expect(passed == PushFlood.perSecond)
        let problem = flood.withLock { $0.problem } ?? ""
        #expect(problem.contains("more than \(PushFlood.perSecond) messages within one second"), "\(problem)")
        #expect(!PushFlood.pass(alert, to: continuation, flood), "nothing more once stopped")
        continuation.finish()
        var buffered = 0
        for await _ in stream { buffered += 1 }
        #expect(buffered == PushFlood.perSecond)
    }
}
