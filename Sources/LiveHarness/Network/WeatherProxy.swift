import Foundation
import Locking
import VitalSimCore

/// A TCP proxy on 127.0.0.1 in front of one SUT endpoint (HTTP(S) or an MQTT broker) that carries
/// the devices' traffic through a ``NetworkWeather``: each chunk is delayed from its arrival by the
/// latency and jitter, sometimes by a loss's resend, paced to the bandwidth and held during
/// partitions (chunks in flight overlap; their order holds); and a connection is sometimes reset as
/// the SUT's answer arrives (the request reached the SUT, its sender never learns it). Bytes pass
/// unchanged, TLS included.
///
/// Sendable: the mutable state is in a `Locked` value; each direction of a connection is carried by
/// a reader and a writer thread through a ``WeatherPipe``, and the sockets are closed once all four
/// threads have ended.
package final class WeatherProxy: @unchecked Sendable {
    /// What the weather did so far.
    package struct Tally: Sendable, Equatable, CustomStringConvertible {
        package var connections = 0
        package var chunks = 0
        package var resends = 0
        package var resets = 0
        package var heldByPartitions = 0

        /// In words: `over 12 connections: 3 reset, 4 of 310 chunks resent, 2 held by a partition`.
        package var description: String {
            "over \(connections) connection\(connections == 1 ? "" : "s"): \(resets) reset, \(resends) of \(chunks) chunks resent, \(heldByPartitions) held by a partition"
        }
    }

    struct State {
        var stopped = false
        var tally = Tally()
        var open: Set<Int32> = []
    }

    let weather: NetworkWeather
    let upstreamHost: String
    let upstreamPort: Int
    let listener: Int32
    /// The port the proxy listens on (127.0.0.1).
    package let port: Int
    let started = ContinuousClock.now
    let state = Locked(State())

    /// Listens on a free port of 127.0.0.1 and forwards to `host:port`.
    /// - Throws: when `host` is not an IPv4 address or `localhost` (the proxy listens on 127.0.0.1
    ///   and dials the upstream over IPv4), or no port can be listened on.
    package init(_ weather: NetworkWeather, upstream host: String, port upstreamPort: Int) throws(HarnessError) {
        let upstreamAddress = host == "localhost" ? "127.0.0.1" : host
        guard inet_addr(upstreamAddress) != INADDR_NONE else {
            throw .usage(
                "--network: the SUT's host \(host) is not an IPv4 address or localhost, which the network proxy needs"
            )
        }
        self.weather = weather
        upstreamHost = upstreamAddress
        self.upstreamPort = upstreamPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in(
            sin_family: sa_family_t(AF_INET),
            sin_port: 0,
            sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")),
            sin_zero: (0, 0, 0, 0, 0, 0, 0, 0)
        )
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                bind(listener, a, length) == 0 && listen(listener, 128) == 0 && getsockname(listener, a, &length) == 0
            }
        }
        guard listener >= 0, bound else {
            if listener >= 0 { close(listener) }
            throw .infrastructure(
                "the network proxy could not listen on 127.0.0.1: \(String(cString: strerror(errno)))"
            )
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "vitalsim.weather"
        thread.start()
    }

    deinit { stop() }

    /// `url` (http or https on `host:port`) with the proxy's port in place of the upstream's; the
    /// host stays, so a TLS certificate's name still matches.
    package func url(replacing url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.port = port
        return components.string ?? url
    }

    /// Stops accepting and closes every connection.
    package func stop() {
        let open = state.withLock { s -> Set<Int32> in
            guard !s.stopped else { return [] }
            s.stopped = true
            return s.open
        }
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    package var tally: Tally { state.withLock { $0.tally } }

    var stopped: Bool { state.withLock { $0.stopped } }

    func acceptLoop() {
        defer { close(listener) }
        var index: UInt64 = 0
        while !stopped {
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 200) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            guard let upstream = connectUpstream() else {
                close(client)
                continue
            }
            // Chunks leave when the weather says, not when Nagle's algorithm would.
            var noDelay: Int32 = 1
            for fd in [client, upstream] {
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            }
            index += 1
            let connection = index
            state.withLock { s in
                s.tally.connections += 1
                s.open.formUnion([client, upstream])
            }
            // Each direction: a reader that stamps chunks as they arrive, a writer that sends them when due.
            let threads = Locked(4)
            let finish: @Sendable () -> Void = { [self] in
                let last = threads.withLock { n -> Bool in
                    n -= 1
                    return n == 0
                }
                guard last else { return }
                state.withLock { $0.open.subtract([client, upstream]) }
                close(client)
                close(upstream)
            }
            for (from, to, answers) in [(client, upstream, false), (upstream, client, true)] {
                let pipe = WeatherPipe()
                let reader = Thread { [self] in
                    read(from: from, into: pipe, cutting: (from, to), connection: connection, answers: answers)
                    finish()
                }
                let writer = Thread { [self] in
                    write(pipe, to: to)
                    finish()
                }
                reader.start()
                writer.start()
            }
        }
    }

    func connectUpstream() -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in(
            sin_family: sa_family_t(AF_INET),
            sin_port: UInt16(upstreamPort).bigEndian,
            sin_addr: in_addr(s_addr: inet_addr(upstreamHost)),
            sin_zero: (0, 0, 0, 0, 0, 0, 0, 0)
        )
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Reads one direction of a connection until either side closes, stamping each chunk with the
    /// instant it is due on the other side; `answers` is the SUT's direction, where a reset may cut
    /// the connection (both sockets of `cutting`).
    func read(from: Int32, into pipe: WeatherPipe, cutting: (Int32, Int32), connection: UInt64, answers: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var sent = ContinuousClock.now
        var lastDue = ContinuousClock.now
        var chunk: UInt64 = 0
        defer { pipe.close() }
        while !stopped {
            var ready = pollfd(fd: from, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, 200)
            if polled == 0 { continue }
            let received = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
            guard polled > 0, received > 0 else { return }
            let arrived = ContinuousClock.now
            chunk += 1
            let key = SeededRandom.fnv1a("\(connection)/\(answers ? "a" : "q")/\(chunk)")
            if answers, weather.resets > 0, SeededRandom.unit(weather.seed ^ 0x7E5E, key) < weather.resets {
                pipe.abort()
                reset(cutting.0, cutting.1)
                return
            }
            // The link is busy sending earlier chunks at the bandwidth; then the chunk travels.
            sent = max(sent, arrived) + transmission(bytes: received)
            var due = max(lastDue, sent + delay(key: key))
            due = afterPartitions(due)
            lastDue = due
            guard pipe.put(WeatherPipe.Chunk(bytes: Array(buffer[0..<received]), due: due)) else { return }
        }
    }

    /// Writes one direction's chunks as they fall due, then closes that direction.
    func write(_ pipe: WeatherPipe, to fd: Int32) {
        while let chunk = pipe.take() {
            let now = ContinuousClock.now
            if chunk.due > now { Thread.sleep(forTimeInterval: (chunk.due - now).seconds) }
            guard send(all: chunk.bytes, count: chunk.bytes.count, to: fd) else {
                pipe.abort()
                break
            }
        }
        shutdown(fd, Int32(SHUT_WR))
    }

    /// How long `bytes` take to leave at the bandwidth (zero when unlimited).
    func transmission(bytes: Int) -> Duration {
        guard weather.bandwidth > 0 else { return .zero }
        return .microseconds(Int64((Double(bytes) / Double(weather.bandwidth) * 1_000_000).rounded()))
    }

    /// The travel time of one chunk: latency and jitter, and a loss's resend.
    func delay(key: UInt64) -> Duration {
        let spread = (SeededRandom.unit(weather.seed ^ 0x717E, key) * 2 - 1) * weather.jitter.seconds
        var seconds = max(0, weather.latency.seconds + spread)
        let lost = weather.loss > 0 && SeededRandom.unit(weather.seed ^ 0x1055, key) < weather.loss
        if lost { seconds += NetworkWeather.retransmission.seconds }
        state.withLock { s in
            s.tally.chunks += 1
            if lost { s.tally.resends += 1 }
        }
        return .microseconds(Int64((seconds * 1_000_000).rounded()))
    }

    /// `due`, or the end of the partition it falls in (partitions recur from the proxy's start).
    func afterPartitions(_ due: ContinuousClock.Instant) -> ContinuousClock.Instant {
        guard weather.partitionEvery > .zero else { return due }
        let every = weather.partitionEvery.seconds
        let into = (due - started).seconds.truncatingRemainder(dividingBy: every)
        // The first partition starts one period in: a run begins on a working network.
        let partitionStart = every - weather.partitionFor.seconds
        guard into >= partitionStart else { return due }
        state.withLock { $0.tally.heldByPartitions += 1 }
        return due + .milliseconds(Int64(((every - into) * 1000).rounded(.up)))
    }

    /// Cuts the connection both ways with a TCP reset (linger 0), as a dropped mobile link does.
    func reset(_ a: Int32, _ b: Int32) {
        state.withLock { $0.tally.resets += 1 }
        var hard = linger(l_onoff: 1, l_linger: 0)
        for fd in [a, b] {
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, socklen_t(MemoryLayout<linger>.size))
            shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    func send(all buffer: [UInt8], count: Int, to fd: Int32) -> Bool {
        var sent = 0
        while sent < count {
            let written = buffer.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }
}
