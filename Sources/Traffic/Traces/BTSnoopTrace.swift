import Bluetooth
import Foundation
import VitalSimCore

/// A btsnoop capture (v1, H4 datalink 1002: Android's HCI snoop log, Wireshark, bumble, VitalSim's
/// own captures): the traced device's measurement notifications and indications. ACL fragments are
/// reassembled per connection; each value handle's characteristic is found from the capture's
/// characteristic discovery (ATT Read By Type responses), or is the trace's `handle`. Values are
/// decoded with VitalSim's GATT decoders and placed at the measurement's own time stamp where it
/// has one (read as UTC), else at the capture time (a CGM record: the notification's time less the
/// minutes between its time offset and the last record's).
enum BTSnoopTrace {
    /// The measurement characteristics a device type sends.
    static func characteristics(_ type: DeviceType) -> Set<UInt16> {
        switch type {
        case .heartRateStrap: [0x2A37]
        case .bpCuff: [0x2A35]
        case .glucometer: [0x2A18]
        case .cgm: [0x2AA7]
        case .pulseOximeter: [0x2A5E, 0x2A5F]
        case .thermometer: [0x2A1C]
        case .weightScale: [0x2A9D]
        case .phoneBridge, .respirationMonitor, .feedingLog, .symptomDiary, .ecgWatch, .equipmentLog: []
        }
    }

    static func samples(
        _ bytes: [UInt8],
        trace: DeviceTrace,
        type: DeviceType
    ) throws(ScenarioLoadError) -> [TraceSample] {
        var problems = TraceProblems(trace)
        let wanted = characteristics(type)
        guard !wanted.isEmpty else {
            problems.fail(
                line: 0,
                field: "",
                "a \(type.rawValue) has no Bluetooth measurement characteristic to take from a capture"
            )
            throw ScenarioLoadError(issues: problems.issues)
        }
        let records: [BTSnoopRecord]
        do { records = try BTSnoopReader.parse(bytes, path: trace.path) } catch {
            problems.fail(line: 0, field: "", error.description)
            throw ScenarioLoadError(issues: problems.issues)
        }
        var link = ATTReassembly()
        var out: [TraceSample] = []
        for (i, record) in records.enumerated() {
            guard let (connection, pdu) = link.attPDU(record.packet), let opcode = pdu.first else { continue }
            if opcode == 0x09 {
                link.learnDeclarations(pdu, connection: connection)
                continue
            }
            guard opcode == 0x1B || opcode == 0x1D, pdu.count >= 3 else { continue }
            let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
            // The trace's `handle` names the measurement where the capture holds no discovery (a pulse
            // oximeter's: the characteristic the discovery names, else the spot-check one).
            let discovered = link.characteristic(connection, handle)
            let uuid =
                trace.handle == Int(handle)
                ? (discovered.flatMap { wanted.contains($0) ? $0 : nil } ?? wanted.sorted()[0]) : discovered
            guard let uuid, wanted.contains(uuid) else { continue }
            do throws(GATTError) {
                out += try GATTTraceValue.samples(
                    uuid,
                    Array(pdu[3...]),
                    capturedAt: record.unixMicroseconds / 1000,
                    record: i + 1
                )
            } catch {
                problems.fail(line: i + 1, field: String(format: "0x%04X", uuid), "record \(i + 1): \(error)")
            }
        }
        try problems.check()
        return out
    }
}

/// ACL reassembly to ATT PDUs, and the characteristic of each value handle learnt from discovery.
struct ATTReassembly {
    var pending: [UInt16: [UInt8]] = [:]
    var declared: [UInt32: UInt16] = [:]

    /// The ATT PDU an H4 packet completes (with its connection handle), if any.
    mutating func attPDU(_ packet: [UInt8]) -> (UInt16, [UInt8])? {
        guard packet.count >= 5, packet[0] == 0x02 else { return nil }
        let header = UInt16(packet[1]) | UInt16(packet[2]) << 8
        let connection = header & 0x0FFF
        let boundary = (header >> 12) & 0x3
        let data = Array(packet[5...])
        var buffer: [UInt8]
        if boundary == 0x1 {
            guard let started = pending[connection] else { return nil }
            buffer = started + data
        } else {
            buffer = data
        }
        guard buffer.count >= 4 else {
            pending[connection] = buffer
            return nil
        }
        let length = Int(buffer[0]) | Int(buffer[1]) << 8
        guard buffer.count >= 4 + length else {
            pending[connection] = buffer
            return nil
        }
        pending[connection] = nil
        let channel = UInt16(buffer[2]) | UInt16(buffer[3]) << 8
        return channel == 0x0004 ? (connection, Array(buffer[4..<(4 + length)])) : nil
    }

    /// Characteristic declarations in a Read By Type response (16-bit UUIDs, or 128-bit ones on
    /// the Bluetooth base UUID).
    mutating func learnDeclarations(_ pdu: [UInt8], connection: UInt16) {
        guard pdu.count >= 2 else { return }
        let size = Int(pdu[1])
        guard size == 7 || size == 21 else { return }
        var members = 2
        while members + size <= pdu.count {
            let valueHandle = UInt16(pdu[members + 3]) | UInt16(pdu[members + 4]) << 8
            let uuid = UInt16(pdu[members + 5]) | UInt16(pdu[members + 6]) << 8
            let base: [UInt8] = [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00]
            if size == 7 {
                declared[UInt32(connection) << 16 | UInt32(valueHandle)] = uuid
            } else if Array(pdu[(members + 5)..<(members + 17)]) == base {
                declared[UInt32(connection) << 16 | UInt32(valueHandle)] =
                    UInt16(pdu[members + 17]) | UInt16(pdu[members + 18]) << 8
            }
            members += size
        }
    }

    func characteristic(_ connection: UInt16, _ handle: UInt16) -> UInt16? {
        declared[UInt32(connection) << 16 | UInt32(handle)]
    }
}
