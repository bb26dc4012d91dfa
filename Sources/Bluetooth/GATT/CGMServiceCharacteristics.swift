import VitalSimCore

/// CGM Feature 0x2AA8: 24-bit feature bits, Type-Sample Location, E2E-CRC (0xFFFF when CRC is not supported).
public struct CGMFeature: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2AA8
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "cgm-feature"
    /// Bit 12: E2E-CRC supported.
    public static let e2eCRCSupported: UInt32 = 1 << 12
    /// The CGM Feature bits.
    public var features: UInt32
    /// Type (low nibble; 9 = interstitial fluid) and Sample Location (high nibble; 5 = subcutaneous tissue).
    public var type: UInt8
    /// Sample location (upper nibble of the type/location octet).
    public var sampleLocation: UInt8

    /// A value with the fields given.
    public init(features: UInt32, type: UInt8 = 9, sampleLocation: UInt8 = 5) {
        self.features = features
        self.type = type
        self.sampleLocation = sampleLocation
    }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> CGMFeature {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let features = try reader.u24("CGM Feature")
        try reader.checkReserved(features, allowed: 0x01FFFF, field: "CGM Feature", at: 0)
        let ts = try reader.u8("Type-Sample Location")
        let crc = try reader.u16("E2E-CRC")
        try reader.finish()
        if features & e2eCRCSupported != 0 {
            let computed = CRC16.mcrf4xx(bytes[0..<4])
            guard computed == crc else {
                throw .crcMismatch(characteristic: name, offset: 4, expected: computed, found: crc)
            }
        } else if crc != 0xFFFF {
            throw .invalidValue(
                characteristic: name,
                offset: 4,
                field: "E2E-CRC",
                reason: "must be 0xFFFF when E2E-CRC is not supported"
            )
        }
        return CGMFeature(features: features, type: ts & 0x0F, sampleLocation: ts >> 4)
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        var writer = ByteWriter()
        writer.u24(features)
        writer.u8(type & 0x0F | sampleLocation << 4)
        writer.u16(features & Self.e2eCRCSupported != 0 ? CRC16.mcrf4xx(writer.bytes) : 0xFFFF)
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        .object([
            ("features", .int(Int64(features))), ("e2eCRCSupported", .bool(features & Self.e2eCRCSupported != 0)),
            ("type", .int(Int64(type))), ("sampleLocation", .int(Int64(sampleLocation))),
        ])
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        self.init(
            features: UInt32(try fieldInput.int("features", 0...0x01FFFF)),
            type: UInt8(try fieldInput.int("type", 0...15, default: 9)),
            sampleLocation: UInt8(try fieldInput.int("sampleLocation", 0...15, default: 5))
        )
        try fieldInput.finish(known: ["features", "type", "sampleLocation"])
    }
}

/// CGM Status 0x2AA9: Time Offset, 3 annunciation octets, optional E2E-CRC.
public struct CGMStatus: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2AA9
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "cgm-status"
    /// Minutes since the session start.
    public var timeOffset: UInt16
    /// Status (bits 0–7), Cal/Temp (8–15), Warning (16–23).
    public var annunciation: UInt32
    /// Whether the value carries an E2E-CRC.
    public var hasCRC: Bool

    /// A value with the fields given.
    public init(timeOffset: UInt16, annunciation: UInt32, hasCRC: Bool = true) {
        self.timeOffset = timeOffset
        self.annunciation = annunciation
        self.hasCRC = hasCRC
    }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> CGMStatus {
        var reader = try ByteReader(value: bytes, characteristic: name)
        var cgmStatus = CGMStatus(
            timeOffset: try reader.u16("Time Offset"),
            annunciation: try reader.u24("Sensor Status Annunciation"),
            hasCRC: false
        )
        if reader.remaining == 2 {
            let crc = CRC16.mcrf4xx(bytes[0..<5])
            let found = try reader.u16("E2E-CRC")
            guard crc == found else { throw .crcMismatch(characteristic: name, offset: 5, expected: crc, found: found) }
            cgmStatus.hasCRC = true
        }
        try reader.finish()
        return cgmStatus
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        var writer = ByteWriter()
        writer.u16(timeOffset)
        writer.u24(annunciation)
        if hasCRC { writer.u16(CRC16.mcrf4xx(writer.bytes)) }
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        .object([
            ("timeOffset", .int(Int64(timeOffset))), ("annunciation", .int(Int64(annunciation))),
            ("e2eCRC", .bool(hasCRC)),
        ])
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        self.init(
            timeOffset: UInt16(try fieldInput.int("timeOffset", 0...65535)),
            annunciation: UInt32(try fieldInput.int("annunciation", 0...0xFF_FFFF)),
            hasCRC: fieldInput.has("e2eCRC") ? try fieldInput.bool("e2eCRC") : true
        )
        try fieldInput.finish(known: ["timeOffset", "annunciation", "e2eCRC"])
    }
}

/// CGM Session Start Time 0x2AAA: Date Time, Time Zone (15-minute steps), DST Offset, optional E2E-CRC.
public struct CGMSessionStartTime: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2AAA
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "cgm-session-start-time"
    /// The session start time.
    public var start: DateTime
    /// Time zone in 15-minute steps from UTC.
    public var timeZone: Int8
    /// DST offset code (0 standard time, 2 half an hour, 4 one hour, 8 two hours).
    public var dstOffset: UInt8
    /// Whether the value carries an E2E-CRC.
    public var hasCRC: Bool

    /// A value with the fields given.
    public init(start: DateTime, timeZone: Int8 = 0, dstOffset: UInt8 = 0, hasCRC: Bool = true) {
        self.start = start
        self.timeZone = timeZone
        self.dstOffset = dstOffset
        self.hasCRC = hasCRC
    }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> CGMSessionStartTime {
        var reader = try ByteReader(value: bytes, characteristic: name)
        var cgmSessionStartTime = CGMSessionStartTime(
            start: try reader.dateTime("Session Start Time"),
            timeZone: Int8(bitPattern: try reader.u8("Time Zone")),
            dstOffset: try reader.u8("DST Offset"),
            hasCRC: false
        )
        guard (-48...56).contains(cgmSessionStartTime.timeZone) || cgmSessionStartTime.timeZone == -128 else {
            throw .invalidValue(
                characteristic: name,
                offset: 7,
                field: "Time Zone",
                reason: "\(cgmSessionStartTime.timeZone) outside -48...56 (-128 unknown)"
            )
        }
        guard [0, 2, 4, 8, 255].contains(cgmSessionStartTime.dstOffset) else {
            throw .invalidValue(
                characteristic: name,
                offset: 8,
                field: "DST Offset",
                reason: "\(cgmSessionStartTime.dstOffset) is reserved; valid 0, 2, 4, 8, 255"
            )
        }
        if reader.remaining == 2 {
            let crc = CRC16.mcrf4xx(bytes[0..<9])
            let found = try reader.u16("E2E-CRC")
            guard crc == found else { throw .crcMismatch(characteristic: name, offset: 9, expected: crc, found: found) }
            cgmSessionStartTime.hasCRC = true
        }
        try reader.finish()
        return cgmSessionStartTime
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        var writer = ByteWriter()
        writer.dateTime(start)
        writer.u8(UInt8(bitPattern: timeZone))
        writer.u8(dstOffset)
        if hasCRC { writer.u16(CRC16.mcrf4xx(writer.bytes)) }
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        .object([
            ("start", .string(start.iso8601)), ("timeZone", .int(Int64(timeZone))),
            ("dstOffset", .int(Int64(dstOffset))),
            ("e2eCRC", .bool(hasCRC)),
        ])
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        guard let s = try fieldInput.dateTime("start") else {
            throw fieldInput.fail("start", "required, e.g. 2024-11-07T00:00:00")
        }
        self.init(
            start: s,
            timeZone: Int8(try fieldInput.int("timeZone", -128...56, default: 0)),
            dstOffset: UInt8(try fieldInput.int("dstOffset", 0...255, default: 0)),
            hasCRC: fieldInput.has("e2eCRC") ? try fieldInput.bool("e2eCRC") : true
        )
        try fieldInput.finish(known: ["start", "timeZone", "dstOffset", "e2eCRC"])
    }
}

/// CGM Specific Ops Control Point 0x2AAC: Op Code and operand bytes (any E2E-CRC is part of the operand here).
public struct CGMSpecificOpsControlPoint: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2AAC
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "cgm-specific-ops-control-point"
    /// The CGM Specific Ops opcode.
    public var opCode: UInt8
    /// The operand bytes.
    public var operand: [UInt8]
    /// A value with the fields given.
    public init(opCode: UInt8, operand: [UInt8] = []) {
        self.opCode = opCode
        self.operand = operand
    }
    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> Self {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let op = try reader.u8("Op Code")
        guard op != 0, op <= 0x1C else {
            throw .invalidValue(characteristic: name, offset: 0, field: "Op Code", reason: "\(op) is reserved")
        }
        return Self(opCode: op, operand: reader.rest())
    }
    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] { [opCode] + operand }
    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        .object([("opCode", .int(Int64(opCode))), ("operand", .string(Hex.encode(operand)))])
    }
    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        self.init(opCode: UInt8(try fieldInput.int("opCode", 1...0x1C)), operand: try fieldInput.bytes("operand"))
        try fieldInput.finish(known: ["opCode", "operand"])
    }
}
