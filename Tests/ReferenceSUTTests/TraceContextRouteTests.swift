import Foundation
import HTTPTypes
import Hummingbird
import InProcessSUT
import Locking
import ServiceLifecycle
import Testing

/// The reference SUT continues a request's W3C trace: its answer's `traceresponse` names the same
/// trace, the SUT's own span and the caller's flags; a malformed `traceparent` is ignored.
struct TraceContextRouteTests {
    let traceresponse = HTTPField.Name("traceresponse")!

    static let reading = #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75}"#

    @Test func testTheAnswerContinuesTheCallersTrace() async throws {
        try await InProcessSUT().test { sut async throws in
            let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            let answer = try await sut.send(
                "/api/iot-heart-rate",
                method: .post,
                body: Self.reading,
                headers: [("traceparent", parent)]
            )
            #expect(answer.status == 200, "\(answer.text)")
            let response = try #require(answer.headers[traceresponse])
            let fields = response.split(separator: "-").map(String.init)
            #expect(fields.count == 4)
            #expect(fields.first == "00")
            #expect(fields.count == 4 && fields[1] == "4bf92f3577b34da6a3ce929d0e0e4736", "the caller's trace")
            #expect(fields.count == 4 && fields[2] != "00f067aa0ba902b7" && fields[2].count == 16, "the SUT's span")
            #expect(fields.last == "01")
            for malformed in ["00-00000000000000000000000000000000-00f067aa0ba902b7-01", "garbage"] {
                let ignored = try await sut.send(
                    "/api/iot-heart-rate",
                    method: .post,
                    body: Self.reading,
                    headers: [("traceparent", malformed)]
                )
                #expect(ignored.status == 200)
                #expect(ignored.headers[traceresponse] == nil, "\(malformed)")
            }
            let untraced = try await sut.post("/api/iot-heart-rate", Self.reading)
            #expect(untraced.headers[traceresponse] == nil)
        }
    }
    /// The alert a traced reading raises reaches the webhook in the same trace, as a span of its own.
    @Test func testTheWebhookDeliveryOfAnAlertStaysInItsReadingsTrace() async throws {
        let received = Locked<[String?]>([])
        let router = Router()
        router.post("alerts") { request, _ -> HTTPResponse.Status in
            received.withLock { $0.append(request.headers[HTTPField.Name("traceparent")!]) }
            return .noContent
        }
        let (bound, announce) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                announce.yield(channel.localAddress?.port ?? 0)
                announce.finish()
            }
        )
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: app.logger))
        Task { try? await group.run() }
        var port = 0
        for await p in bound { port = p }
        #expect(port > 0)
        var sut = try InProcessSUT()
        sut.webhook = "http://127.0.0.1:\(port)/alerts"
        let crisis =
            #"{"readingId": "c1", "patientId": "507", "deviceId": "cuff", "kind": "blood-pressure", "systolic": 185, "diastolic": 95, "unit": "mm[Hg]", "timestamp": "2024-11-07T08:00:00Z"}"#
        let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        try await sut.test { sut async throws in
            let answer = try await sut.send(
                "/api/v1/observations",
                method: .post,
                body: crisis,
                headers: [("traceparent", parent)]
            )
            #expect(answer.status == 200)
            for _ in 0..<100 where received.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(20)) }
        }
        await group.triggerGracefulShutdown()
        let delivered = try #require(received.withLock { $0.first } ?? nil)
        let fields = delivered.split(separator: "-").map(String.init)
        #expect(fields.count == 4 && fields[1] == "4bf92f3577b34da6a3ce929d0e0e4736", "\(delivered)")
        #expect(fields.count == 4 && fields[2] != "00f067aa0ba902b7")
    }
}
