import Foundation
import Histogram
import Judge
import Locking
import RunRecord
import Transports
import VitalSimCore

/// The harness's own transports under load, for `vitalsim bench-transport` and
/// `ci/bench-harness.sh`: the same libcurl keep-alive connections (``HTTPPoster``) and libmosquitto
/// client (``MQTTClient``) that `vitalsim run` sends with, driven as fast as the server answers so
/// their rate and added latency can be compared with wrk and mosquitto_pub against the same servers.
package enum TransportBenchmark {
    /// Requests or messages sent, how long it took, and the latency of each (send → answer).
    package struct Result: Sendable {
        package var sent: Int
        package var failed: Int
        package var seconds: Double
        package var latency: Histogram<UInt64>
        /// What went wrong with the first request that failed (status or transport error), if any.
        package var firstFailure: String?
        package var perSecond: Double { seconds > 0 ? Double(sent - failed) / seconds : 0 }

        /// One line: rate and latency percentiles in ms.
        package var summary: String {
            func ms(_ p: Double) -> String {
                String(format: "%.3f", Double(p >= 100 ? latency.max : latency.valueAtPercentile(p)) / 1000)
            }
            return String(
                format: "%d sent, %d failed in %.2f s: %.0f/s; latency ms p50 %@ p90 %@ p99 %@ p99.9 %@ max %@",
                sent,
                failed,
                seconds,
                perSecond,
                ms(50),
                ms(90),
                ms(99),
                ms(99.9),
                ms(100)
            )
                + (firstFailure.map { "; first failure: \($0)" } ?? "")
        }
    }

    /// The body of request `n` of worker `w`, as `ci/bench/serve.lua` builds it: one reading, a unique
    /// id, 500 patients per worker, every tenth patient a blood-pressure patient alternating crisis
    /// and normal values.
    package static func observation(_ n: Int, worker w: Int) -> [UInt8] {
        let slot = n % 500
        let round = n / 500
        let patient = "h\(w)-\(slot)"
        let ts = CivilTime(unixMilliseconds: 1_704_067_200_000 + Int64(round) * 1000).iso8601(fractional: false)
        if slot % 10 == 0 {
            let (s, d) = round % 2 == 0 ? (185, 95) : (120, 80)
            return Array(
                #"{"readingId":"\#(patient)/\#(round)","patientId":"\#(patient)","deviceId":"cuff","kind":"blood-pressure","systolic":\#(s),"diastolic":\#(d),"unit":"mm[Hg]","timestamp":"\#(ts)"}"#
                    .utf8
            )
        }
        return Array(
            #"{"readingId":"\#(patient)/\#(round)","patientId":"\#(patient)","deviceId":"hr","kind":"heart-rate","value":\#(60 + round % 30),"unit":"/min","timestamp":"\#(ts)"}"#
                .utf8
        )
    }

    /// POSTs `count` single-reading observations, `connections` in flight, through the libcurl multi
    /// handle `vitalsim run` uses (or, with `easyHandles`, one blocking easy handle per connection).
    package static func http(
        url: String,
        caFile: String?,
        insecure: Bool,
        count: Int,
        connections: Int,
        easyHandles: Bool = false,
        http2: Bool = false
    ) async -> Result {
        let multi =
            easyHandles
            ? nil : HTTPMultiClient(maxConnections: connections, caFile: caFile, insecure: insecure, http2: http2)
        defer { multi?.close() }
        let posters =
            easyHandles
            ? (0..<connections).map { HTTPPoster(label: "vitalsim.bench.\($0)", caFile: caFile, insecure: insecure) }
            : []
        let firstFailure = Locked<String?>(nil)
        @Sendable func post(_ lane: Int, _ body: [UInt8]) async -> Bool {
            do throws(HTTPTransportError) {
                let reply =
                    if let multi { try await multi.post(url, body: body) } else {
                        try await posters[lane].post(url, body: body)
                    }
                if reply.status >= 300 {
                    firstFailure.withLock { f in
                        if f == nil {
                            f = "HTTP \(reply.status) \(String(decoding: reply.body.prefix(200), as: UTF8.self))"
                        }
                    }
                }
                return reply.status < 300
            } catch {
                firstFailure.withLock { f in if f == nil { f = error.description } }
                return false
            }
        }
        // Bodies are built before the clock starts (the client's own cost, not the generator's, is
        // what is compared with wrk); each connection is opened (TLS handshake) before it starts too.
        let bodies = (0..<connections).map { w in
            (0..<(count + connections - 1 - w) / connections).map { observation($0, worker: w) }
        }
        for lane in 0..<connections { _ = await post(lane, observation(0, worker: 999)) }
        firstFailure.withLock { $0 = nil }
        var result = await measure(bodies, sent: count, executor: multi, post)
        result.firstFailure = firstFailure.withLock { $0 }
        return result
    }

    /// Publishes `count` messages on `vitals/{patient}/heart-rate` with QoS `qos` from `connections`
    /// clients (as many devices would: each its own connection, its own network thread and its own
    /// Receive Maximum), the messages dealt out in turn, pipelined as `vitalsim run` publishes: up to
    /// `inFlight` per client awaiting their acknowledgement, none awaited on its own (libmosquitto
    /// keeps its in-flight limit on the wire and queues the rest). Latency is from the publish call to
    /// the broker's PUBACK (QoS 1) or PUBCOMP (QoS 2).
    package static func mqtt(
        host: String,
        port: Int,
        qos: Int,
        count: Int,
        inFlight: Int,
        resumeAt: Int? = nil,
        connections: Int = 1
    ) async throws(MQTTError) -> Result {
        var clients: [MQTTClient] = []
        defer { for client in clients { client.disconnect() } }
        for c in 0..<max(1, connections) {
            let client = try MQTTClient(.init(host: host, port: port, clientID: "vitalsim-bench-\(getpid())-\(c)"))
            try await client.connect()
            clients.append(client)
        }
        let lanes = clients.indices.map { c in
            stride(from: c, to: count, by: clients.count).map { i in
                MQTTMessage(
                    topic: "vitals/h0-\(i % 500)/heart-rate",
                    payload: observation(i, worker: 0),
                    qos: qos,
                    userProperties: [UserProperty("reading-id", "h0-\(i % 500)/\(i / 500)")]
                )
            }
        }
        let tally = Locked((latency: Histogram<UInt64>.latency(), failed: 0))
        let clock = ContinuousClock()
        let start = clock.now
        await withTaskGroup(of: Void.self) { group in
            for (client, messages) in zip(clients, lanes) {
                // On the client's network thread, as vitalsim run's MQTT workers: a publish reaches
                // the socket, and the acknowledgements resume the publisher, without waking another
                // thread.
                group.addTask(executorPreference: client) {
                    await publish(messages, on: client, inFlight: inFlight, resumeAt: resumeAt, tally: tally)
                }
            }
        }
        // QoS 0 has no acknowledgement: a QoS 1 message after the others is acknowledged only once
        // the broker has read everything before it on that connection.
        if qos == 0 {
            for client in clients {
                try? await client.publish(MQTTMessage(topic: "vitalsim/bench/flush", payload: [], qos: 1))
            }
        }
        let seconds = (clock.now - start).seconds
        return tally.withLock { t in Result(sent: count, failed: t.failed, seconds: seconds, latency: t.latency) }
    }

    /// One client's share of ``mqtt(host:port:qos:count:inFlight:resumeAt:connections:)``: publishes
    /// `messages` in order through a window of `inFlight`, then waits for the last acknowledgement.
    static func publish(
        _ messages: [MQTTMessage],
        on client: MQTTClient,
        inFlight: Int,
        resumeAt: Int?,
        tally: Locked<(latency: Histogram<UInt64>, failed: Int)>
    ) async {
        let acknowledged = messages.first.map { $0.qos > 0 } ?? false
        let window = SendWindow(limit: acknowledged ? max(1, inFlight) : 1, resumeAt: resumeAt)
        let clock = ContinuousClock()
        for message in messages {
            if acknowledged { await window.acquire() }
            let t0 = clock.now
            do throws(MQTTError) {
                try client.publish(message) { reason in
                    let elapsed = Duration.nonNegativeMicroseconds(clock.now - t0)
                    tally.withLock { t in
                        t.latency.record(elapsed)
                        if reason < 0 || reason >= 0x80 { t.failed += 1 }
                    }
                    if acknowledged { window.release() }
                }
            } catch {
                tally.withLock { $0.failed += 1 }
                if acknowledged { window.release() }
            }
        }
        await window.drain()
    }

    /// Sends each lane's items in order, the lanes concurrently, timing each send and the whole
    /// (until `finish` returns); `send` says whether an item was answered.
    static func measure<Item: Sendable>(
        _ lanes: [[Item]],
        sent: Int,
        finish: () async -> Void = {},
        executor: (any TaskExecutor)? = nil,
        _ send: @escaping @Sendable (Int, Item) async -> Bool
    ) async -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        let parts = await withTaskGroup(of: (Histogram<UInt64>, Int).self) { group in
            for (w, items) in lanes.enumerated() {
                group.addTask(executorPreference: executor) {
                    var histogram = Histogram<UInt64>.latency()
                    var failed = 0
                    for item in items {
                        let t0 = clock.now
                        if await !send(w, item) { failed += 1 }
                        histogram.record(Duration.nonNegativeMicroseconds(clock.now - t0))
                    }
                    return (histogram, failed)
                }
            }
            var all: [(Histogram<UInt64>, Int)] = []
            for await r in group { all.append(r) }
            return all
        }
        await finish()
        var histogram = Histogram<UInt64>.latency()
        var failed = 0
        for (part, f) in parts {
            histogram.add(part)
            failed += f
        }
        return Result(sent: sent, failed: failed, seconds: (clock.now - start).seconds, latency: histogram)
    }

}
