import VitalSimCore

/// Record Access Control Point 0x2A52: Op Code, Operator, Operand.
public struct RecordAccessControlPoint: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A52
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "record-access-control-point"

    /// RACP opcodes.
    public enum OpCode: UInt8, Sendable, CaseIterable {
        case reportStoredRecords = 1
        case deleteStoredRecords, abortOperation, reportNumberOfStoredRecords, numberOfStoredRecordsResponse,
            responseCode
        var label: String {
            [
                "report-stored-records", "delete-stored-records", "abort-operation", "report-number-of-stored-records",
                "number-of-stored-records-response", "response-code",
            ][Int(rawValue) - 1]
        }
    }

    /// RACP operators.
    public enum Operator: UInt8, Sendable, CaseIterable {
        case null = 0
        case allRecords, lessOrEqual, greaterOrEqual, withinRange, firstRecord, lastRecord
        var label: String {
            [
                "null", "all-records", "less-or-equal", "greater-or-equal", "within-range", "first-record",
                "last-record",
            ][Int(rawValue)]
        }
    }

    /// Response Code values (operand byte 2 of a Response Code).
    public enum ResponseCode: UInt8, Sendable, CaseIterable {
        case success = 1
        case opCodeNotSupported, invalidOperator, operatorNotSupported, invalidOperand, noRecordsFound,
            abortUnsuccessful, procedureNotCompleted, operandNotSupported
    }

    /// The procedure.
    public var opCode: OpCode
    /// The operator.
    public var op: Operator
    /// The operand bytes (filter type and values, or a response).
    public var operand: [UInt8]

    /// A request or response.
    public init(opCode: OpCode, op: Operator, operand: [UInt8] = []) {
        self.opCode = opCode
        self.op = op
        self.operand = operand
    }

    /// Report all stored records.
    public static let reportAll = RecordAccessControlPoint(opCode: .reportStoredRecords, op: .allRecords)
    /// Report records with sequence number ≥ `n` (GLS filter type 0x01).
    public static func report(fromSequence n: UInt16) -> Self {
        Self(opCode: .reportStoredRecords, op: .greaterOrEqual, operand: [1, UInt8(n & 0xFF), UInt8(n >> 8)])
    }
    /// Report the number of all stored records.
    public static let reportNumberOfAll = RecordAccessControlPoint(
        opCode: .reportNumberOfStoredRecords,
        op: .allRecords
    )
    /// Abort the running operation.
    public static let abort = RecordAccessControlPoint(opCode: .abortOperation, op: .null)
    /// A Response Code indication for `request`.
    public static func response(to request: OpCode, _ code: ResponseCode) -> Self {
        Self(opCode: .responseCode, op: .null, operand: [request.rawValue, code.rawValue])
    }
    /// A Number of Stored Records response.
    public static func numberOfRecords(_ n: UInt16) -> Self {
        Self(opCode: .numberOfStoredRecordsResponse, op: .null, operand: [UInt8(n & 0xFF), UInt8(n >> 8)])
    }

    /// The sequence-number filter operand (filter type 0x01) of a request, if present.
    public var sequenceFilter: UInt16? {
        guard operand.count == 3, operand[0] == 1 else { return nil }
        return UInt16(operand[1]) | UInt16(operand[2]) << 8
    }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> RecordAccessControlPoint {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let oc = try reader.u8("Op Code")
        guard let opCode = OpCode(rawValue: oc) else {
            throw .invalidValue(
                characteristic: name,
                offset: 0,
                field: "Op Code",
                reason: "0x\(String(oc, radix: 16)) is reserved; valid 0x01...0x06"
            )
        }
        let opcode = try reader.u8("Operator")
        guard let op = Operator(rawValue: opcode) else {
            throw .invalidValue(
                characteristic: name,
                offset: 1,
                field: "Operator",
                reason: "0x\(String(opcode, radix: 16)) is reserved; valid 0x00...0x06"
            )
        }
        let operand = reader.rest()
        try validate(opCode, op, operand)
        return Self(opCode: opCode, op: op, operand: operand)
    }

    /// The operator and operand each response and Abort must have.
    static func validate(_ opCode: OpCode, _ op: Operator, _ operand: [UInt8]) throws(GATTError) {
        switch opCode {
        case .responseCode:
            try requireNull(op, "a Response Code uses the Null operator")
            try requireTwoBytes(operand, field: "Response Code operand")
            guard OpCode(rawValue: operand[0]) != nil else {
                throw .invalidValue(
                    characteristic: name,
                    offset: 2,
                    field: "Request Op Code",
                    reason: "\(operand[0]) is not an op code"
                )
            }
            guard ResponseCode(rawValue: operand[1]) != nil else {
                throw .invalidValue(
                    characteristic: name,
                    offset: 3,
                    field: "Response Code Value",
                    reason: "\(operand[1]) is reserved; valid 1...9"
                )
            }
        case .numberOfStoredRecordsResponse:
            try requireNull(op, "a Number of Stored Records response uses the Null operator")
            try requireTwoBytes(operand, field: "Number of Stored Records")
        case .abortOperation:
            try requireNull(op, "Abort uses the Null operator")
        default: break
        }
    }

    private static func requireNull(_ op: Operator, _ reason: String) throws(GATTError) {
        guard op == .null else {
            throw .invalidValue(characteristic: name, offset: 1, field: "Operator", reason: reason)
        }
    }

    private static func requireTwoBytes(_ operand: [UInt8], field: String) throws(GATTError) {
        guard operand.count == 2 else {
            throw operand.count < 2
                ? .truncated(
                    characteristic: name,
                    offset: 2 + operand.count,
                    field: field,
                    needed: 2 - operand.count,
                    available: 0
                )
                : .trailingBytes(characteristic: name, offset: 4, count: operand.count - 2)
        }
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] { [opCode.rawValue, op.rawValue] + operand }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var members: [(String, JSONValue)] = [
            ("opCode", .int(Int64(opCode.rawValue))), ("opCodeName", .string(opCode.label)),
            ("operator", .int(Int64(op.rawValue))), ("operatorName", .string(op.label)),
        ]
        switch opCode {
        case .responseCode where operand.count == 2:
            members += [("requestOpCode", .int(Int64(operand[0]))), ("responseCode", .int(Int64(operand[1])))]
        case .numberOfStoredRecordsResponse where operand.count == 2:
            members.append(("numberOfRecords", .int(Int64(UInt16(operand[0]) | UInt16(operand[1]) << 8))))
        default:
            if let filter = sequenceFilter {
                members += [("filterType", .int(1)), ("sequenceNumber", .int(Int64(filter)))]
            } else if !operand.isEmpty {
                members.append(("operand", .string(Hex.encode(operand))))
            }
        }
        return .object(members)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        let oc = try fieldInput.int("opCode", 1...6)
        let op = try fieldInput.int("operator", 0...6, default: 0)
        var operand = try fieldInput.bytes("operand")
        if fieldInput.has("sequenceNumber") {
            let start = try fieldInput.int("sequenceNumber", 0...65535)
            operand = [1, UInt8(start & 0xFF), UInt8(start >> 8)]
        }
        if fieldInput.has("requestOpCode") {
            operand = [
                UInt8(try fieldInput.int("requestOpCode", 1...6)), UInt8(try fieldInput.int("responseCode", 1...9)),
            ]
        }
        if fieldInput.has("numberOfRecords") {
            let count = try fieldInput.int("numberOfRecords", 0...65535)
            operand = [UInt8(count & 0xFF), UInt8(count >> 8)]
        }
        self.init(opCode: OpCode(rawValue: UInt8(oc))!, op: Operator(rawValue: UInt8(op))!, operand: operand)
        try fieldInput.finish(known: [
            "opCode", "operator", "operand", "sequenceNumber", "requestOpCode", "responseCode", "numberOfRecords",
        ])
        _ = try Self.decode(try encode())
    }
}
