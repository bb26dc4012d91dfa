import Foundation

/// Writes btsnoop v1 files with the H4 datalink (1002), as Wireshark and bumble read them.
///
/// Records are buffered and flushed in large blocks; the file handle is opened only while flushing,
/// so thousands of captures can be written at once without running out of descriptors.
package final class BTSnoopWriter {
    /// Direction and class flags of a record.
    package enum Direction: UInt32 {
        case sentData = 0
        case receivedData = 1
        case sentCommand = 2
        case receivedEvent = 3
    }

    /// µs between 0000-01-01 and 1970-01-01 (Wireshark's KUnixTimeBase).
    package static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000
    package let path: String?
    private var buffer: [UInt8] = []
    private var started = false
    package private(set) var recordCount = 0

    /// Creates a writer for `path` (nil keeps records only in memory, for tests and benchmarks).
    package init(path: String?) throws {
        self.path = path
        buffer.reserveCapacity(1 << 16)
        buffer += Array("btsnoop".utf8) + [0]
        buffer += BTSnoopWriter.be32(1) + BTSnoopWriter.be32(1002)
        if let path {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CaptureError.cannotCreate(path: path)
            }
        }
    }

    /// Appends one H4 packet (type byte included) at Unix time `unixMicroseconds`.
    package func append(h4 packet: [UInt8], direction: Direction, unixMicroseconds: Int64) {
        buffer += BTSnoopWriter.be32(UInt32(packet.count)) + BTSnoopWriter.be32(UInt32(packet.count))
        buffer += BTSnoopWriter.be32(direction.rawValue) + BTSnoopWriter.be32(0)
        let ts = UInt64(bitPattern: unixMicroseconds + BTSnoopWriter.unixEpochOffset)
        for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8((ts >> UInt64(shift)) & 0xFF)) }
        buffer += packet
        recordCount += 1
        if buffer.count > 1 << 16 { try? flush() }
    }

    /// Writes buffered records to the file.
    package func flush() throws {
        guard let path, !buffer.isEmpty else {
            buffer.removeAll(keepingCapacity: true)
            return
        }
        guard let fileHandle = FileHandle(forWritingAtPath: path) else { throw CaptureError.cannotCreate(path: path) }
        defer { try? fileHandle.close() }
        fileHandle.seekToEndOfFile()
        fileHandle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
}

/// Errors writing or reading captures.
package enum CaptureError: Error, CustomStringConvertible {
    case cannotCreate(path: String)
    case malformed(path: String, offset: Int, reason: String)
    package var description: String {
        switch self {
        case let .cannotCreate(p): "cannot create capture '\(p)': check that the folder exists and is writable"
        case let .malformed(p, o, r): "\(p): malformed btsnoop at byte \(o): \(r)"
        }
    }
}
