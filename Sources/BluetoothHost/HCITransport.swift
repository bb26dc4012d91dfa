import Bluetooth
import CBluetooth
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Carries H4 packets (type byte first) between the host and a controller.
package protocol HCITransport: AnyObject, Sendable {
    /// Sends one H4 packet.
    func write(_ packet: [UInt8]) throws(HCIError)
    /// Blocks until one complete H4 packet arrives.
    func read() throws(HCIError) -> [UInt8]
    /// Closes the transport; a blocked `read` returns an error.
    func close()
}

/// Errors of the HCI host.
package enum HCIError: Error, Equatable, CustomStringConvertible {
    case badSpec(String)
    case connectFailed(String)
    case closed
    case io(String)
    case malformedPacket(String)
    case commandFailed(opcode: UInt16, status: UInt8)
    case timeout(String)
    case unsupported(String)

    package var description: String {
        switch self {
        case let .badSpec(s):
            "invalid HCI controller '\(s)'; use tcp:HOST:PORT (a virtual controller such as bumble's), or hciN or the adapter's address (a real adapter)"
        case let .connectFailed(s): "cannot reach the HCI controller: \(s)"
        case .closed: "the HCI transport was closed"
        case let .io(s): "HCI transport I/O error: \(s)"
        case let .malformedPacket(s): "malformed HCI packet from the controller: \(s)"
        case let .commandFailed(op, status):
            "HCI command 0x\(String(op, radix: 16)) failed with status 0x\(String(status, radix: 16))"
        case let .timeout(s): "timed out waiting for \(s)"
        case let .unsupported(s): s
        }
    }
}

/// Opens a transport from a `--hci` value: `tcp:HOST:PORT` or `hciN`.
package enum HCITransports {
    package static func open(_ spec: String) throws(HCIError) -> any HCITransport {
        if spec.hasPrefix("tcp:") {
            let rest = spec.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]) else {
                throw .badSpec(spec)
            }
            var host = String(rest[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return try TCPHCITransport(host: host, port: port)
        }
        if spec.hasPrefix("hci"), UInt16(spec.dropFirst(3)) != nil { return try UserChannelHCITransport(name: spec) }
        if spec.split(separator: ":").count == 6,
            spec.split(separator: ":").allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil })
        {
            return try UserChannelHCITransport(name: spec)
        }
        throw .badSpec(spec)
    }
}

/// A stream socket carrying H4 framing; splits the byte stream into packets.
///
/// Sendable: the descriptor is immutable; the reassembly buffer is touched only with `lock` held.
class StreamHCITransport: HCITransport, @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []
    private let lock = NSLock()

    init(fd: Int32) { self.fd = fd }

    func write(_ packet: [UInt8]) throws(HCIError) {
        lock.lock()
        defer { lock.unlock() }
        var sent = 0
        while sent < packet.count {
            let written = packet[sent...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { throw .io(String(cString: strerror(errno))) }
            sent += written
        }
    }

    func read() throws(HCIError) -> [UInt8] {
        while true {
            if let packet = try nextPacket() { return packet }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let received = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if received == 0 { throw .closed }
            if received < 0 {
                if errno == EINTR { continue }
                throw .io(String(cString: strerror(errno)))
            }
            buffer += chunk[0..<received]
        }
    }

    private func nextPacket() throws(HCIError) -> [UInt8]? {
        guard let type = buffer.first else { return nil }
        let header: Int
        let length: Int
        switch type {
        case 0x01:
            guard buffer.count >= 4 else { return nil }
            header = 4
            length = Int(buffer[3])
        case 0x02:
            guard buffer.count >= 5 else { return nil }
            header = 5
            length = Int(buffer[3]) | Int(buffer[4]) << 8
        case 0x04:
            guard buffer.count >= 3 else { return nil }
            header = 3
            length = Int(buffer[2])
        default: throw .malformedPacket("unknown H4 packet type 0x\(String(type, radix: 16))")
        }
        guard buffer.count >= header + length else { return nil }
        let packet = Array(buffer[0..<(header + length)])
        buffer.removeFirst(header + length)
        return packet
    }

    func close() {
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }
}

/// H4 over TCP to a virtual controller (bumble: `python -m bumble.apps.controllers tcp-server:127.0.0.1:P1 …`).
final class TCPHCITransport: StreamHCITransport, @unchecked Sendable {
    init(host: String, port: UInt16) throws(HCIError) {
        var hints = addrinfo(
            ai_flags: 0,
            ai_family: AF_UNSPEC,
            ai_socktype: Int32(SOCK_STREAM.rawValue),
            ai_protocol: 0,
            ai_addrlen: 0,
            ai_addr: nil,
            ai_canonname: nil,
            ai_next: nil
        )
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let info = result else {
            throw .connectFailed("cannot resolve \(host)")
        }
        defer { freeaddrinfo(result) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard fd >= 0 else { throw .connectFailed(String(cString: strerror(errno))) }
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .connectFailed("\(host):\(port): \(message)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        super.init(fd: fd)
    }
}

/// A real adapter through the Linux HCI user channel (exclusive access; the kernel's own stack must
/// not be using the adapter), opened with libbluetooth. Needs a kernel with Bluetooth support and
/// CAP_NET_ADMIN. `hciN` and the adapter's address (`00:1A:7D:DA:71:13`) both name an adapter.
final class UserChannelHCITransport: StreamHCITransport, @unchecked Sendable {
    init(name: String) throws(HCIError) {
        let id = hci_devid(name)
        guard id >= 0 else {
            let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), BTPROTO_HCI)
            let code = errno
            if probe >= 0 { Glibc.close(probe) }
            throw .unsupported(
                probe < 0 && code == EAFNOSUPPORT
                    ? "\(name): this kernel has no Bluetooth support (AF_BLUETOOTH: \(String(cString: strerror(code)))); use tcp:HOST:PORT with a virtual controller"
                    : "\(name): no such Bluetooth adapter (see `hciconfig -a` or `btmgmt info`)"
            )
        }
        let fd = vitalsim_hci_user_channel(id)
        guard fd >= 0 else {
            let message = String(cString: strerror(errno))
            throw .unsupported(
                "\(name): cannot open the HCI user channel (\(message)); power the adapter off for BlueZ (`btmgmt --index \(id) power off`) and run with CAP_NET_ADMIN"
            )
        }
        super.init(fd: fd)
    }
}
