import Foundation
import Locking
import Testing

@testable import Transports

/// The SSE client's parser (WHATWG event-stream) on bytes as a server sends them, split anywhere,
/// and its bounds: a line or an event past 1 MiB stops the stream rather than growing without end.
@Suite struct SSEClientBoundsTests {
    func feed(_ client: SSEClient, _ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { client.received($0) }
    }

    func events(_ client: SSEClient) async -> [SSEClient.Event] {
        client.stop()
        client.continuation.finish()
        var out: [SSEClient.Event] = []
        for await e in client.events { out.append(e) }
        return out
    }

    @Test func eventsSplitAcrossChunksAreParsedOnce() async {
        let client = SSEClient(url: "http://127.0.0.1:9/alerts/stream")
        for chunk in [
            "id: 1\r\nda", "ta: {\"a\":1}\r\n", "\r\n: comment\n", "event: alert\ndata: x\ndata: y\n\nid: 2\n",
        ] {
            feed(client, chunk)
        }
        #expect(client.boundReached == nil)
        let got = await events(client)
        #expect(got == [.init(id: "1", event: nil, data: #"{"a":1}"#), .init(id: "1", event: "alert", data: "x\ny")])
    }

    @Test func aLineWithoutEndIsStoppedAtTheBound() async {
        let client = SSEClient(url: "http://127.0.0.1:9/alerts/stream")
        let chunk = "data: " + String(repeating: "x", count: 64 << 10)
        for _ in 0..<17 { feed(client, chunk) }
        let problem = client.boundReached ?? ""
        #expect(problem.contains("a line longer than 1 MiB"), "\(problem)")
        #expect(client.state.withLock { $0.buffer.isEmpty && $0.stopped })
        feed(client, "\n\n")
        #expect(await events(client).isEmpty)
    }

    @Test func anEventWithoutEndIsStoppedAtTheBound() async {
        let client = SSEClient(url: "http://127.0.0.1:9/alerts/stream")
        let line = "data: " + String(repeating: "x", count: 1000) + "\n"
        for _ in 0..<1100 { feed(client, line) }
        let problem = client.boundReached ?? ""
        #expect(problem.contains("an event larger than 1 MiB"), "\(problem)")
        #expect(client.state.withLock { $0.data.isEmpty })
    }
}
