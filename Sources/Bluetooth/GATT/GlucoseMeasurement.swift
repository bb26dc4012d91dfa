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
        var r = try ByteReader(value: bytes, characteristic: name)
        let flags = try r.u8("Flags")
        try r.checkReserved(UInt32(flags), allowed: 0x1F, field: "Flags", at: 0)
        var v = GlucoseMeasurement(sequenceNumber: try r.u16("Sequence Number"), baseTime: try r.dateTime("Base Time"))
        v.unitsMolPerL = flags & 0x04 != 0
        v.contextFollows = flags & 0x10 != 0
        v.type = 0
        v.sampleLocation = 0
        if flags & 0x01 != 0 { v.timeOffset = Int16(bitPattern: try r.u16("Time Offset")) }
        if flags & 0x02 != 0 {
            v.concentration = try r.sfloat("Glucose Concentration")
            let at = r.offset
            let ts = try r.u8("Type-Sample Location")
            v.type = ts & 0x0F
            v.sampleLocation = ts >> 4
            if !(1...10).contains(v.type) {
                throw .invalidValue(
                    characteristic: name,
                    offset: at,
                    field: "Type",
                    reason: "\(v.type) is reserved; valid 1...10"
                )
            }
            if !((1...4).contains(v.sampleLocation) || v.sampleLocation == 15) {
                throw .invalidValue(
                    characteristic: name,
                    offset: at,
                    field: "Sample Location",
                    reason: "\(v.sampleLocation) is reserved; valid 1...4, 15"
                )
            }
        }
        if flags & 0x08 != 0 {
            let at = r.offset
            let s = try r.u16("Sensor Status Annunciation")
            try r.checkReserved(UInt32(s), allowed: 0x0FFF, field: "Sensor Status Annunciation", at: at)
            v.status = s
        }
        try r.finish()
        return v
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        var w = ByteWriter(capacity: 17)
        var flags: UInt8 = unitsMolPerL ? 0x04 : 0
        if timeOffset != nil { flags |= 0x01 }
        if concentration != nil { flags |= 0x02 }
        if status != nil { flags |= 0x08 }
        if contextFollows { flags |= 0x10 }
        w.u8(flags)
        w.u16(sequenceNumber)
        w.dateTime(baseTime)
        if let t = timeOffset { w.u16(UInt16(bitPattern: t)) }
        if let c = concentration {
            guard type <= 15, sampleLocation <= 15 else {
                throw .unencodable(
                    characteristic: Self.name,
                    field: "type/sampleLocation",
                    reason: "each is a 4-bit nibble"
                )
            }
            w.sfloat(c)
            w.u8(type | sampleLocation << 4)
        }
        if let s = status { w.u16(s) }
        return w.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var o: [(String, JSONValue)] = [
            ("sequenceNumber", .int(Int64(sequenceNumber))), ("baseTime", .string(baseTime.iso8601)),
        ]
        if let t = timeOffset { o.append(("timeOffset", .int(Int64(t)))) }
        if let c = concentration {
            o += c.jsonFields("concentration")
            o.append(("unit", .string(unitsMolPerL ? "mol/L" : "kg/L")))
            if let mg = milligramsPerDeciliter { o.append(("mgPerDL", .double((mg * 1000).rounded() / 1000))) }
            o.append(("type", .int(Int64(type))))
            o.append(("sampleLocation", .int(Int64(sampleLocation))))
        } else if unitsMolPerL {
            o.append(("unit", .string("mol/L")))
        }
        if let s = status { o.append(("sensorStatus", .int(Int64(s)))) }
        o.append(("contextFollows", .bool(contextFollows)))
        return .object(o)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields f: FieldInput) throws(GATTError) {
        guard let base = try f.dateTime("baseTime") else {
            throw f.fail("baseTime", "required; give --base-time 2024-05-17T10:30:00")
        }
        self.init(sequenceNumber: UInt16(try f.int("sequenceNumber", 0...65535)), baseTime: base)
        timeOffset = try f.optionalInt("timeOffset", -32768...32767).map { Int16($0) }
        if f.has("mgPerDL") {
            let mg = try f.int("mgPerDL", 0...2045)
            concentration = SFloat(mantissa: mg, exponent: -5)
        } else {
            concentration = try f.optionalSFloat("concentration")
        }
        unitsMolPerL = try f.choice("unit", ["kg/L", "mol/L"], default: "kg/L") == "mol/L"
        type = UInt8(try f.int("type", 1...10, default: 2))
        sampleLocation = UInt8(try f.int("sampleLocation", 1...15, default: 1))
        status = try f.optionalInt("sensorStatus", 0...0x0FFF).map { UInt16($0) }
        contextFollows = try f.bool("contextFollows")
        try f.finish(known: [
            "sequenceNumber", "baseTime", "timeOffset", "concentration", "mgPerDL", "unit", "type", "sampleLocation",
            "sensorStatus",
            "contextFollows",
        ])
    }
}
