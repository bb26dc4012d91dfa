import Bluetooth
import BluetoothHost
import Locking

/// Stored glucose records per device, served through the Record Access Control Point.
final class RecordStore: Sendable {
    private let records = Locked<[Int: [[(UInt16, [UInt8])]]]>([:])

    func store(_ payloads: [(UInt16, [UInt8])], device: Int) {
        records.withLock { $0[device, default: []].append(payloads) }
    }

    /// Answers a RACP request: report all / ≥ sequence number / first / last, number of records, abort.
    func serve(_ value: [UInt8], peripheral: HCIPeripheral, device: Int) {
        func indicate(_ answer: RecordAccessControlPoint) {
            _ = try? peripheral.send(RecordAccessControlPoint.uuid, (try? answer.encode()) ?? [], indicate: true)
        }
        guard let request = try? RecordAccessControlPoint.decode(value) else {
            let op = RecordAccessControlPoint.OpCode(rawValue: value.first ?? 0) ?? .reportStoredRecords
            return indicate(.response(to: op, .opCodeNotSupported))
        }
        if request.opCode == .abortOperation, request.op == .null {
            return indicate(.response(to: .abortOperation, .success))
        }
        let selected: [[(UInt16, [UInt8])]]
        switch select(request, from: records.withLock { $0[device] ?? [] }) {
        case let .success(records): selected = records
        case let .failure(refusal): return indicate(.response(to: request.opCode, refusal.code))
        }
        if request.opCode == .reportNumberOfStoredRecords {
            return indicate(.numberOfRecords(UInt16(clamping: selected.count)))
        }
        guard !selected.isEmpty else { return indicate(.response(to: .reportStoredRecords, .noRecordsFound)) }
        for record in selected {
            for (uuid, bytes) in record { _ = try? peripheral.send(uuid, bytes, indicate: false) }
        }
        indicate(.response(to: .reportStoredRecords, .success))
    }

    /// A RACP request this store cannot serve, with the response code it gets.
    struct Refusal: Error {
        var code: RecordAccessControlPoint.ResponseCode
    }

    /// The stored records a report request selects.
    func select(
        _ request: RecordAccessControlPoint,
        from stored: [[(UInt16, [UInt8])]]
    ) -> Result<[[(UInt16, [UInt8])]], Refusal> {
        switch (request.opCode, request.op) {
        case (.reportStoredRecords, .allRecords), (.reportNumberOfStoredRecords, .allRecords):
            return .success(stored)
        case (.reportStoredRecords, .greaterOrEqual), (.reportNumberOfStoredRecords, .greaterOrEqual):
            guard let first = request.sequenceFilter else { return .failure(Refusal(code: .operandNotSupported)) }
            return .success(stored.filter { Self.sequence(of: $0) >= first })
        case (.reportStoredRecords, .lastRecord): return .success(Array(stored.suffix(1)))
        case (.reportStoredRecords, .firstRecord): return .success(Array(stored.prefix(1)))
        default: return .failure(Refusal(code: .operatorNotSupported))
        }
    }

    /// The filter key of a record: GLS filters on the record's sequence number, CGMS on its time offset.
    static func sequence(of record: [(UInt16, [UInt8])]) -> UInt16 {
        guard let (uuid, bytes) = record.first else { return 0 }
        if uuid == CGMMeasurement.uuid { return bytes.count > 5 ? UInt16(bytes[4]) | UInt16(bytes[5]) << 8 : 0 }
        return bytes.count > 2 ? UInt16(bytes[1]) | UInt16(bytes[2]) << 8 : 0
    }
}
