import VitalSimCore

/// Glucose Measurement 0x2A18 (Glucose Service, notify).
public struct GlucoseMeasurement: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A18
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "glucose-measurement"

    /// The record's sequence number.
    public var sequenceNumber: UInt16
    /// The base time of the record.
    public var baseTime: DateTime
    /// Minutes, signed (flags bit 0).
    public var timeOffset: Int16?
    /// Concentration in kg/L or, with `unitsMolPerL`, mol/L (flags bit 1).
    public var concentration: SFloat?
    /// Flags bit 2. Meaningful only with a concentration; kept for byte-exactness.
    public var unitsMolPerL: Bool
    /// Type (low nibble): 1 capillary whole blood … 10 control solution.
    public var type: UInt8
    /// Sample Location (high nibble): 1 finger, 2 AST, 3 earlobe, 4 control solution, 15 not available.
    public var sampleLocation: UInt8
    /// Sensor Status Annunciation bits 0–11 (flags bit 3).
    public var status: UInt16?
    /// Flags bit 4: a Glucose Measurement Context with the same sequence number follows.
    public var contextFollows: Bool

    /// A record with the fields given; absent optional fields are left out of the encoding.
    public init(
        sequenceNumber: UInt16,
        baseTime: DateTime,
        timeOffset: Int16? = nil,
        concentration: SFloat? = nil,
        unitsMolPerL: Bool = false,
        type: UInt8 = 2,
        sampleLocation: UInt8 = 1,
        status: UInt16? = nil,
        contextFollows: Bool = false
    ) {
        self.sequenceNumber = sequenceNumber
        self.baseTime = baseTime
        self.timeOffset = timeOffset
        self.concentration = concentration
        self.unitsMolPerL = unitsMolPerL
        self.type = type
        self.sampleLocation = sampleLocation
        self.status = status
        self.contextFollows = contextFollows
    }

    /// Concentration in mg/dL (kg/L × 10^5, or mol/L × 1000 × 18.016), nil when absent or special.
    public var milligramsPerDeciliter: Double? {
        guard let c = concentration, c.special == nil else { return nil }
        return unitsMolPerL ? c.value * 1000 * 18.016 : c.value * 100_000
    }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> GlucoseMeasurement {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let flags = try reader.u8("Flags")
        try reader.checkReserved(UInt32(flags), allowed: 0x1F, field: "Flags", at: 0)
        var glucoseMeasurement = GlucoseMeasurement(
            sequenceNumber: try reader.u16("Sequence Number"),
            baseTime: try reader.dateTime("Base Time")
        )
        glucoseMeasurement.unitsMolPerL = flags & 0x04 != 0
        glucoseMeasurement.contextFollows = flags & 0x10 != 0
        glucoseMeasurement.type = 0
        glucoseMeasurement.sampleLocation = 0
        if flags & 0x01 != 0 { glucoseMeasurement.timeOffset = Int16(bitPattern: try reader.u16("Time Offset")) }
        if flags & 0x02 != 0 {
            glucoseMeasurement.concentration = try reader.sfloat("Glucose Concentration")
            let at = reader.offset
            let ts = try reader.u8("Type-Sample Location")
            glucoseMeasurement.type = ts & 0x0F
            glucoseMeasurement.sampleLocation = ts >> 4
            if !(1...10).contains(glucoseMeasurement.type) {
                throw .invalidValue(
                    characteristic: name,
                    offset: at,
                    field: "Type",
                    reason: "\(glucoseMeasurement.type) is reserved; valid 1...10"
                )
            }
            if !((1...4).contains(glucoseMeasurement.sampleLocation) || glucoseMeasurement.sampleLocation == 15) {
                throw .invalidValue(
                    characteristic: name,
                    offset: at,
                    field: "Sample Location",
                    reason: "\(glucoseMeasurement.sampleLocation) is reserved; valid 1...4, 15"
                )
            }
        }
        if flags & 0x08 != 0 {
            let at = reader.offset
            let status = try reader.u16("Sensor Status Annunciation")
            try reader.checkReserved(UInt32(status), allowed: 0x0FFF, field: "Sensor Status Annunciation", at: at)
            glucoseMeasurement.status = status
        }
        try reader.finish()
        return glucoseMeasurement
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        var writer = ByteWriter(capacity: 17)
        var flags: UInt8 = unitsMolPerL ? 0x04 : 0
        if timeOffset != nil { flags |= 0x01 }
        if concentration != nil { flags |= 0x02 }
        if status != nil { flags |= 0x08 }
        if contextFollows { flags |= 0x10 }
        writer.u8(flags)
        writer.u16(sequenceNumber)
        writer.dateTime(baseTime)
        if let timeOffset { writer.u16(UInt16(bitPattern: timeOffset)) }
        if let c = concentration {
            guard type <= 15, sampleLocation <= 15 else {
                throw .unencodable(
                    characteristic: Self.name,
                    field: "type/sampleLocation",
                    reason: "each is a 4-bit nibble"
                )
            }
            writer.sfloat(c)
            writer.u8(type | sampleLocation << 4)
        }
        if let status { writer.u16(status) }
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var members: [(String, JSONValue)] = [
            ("sequenceNumber", .int(Int64(sequenceNumber))), ("baseTime", .string(baseTime.iso8601)),
        ]
        if let timeOffset { members.append(("timeOffset", .int(Int64(timeOffset)))) }
        if let c = concentration {
            members += c.jsonFields("concentration")
            members.append(("unit", .string(unitsMolPerL ? "mol/L" : "kg/L")))
            if let mg = milligramsPerDeciliter { members.append(("mgPerDL", .double((mg * 1000).rounded() / 1000))) }
            members.append(("type", .int(Int64(type))))
            members.append(("sampleLocation", .int(Int64(sampleLocation))))
        } else if unitsMolPerL {
            members.append(("unit", .string("mol/L")))
        }
        if let status { members.append(("sensorStatus", .int(Int64(status)))) }
        members.append(("contextFollows", .bool(contextFollows)))
        return .object(members)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        guard let base = try fieldInput.dateTime("baseTime") else {
            throw fieldInput.fail("baseTime", "required, e.g. 2024-05-17T10:30:00")
        }
        self.init(sequenceNumber: UInt16(try fieldInput.int("sequenceNumber", 0...65535)), baseTime: base)
        timeOffset = try fieldInput.optionalInt("timeOffset", -32768...32767).map { Int16($0) }
        if fieldInput.has("mgPerDL") {
            let mg = try fieldInput.int("mgPerDL", 0...2045)
            concentration = SFloat(mantissa: mg, exponent: -5)
        } else {
            concentration = try fieldInput.optionalSFloat("concentration")
        }
        unitsMolPerL = try fieldInput.choice("unit", ["kg/L", "mol/L"], default: "kg/L") == "mol/L"
        type = UInt8(try fieldInput.int("type", 1...10, default: 2))
        sampleLocation = UInt8(try fieldInput.int("sampleLocation", 1...15, default: 1))
        status = try fieldInput.optionalInt("sensorStatus", 0...0x0FFF).map { UInt16($0) }
        contextFollows = try fieldInput.bool("contextFollows")
        try fieldInput.finish(known: [
            "sequenceNumber", "baseTime", "timeOffset", "concentration", "mgPerDL", "unit", "type", "sampleLocation",
            "sensorStatus",
            "contextFollows",
        ])
    }
}
