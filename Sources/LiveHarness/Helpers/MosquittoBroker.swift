import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A mosquitto broker (Debian's `mosquitto` package) started for a run whose scenario sends over
/// MQTT and for which no broker was given: loopback only, a free port, no persistence, packets up
/// to ``maxPacketSize``, anonymous or with the users and topic ACLs of a ``BrokerAccess``,
/// in a temporary directory that ``stop()`` removes. It publishes its `$SYS` counters every second,
/// so a run can read how many messages it dropped.
package final class MosquittoBroker: Sendable {
    package let host = "127.0.0.1"
    package let port: Int
    let process: Process
    let directory: String

    /// The largest MQTT packet the broker takes (`max_packet_size`): a reading's message (at most
    /// 256 KB of JSON, the reference SUT's limit) with its topic and properties fits; a client that
    /// sends more is disconnected before the message reaches any subscriber.
    package static let maxPacketSize = 300_000

    /// Where Debian installs the broker; `PATH` is searched as a fallback.
    static func executable() -> String? {
        let candidates =
            ["/usr/sbin/mosquitto"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/mosquitto" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts the broker and waits until it accepts TCP connections (three ports are tried).
    /// - Parameter maxQueued: QoS 1/2 messages queued per client beyond those in flight
    ///   (`max_queued_messages`); past it the broker drops them.
    /// - Parameter access: users, passwords and ACLs; nil: anonymous clients may do anything.
    package init(directory: String, maxQueued: Int = 100_000, access: BrokerAccess? = nil) throws(HarnessError) {
        guard let executable = MosquittoBroker.executable() else {
            throw .infrastructure(
                "the scenario sends over MQTT but mosquitto is not installed (apt-get install mosquitto, or run ci/setup-debian.sh), and no broker (HOST:PORT) was given"
            )
        }
        self.directory = directory
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var security = "allow_anonymous true\n"
        if let access {
            guard let passwd = BrokerAccess.passwdExecutable() else {
                throw .infrastructure(
                    "mosquitto_passwd is not installed (apt-get install mosquitto, or run ci/setup-debian.sh)"
                )
            }
            security = try access.write(in: directory, passwd: passwd)
        }
        var failure = ""
        for _ in 0..<3 {
            guard let port = LoopbackPort.free() else {
                failure = "no free loopback port"
                continue
            }
            let conf = directory + "/mosquitto.conf"
            let text =
                "listener \(port) 127.0.0.1\n\(security)persistence false\nmax_queued_messages \(maxQueued)\nsys_interval 1\n"
                + "max_packet_size \(Self.maxPacketSize)\n"
            guard FileManager.default.createFile(atPath: conf, contents: Data(text.utf8)) else {
                throw .infrastructure("cannot write \(conf)")
            }
            let child = Process()
            child.executableURL = URL(fileURLWithPath: executable)
            child.arguments = ["-c", conf]
            let log = directory + "/mosquitto.log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            child.standardOutput = FileHandle(forWritingAtPath: log)
            child.standardError = FileHandle(forWritingAtPath: log)
            do { try ChildProcess.launch(child) } catch {
                throw .infrastructure("cannot start \(executable): \(error)")
            }
            let deadline = Date(timeIntervalSinceNow: 10)
            while child.isRunning, Date() < deadline, !LoopbackPort.accepts(port) { usleep(20_000) }
            if child.isRunning, LoopbackPort.accepts(port) {
                self.port = port
                process = child
                return
            }
            ChildProcess.stop(child)
            failure = (try? String(contentsOfFile: log, encoding: .utf8)) ?? "exited"
        }
        try? FileManager.default.removeItem(atPath: directory)
        throw .infrastructure("mosquitto did not start on a loopback port: \(failure)")
    }

    /// Stops the broker and removes its directory.
    package func stop() {
        ChildProcess.stop(process)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Loopback TCP port helpers.
enum LoopbackPort {
    /// A port the kernel just handed out for 127.0.0.1 (free unless someone takes it first).
    static func free() -> Int? {
        withSocket(port: 0) { fd, addr in
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            guard bind(fd, addr, len) == 0, getsockname(fd, addr, &len) == 0 else { return nil }
            return Int(
                UInt16(bigEndian: addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port })
            )
        }
    }

    /// True when something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(_ port: Int) -> Bool {
        withSocket(port: port) { fd, addr in
            connect(fd, addr, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 ? true : nil
        } ?? false
    }

    /// Runs `body` with a fresh TCP socket and the address 127.0.0.1:`port`; closes the socket.
    static func withSocket<T>(port: Int, _ body: (Int32, UnsafeMutablePointer<sockaddr>) -> T?) -> T? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        return withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body(fd, $0) }
        }
    }
}
