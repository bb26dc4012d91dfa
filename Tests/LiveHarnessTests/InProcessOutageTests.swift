import Foundation
import InProcessSUT
import Judge
import LiveHarness
import Locking
import TestFixtures
import Testing
import Traffic
import Transports

/// A SUT that goes away mid-run and comes back, in-process: the harness keeps the request that got
/// no answer (and everything behind it) until the SUT answers again, so every reading is delivered
/// once, the alerts still come, and the delivery check says the SUT answered only after retrying.
/// (A real server killed and restarted on its port, and a broker that restarts: `IntegrationTests`.)
struct InProcessOutageTests {
    /// The reference SUT's routes, unreachable (as a refused connection) for `refusals` attempts
    /// after the `after`-th observation request has been answered.
    struct WithdrawingExchange: HTTPExchange {
        let inner: RouterExchange
        let after: Int
        let refusals: Int
        /// (observation requests answered, connection attempts refused).
        let counts = Locked((answered: 0, refused: 0))

        func send(
            _ method: String,
            _ url: String,
            body: [UInt8]?,
            headers: [String],
            timeout: Double
        ) async throws(HTTPTransportError) -> HTTPReply {
            let observation = url.hasSuffix("/api/v1/observations")
            let refuse = counts.withLock { counts in
                guard observation, counts.answered >= after, counts.refused < refusals else { return false }
                counts.refused += 1
                return true
            }
            if refuse { throw HTTPTransportError(reason: "Couldn't connect to server", url: url) }
            let reply = try await inner.send(method, url, body: body, headers: headers, timeout: timeout)
            if observation { counts.withLock { $0.answered += 1 } }
            return reply
        }
    }

    @Test func everyReadingReachesASUTThatGoesAwayAndComesBack() async throws {
        let path = InProcessRun.path("core", "fever-spike")
        var sut = try InProcessSUT(scenario: TracedScenarioLoader.load(path: path))
        sut.rateLimit = 0
        let (verdict, counts): (Verdict, (answered: Int, refused: Int)) = try await sut.test { client in
            let exchange = WithdrawingExchange(inner: RouterExchange(client), after: 30, refusals: 4)
            let verdicts = try await InProcessRun.verdicts([path], on: client) {
                $0.target.exchange = exchange
                $0.pacing.connections = 1
                $0.pacing.outageLimit = .seconds(60)
            }
            return (try #require(verdicts.first), exchange.counts.withLock { $0 })
        }
        #expect(counts.refused == 4, "the SUT was away for four attempts")
        #expect(verdict.error == nil, "\(verdict.error ?? "")")
        let delivery = try #require(verdict.checks.first { $0.kind == .delivery })
        #expect(delivery.finding == nil, "\(delivery.detail)")
        #expect(delivery.detail.hasPrefix("74 acknowledged"), "every reading of the scenario: \(delivery.detail)")
        #expect(delivery.detail.contains("answered only after retrying"), "\(delivery.detail)")
        #expect(InProcessRun.failures(verdict, latency: false) == [], "the fever alert survived the outage")
        #expect(verdict.checks.contains { $0.name.contains("temp.fever") && $0.finding == nil })
    }
}
