import Clocks
import Foundation
import Judge
import LiveHarness
import Locking
import RunRecord
import Traffic
import Transports
import XCTest

/// MQTT publishing on a test clock through a session in memory (the broker and the SUT behind it):
/// pipelined messages acknowledged, a refused publish retried with backoff, and the SUT's verdicts
/// (`errors/{patient}`, `acks/{patient}`) applied to the messages they name.
final class VirtualClockMQTTTests: XCTestCase {
    /// A broker with the SUT behind it, in memory: publish attempts whose ordinal (from 0) is in
    /// `refused` are refused (reason 0x87, not authorized); every other message is acknowledged at
    /// once and the SUT publishes its verdict: a refusal naming `heartRate` on `errors/{patient}` for
    /// a reading in `invalid`, else a confirmation on `acks/{patient}`.
    final class InMemoryMQTT: MQTTSession {
        let messages: AsyncStream<MQTTMessage>
        let continuation: AsyncStream<MQTTMessage>.Continuation
        let refused: Set<Int>
        let invalid: Set<String>
        let clock: TestClock<Duration>
        /// (reading id, virtual time) of each publish attempt.
        let attempts = Locked<[(reading: String, at: Duration)]>([])

        init(clock: TestClock<Duration>, refused: Set<Int> = [], invalid: Set<String> = []) {
            (messages, continuation) = AsyncStream.makeStream(of: MQTTMessage.self)
            self.clock = clock
            self.refused = refused
            self.invalid = invalid
        }

        func publish(_ message: MQTTMessage, timeout: Double) async throws(MQTTError) {
            let reason = accept(message)
            if reason >= 0x80 { throw .operation("PUBLISH \(message.topic)", reason: "Not authorized") }
        }

        func publish(
            _ message: MQTTMessage,
            timeout: Double,
            acknowledged: @escaping @Sendable (Int32) -> Void
        ) throws(MQTTError) {
            acknowledged(accept(message))
        }

        func disconnect() { continuation.finish() }

        /// The broker's reason code for `message`, the SUT's verdict published when it is accepted.
        func accept(_ message: MQTTMessage) -> Int32 {
            let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]
            let reading = object?["readingId"] as? String ?? ""
            let now = TestClock<Duration>.Instant().duration(to: clock.now)
            let ordinal = attempts.withLock { log in
                log.append((reading, now))
                return log.count - 1
            }
            guard !refused.contains(ordinal) else { return 0x87 }
            let patient = message.topic.split(separator: "/").last.map(String.init) ?? ""
            let verdict =
                invalid.contains(reading)
                ? MQTTMessage(
                    topic: "errors/\(patient)",
                    payload: Array(#"{"readingId":"\#(reading)","status":400,"field":"heartRate"}"#.utf8)
                )
                : MQTTMessage(topic: "acks/\(patient)", payload: Array(#"{"readingId":"\#(reading)"}"#.utf8))
            continuation.yield(verdict)
            return 0
        }
    }

    /// A message of patient p1's reading `reading` on `vitals/p1`.
    static func message(_ reading: String) -> PlannedRequest {
        PlannedRequest(
            path: "",
            body: Array(#"{"readingId":"\#(reading)"}"#.utf8),
            readings: [(id: reading, emit: 0)],
            patientID: "p1",
            sendAt: 0,
            expectedRejection: nil,
            topic: "vitals/p1"
        )
    }

    func testMessagesAreAcknowledgedRetriedAndJudgedByTheSUTsVerdicts() async throws {
        let clock = TestClock<Duration>()
        // The third message's first three attempts are refused; the second reading is invalid.
        let broker = InMemoryMQTT(clock: clock, refused: [2, 3, 4], invalid: ["r2"])
        let link = LiveRunner.MQTTLink(client: broker, qos: 1, only: true, brokerCounters: false)
        let sut = VirtualClockRunTests.ScriptedSUT(clock: clock)
        let runner = VirtualClockRunTests.runner(sut, mqtt: link)
        let plan = ["r1", "r2", "r3"].map(Self.message)
        let (result, _) = try await VirtualClockRunTests.drive(runner, plan, sut: sut)
        XCTAssertEqual(result.traffic.outcomes.map(\.status), [200, 400, 200])
        XCTAssertEqual(result.traffic.outcomes[1].field, "heartRate", "the SUT's refusal names the field")
        let third = result.traffic.outcomes[2]
        // Refused once when pipelined, then twice more in the retry loop, backing off 250 ms and 500 ms.
        XCTAssertEqual(third.attempts, 4, "\(third)")
        XCTAssertTrue(third.waited >= 0.75 && third.waited < 0.85, "waited \(third.waited) s")
        let times = broker.attempts.withLock { $0.filter { $0.reading == "r3" }.map(\.at) }
        XCTAssertEqual(times.count, 4)
        if times.count == 4 {
            XCTAssertTrue(times[3] - times[1] >= .milliseconds(750) && times[3] - times[1] < .milliseconds(850))
        }
        let delivery = try XCTUnwrap(result.traffic.mqtt)
        XCTAssertEqual(delivery.acknowledged, 3)
        XCTAssertEqual(delivery.rejected, 1)
        XCTAssertEqual(delivery.confirmed, 2)
    }
}
