import Foundation
import Transports
import XCTest

/// A `GET` whose kept-alive connection the server ends before answering goes out again on a new
/// connection. The case that made it needed: libcurl 7.88 resets every finished HTTP/2 stream, and
/// the reference SUT's swift-nio-http2 closes a connection with `GOAWAY` after 200 resets in 30 s,
/// failing the request in flight ("Error in the HTTP2 framing layer") — which read-backs of stored
/// readings met at random in `--http2` runs.
final class HTTPMultiClientResendTests: XCTestCase {
    func testGetsSurviveTheServerEndingAnHTTP2Connection() async throws {
        let dir = TestSupport.temporaryDirectory("multi-resend")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sut = try SUTProcess(
            ["--self-signed", "--http2", "--database", dir + "/r.sqlite", "--rate-limit", "0"],
            directory: dir
        )
        defer { _ = sut.stop() }
        let client = HTTPMultiClient(maxConnections: 1, caFile: sut.caFile, http2: true)
        defer { client.close() }
        // Past two of the server's limits on one connection: requests 202 and 404 met a GOAWAY.
        var outcomes: [String: Int] = [:]
        for _ in 0..<450 {
            do {
                let reply = try await client.send("GET", sut.base + "/healthz", body: nil)
                outcomes["HTTP/\(reply.httpVersion) \(reply.status)", default: 0] += 1
            } catch {
                outcomes[error.reason, default: 0] += 1
            }
        }
        XCTAssertEqual(outcomes, ["HTTP/2 200": 450], "every GET answered over HTTP/2")
    }
}
