import Foundation
import LiveHarness
import Locking
import Transports
import XCTest

/// `MQTTClient`'s own network loop against a real broker: tasks that prefer the client run on its
/// thread before and after every awaited acknowledgement; QoS 1 and 2 publishes from that thread
/// and from others all reach another subscriber, in order; disconnecting from a task on the loop does
/// not deadlock, and a task preferring a disconnected client still runs; a client released on its
/// own thread, or on another while its callbacks run, goes away without a crash; and the loop
/// reconnects to a broker that came back.
final class MQTTClientLoopTests: XCTestCase {
    static func threadName() -> String { HTTPMultiClientExecutorTests.threadName() }

    func testTasksPreferringTheClientRunOnItsLoopAndEveryQoSArrives() async throws {
        let broker = try MosquittoBroker()
        let watcher = try MQTTClient(.init(host: "127.0.0.1", port: Int(broker.port), clientID: "loop-watcher"))
        try await watcher.connect()
        try await watcher.subscribeAcknowledged("loop/#", qos: 2)
        let client = try MQTTClient(.init(host: "127.0.0.1", port: Int(broker.port), clientID: "loop-publisher"))
        try await client.connect()

        // On the loop: every step of every task runs on vitalsim-mqtt, awaited publishes included.
        let seen = await Self.publishFromTasksOnTheLoop(client)
        XCTAssertEqual(seen.count, 3 * 21)
        XCTAssertEqual(Set(seen), ["vitalsim-mqtt"], "every step ran on the client's loop and every publish succeeded")

        // From another thread: 500 QoS 1 publishes without awaiting any, then one awaited.
        let acks = Locked(0)
        for n in 0..<500 {
            try client.publish(MQTTMessage(topic: "loop/off/1", payload: Array("\(n)".utf8), qos: 1)) { r in
                if r == 0 { acks.withLock { $0 += 1 } }
            }
        }
        try await client.publish(MQTTMessage(topic: "loop/off/last", payload: Array("last".utf8), qos: 1))
        // And from the loop, 500 in one step: nothing suspends, so they are written as they pile up.
        _ = await HTTPMultiClientExecutorTests.onto(client) {
            for n in 0..<500 {
                try? client.publish(MQTTMessage(topic: "loop/step/1", payload: Array("\(n)".utf8), qos: 1)) { r in
                    if r == 0 { acks.withLock { $0 += 1 } }
                }
            }
            return ""
        }
        let expected = [
            "loop/on/0": 20, "loop/on/1": 20, "loop/on/2": 20, "loop/off/1": 500, "loop/off/last": 1,
            "loop/step/1": 500,
        ]
        let (counts, payloads) = await Self.collect(watcher, expected.values.reduce(0, +), seconds: 30)
        // QoS 0 may be dropped by a busy broker (at most once); QoS 1 and 2 may not.
        XCTAssertLessThanOrEqual(counts["loop/on/0"] ?? 0, 20)
        XCTAssertEqual(counts.filter { $0.key != "loop/on/0" }, expected.filter { $0.key != "loop/on/0" })
        XCTAssertEqual(payloads["loop/off/1"], (0..<500).map { "\($0)" }, "in order, none lost")
        XCTAssertEqual(payloads["loop/step/1"], (0..<500).map { "\($0)" }, "in order, none lost")
        // The broker may pass a message on before it acknowledges it.
        for _ in 0..<100 where acks.withLock({ $0 }) < 1000 { try await Task.sleep(for: .milliseconds(50)) }
        XCTAssertEqual(acks.withLock { $0 }, 1000, "every PUBACK reached its callback")

        // A task on the loop disconnects (no deadlock); tasks preferring the client then run elsewhere.
        let closed = await HTTPMultiClientExecutorTests.onto(client) {
            client.disconnect()
            return Self.threadName()
        }
        XCTAssertEqual(closed, "vitalsim-mqtt")
        let after = await HTTPMultiClientExecutorTests.onto(client) { Self.threadName() }
        XCTAssertNotEqual(
            after,
            "vitalsim-mqtt",
            "a disconnected client's loop has ended; the task ran on the global executor"
        )
        watcher.disconnect()
    }

    /// Three tasks preferring `client` publish 20 messages each at QoS 0, 1 and 2, awaiting each;
    /// returns the thread name of every step (or the error).
    static func publishFromTasksOnTheLoop(_ client: MQTTClient) async -> [String] {
        await withTaskGroup(of: [String].self) { group in
            for qos in 0...2 {
                group.addTask(executorPreference: client) {
                    var names = [Self.threadName()]
                    for n in 0..<20 {
                        do {
                            try await client.publish(
                                MQTTMessage(topic: "loop/on/\(qos)", payload: Array("\(n)".utf8), qos: qos)
                            )
                            names.append(Self.threadName())
                        } catch { names.append("\(error)") }
                    }
                    return names
                }
            }
            var all: [String] = []
            for await names in group { all += names }
            return all
        }
    }

    /// Messages of `client`'s subscriptions (count and payloads by topic) until `count` arrived or
    /// `seconds` passed.
    static func collect(_ client: MQTTClient, _ count: Int, seconds: Int) async -> ([String: Int], [String: [String]]) {
        await withTaskGroup(of: ([String: Int], [String: [String]])?.self) { group in
            group.addTask {
                var counts: [String: Int] = [:]
                var payloads: [String: [String]] = [:]
                var total = 0
                for await m in client.messages {
                    counts[m.topic, default: 0] += 1
                    payloads[m.topic, default: []].append(String(decoding: m.payload, as: UTF8.self))
                    total += 1
                    if total == count || Task.isCancelled { break }
                }
                return (counts, payloads)
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            var last: ([String: Int], [String: [String]]) = ([:], [:])
            while let result = await group.next() {
                group.cancelAll()
                if let result {
                    last = result
                    break
                }
            }
            return last
        }
    }

    func testAClientReleasedOnItsOwnLoopGoesAway() async throws {
        let broker = try MosquittoBroker()
        weak var gone: MQTTClient?
        do {
            let client = try MQTTClient(.init(host: "127.0.0.1", port: Int(broker.port), clientID: "loop-released"))
            try await client.connect()
            gone = client
            // The task holds the last reference when it ends, on the client's loop.
            let name = await withTaskGroup(of: String.self) { group in
                group.addTask(executorPreference: client) { [client] in
                    try? await client.publish(MQTTMessage(topic: "loop/released", payload: [1], qos: 1))
                    return Self.threadName()
                }
                return await group.next() ?? ""
            }
            XCTAssertEqual(name, "vitalsim-mqtt")
        }
        for _ in 0..<50 where gone != nil { try await Task.sleep(for: .milliseconds(20)) }
        XCTAssertNil(gone, "the client was released")
        // The process is still alive and libmosquitto usable: a new client connects and publishes.
        let next = try MQTTClient(.init(host: "127.0.0.1", port: Int(broker.port), clientID: "loop-after"))
        try await next.connect()
        try await next.publish(MQTTMessage(topic: "loop/after", payload: [2], qos: 1))
        next.disconnect()
    }

    /// Clients released from another thread while their loop is delivering messages and
    /// acknowledgements: callbacks reach a client only through a weak reference, so none may touch
    /// a client that is going away (under ThreadSanitizer a use after free or a race fails the run).
    func testClientsReleasedWhileCallbacksAreDeliveredGoAway() async throws {
        let broker = try MosquittoBroker()
        let port = Int(broker.port)
        let flood = try MQTTClient(.init(host: "127.0.0.1", port: port, clientID: "release-flood"))
        try await flood.connect()
        var released = 0
        for round in 0..<20 {
            weak var gone: MQTTClient?
            do {
                let client = try MQTTClient(.init(host: "127.0.0.1", port: port, clientID: "release-\(round)"))
                try await client.connect()
                try await client.subscribeAcknowledged("release/#", qos: 1)
                gone = client
                for n in 0..<50 {
                    try flood.publish(
                        MQTTMessage(topic: "release/\(n)", payload: Array(repeating: 7, count: 256), qos: 1)
                    ) { _ in }
                    try client.publish(MQTTMessage(topic: "elsewhere/\(n)", payload: [1], qos: 1)) { _ in }
                }
            }
            for _ in 0..<100 where gone != nil { try await Task.sleep(for: .milliseconds(10)) }
            if gone == nil { released += 1 }
        }
        XCTAssertEqual(released, 20, "every client went away while messages were still arriving")
        // libmosquitto is still usable: a new client subscribes and receives.
        let last = try MQTTClient(.init(host: "127.0.0.1", port: port, clientID: "release-last"))
        try await last.connect()
        try await last.subscribeAcknowledged("after-release/#", qos: 1)
        try await flood.publish(MQTTMessage(topic: "after-release/last", payload: [9], qos: 1))
        var iterator = last.messages.makeAsyncIterator()
        let message = await iterator.next()
        XCTAssertEqual(message?.topic, "after-release/last")
        last.disconnect()
        flood.disconnect()
    }

    func testTheLoopReconnectsAndDeliversWhatWasPublishedMeanwhile() async throws {
        let broker = try MosquittoBroker()
        let port = broker.port
        let client = try MQTTClient(.init(host: "127.0.0.1", port: Int(port), clientID: "loop-reconnect"))
        try await client.connect()
        try await client.publish(MQTTMessage(topic: "loop/before", payload: [0], qos: 1))
        broker.kill()
        try await Task.sleep(for: .milliseconds(300))
        // Published while the broker is down: kept by libmosquitto, sent once the loop has reconnected.
        let acknowledged = Task {
            try await client.publish(MQTTMessage(topic: "loop/during", payload: [1], qos: 1), timeout: 30)
        }
        try await Task.sleep(for: .seconds(2))
        let again = try MosquittoBroker(port: port)
        let watcher = try MQTTClient(
            .init(host: "127.0.0.1", port: Int(again.port), clientID: "loop-reconnect-watcher")
        )
        try await watcher.connect()
        try await acknowledged.value
        try await client.publish(MQTTMessage(topic: "loop/after", payload: [2], qos: 1))
        client.disconnect()
        watcher.disconnect()
    }
}
