import Foundation

/// One btsnoop record.
package struct BTSnoopRecord: Equatable, Sendable {
    package var flags: UInt32
    package var unixMicroseconds: Int64
    /// The H4 packet, type byte first.
    package var packet: [UInt8]
}

/// Reads btsnoop v1 (H4) files, rejecting malformed ones with the byte offset of the problem.
package enum BTSnoopReader {
    package static func read(path: String) throws(CaptureError) -> [BTSnoopRecord] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .malformed(path: path, offset: 0, reason: "cannot read the file")
        }
        return try parse([UInt8](data), path: path)
    }

    package static func parse(_ b: [UInt8], path: String) throws(CaptureError) -> [BTSnoopRecord] {
        guard b.count >= 16, Array(b[0..<8]) == Array("btsnoop".utf8) + [0] else {
            throw .malformed(path: path, offset: 0, reason: "missing btsnoop magic")
        }
        guard be32(b, 8) == 1 else { throw .malformed(path: path, offset: 8, reason: "version \(be32(b, 8)) is not 1") }
        guard be32(b, 12) == 1002 else {
            throw .malformed(path: path, offset: 12, reason: "datalink \(be32(b, 12)) is not H4 (1002)")
        }
        var out: [BTSnoopRecord] = []
        var members = 16
        while members < b.count {
            guard members + 24 <= b.count else {
                throw .malformed(path: path, offset: members, reason: "truncated record header")
            }
            let included = Int(be32(b, members + 4))
            guard members + 24 + included <= b.count else {
                throw .malformed(path: path, offset: members, reason: "record of \(included) bytes runs past the end")
            }
            var ts: UInt64 = 0
            for i in 0..<8 { ts = ts << 8 | UInt64(b[members + 16 + i]) }
            // µs since year 0; a value beyond Int64 (a hostile or damaged header) is not a time.
            let (unix, overflow) = Int64(bitPattern: ts).subtractingReportingOverflow(BTSnoopWriter.unixEpochOffset)
            guard ts <= UInt64(Int64.max), !overflow else {
                throw .malformed(path: path, offset: members + 16, reason: "time stamp \(ts) µs is out of range")
            }
            out.append(
                BTSnoopRecord(
                    flags: be32(b, members + 8),
                    unixMicroseconds: unix,
                    packet: Array(b[(members + 24)..<(members + 24 + included)])
                )
            )
            members += 24 + included
        }
        return out
    }

    static func be32(_ b: [UInt8], _ members: Int) -> UInt32 {
        UInt32(b[members]) << 24 | UInt32(b[members + 1]) << 16 | UInt32(b[members + 2]) << 8 | UInt32(b[members + 3])
    }
}
