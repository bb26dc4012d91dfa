import VitalSimCore

/// One record of a CGM Measurement 0x2AA7 value.
public struct CGMRecord: Equatable, Sendable {
    /// Glucose concentration, mg/dL.
    public var glucose: SFloat
    /// Minutes since the session start (also the record's sequence number).
    public var timeOffset: UInt16
    /// Sensor Status Annunciation octets; each is sent only when present (flags bits 7, 6, 5).
    public var status: UInt8?
    /// Sensor Status Annunciation, Cal/Temp octet, when present.
    public var calTemp: UInt8?
    /// Sensor Status Annunciation, Warning octet, when present.
    public var warning: UInt8?
    /// Trend, (mg/dL)/min (flags bit 0).
    public var trend: SFloat?
    /// Quality, % (flags bit 1).
    public var quality: SFloat?
    /// Append an E2E-CRC (CGM Feature bit 12).
    public var hasCRC: Bool

    /// A value with the fields given; absent optional fields are left out of the encoding.
    public init(
        glucose: SFloat,
        timeOffset: UInt16,
        status: UInt8? = nil,
        calTemp: UInt8? = nil,
        warning: UInt8? = nil,
        trend: SFloat? = nil,
        quality: SFloat? = nil,
        hasCRC: Bool = true
    ) {
        self.glucose = glucose
        self.timeOffset = timeOffset
        self.status = status
        self.calTemp = calTemp
        self.warning = warning
        self.trend = trend
        self.quality = quality
        self.hasCRC = hasCRC
    }

    var size: Int {
        6 + (status != nil ? 1 : 0) + (calTemp != nil ? 1 : 0) + (warning != nil ? 1 : 0) + (trend != nil ? 2 : 0)
            + (quality != nil ? 2 : 0) + (hasCRC ? 2 : 0)
    }

    func encode(into byteWriter: inout ByteWriter) {
        var body = ByteWriter(capacity: 15)
        var flags: UInt8 = 0
        if trend != nil { flags |= 0x01 }
        if quality != nil { flags |= 0x02 }
        if warning != nil { flags |= 0x20 }
        if calTemp != nil { flags |= 0x40 }
        if status != nil { flags |= 0x80 }
        body.u8(UInt8(size))
        body.u8(flags)
        body.sfloat(glucose)
        body.u16(timeOffset)
        // Wire order follows CGMS v1.0.1 Table 3.2 (Status, Cal/Temp, Warning); see docs/gatt.md.
        if let status { body.u8(status) }
        if let calTemp { body.u8(calTemp) }
        if let warning { body.u8(warning) }
        if let trend { body.sfloat(trend) }
        if let quality { body.sfloat(quality) }
        if hasCRC { body.u16(CRC16.mcrf4xx(body.bytes)) }
        byteWriter.append(body.bytes)
    }
}

/// CGM Measurement 0x2AA7 (CGM Service, notify): one or more size-prefixed records.
public struct CGMMeasurement: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2AA7
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "cgm-measurement"
    /// The records of the notification (one or more).
    public var records: [CGMRecord]

    /// A value with the fields given; absent optional fields are left out of the encoding.
    public init(records: [CGMRecord]) { self.records = records }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> CGMMeasurement {
        guard !bytes.isEmpty else {
            throw .truncated(characteristic: name, offset: 0, field: "Size", needed: 1, available: 0)
        }
        try ByteReader.checkLength(bytes, characteristic: name)
        var records: [CGMRecord] = []
        var start = 0
        while start < bytes.count {
            let size = Int(bytes[start])
            guard size >= 6 else {
                throw .invalidValue(
                    characteristic: name,
                    offset: start,
                    field: "Size",
                    reason: "\(size) is below the minimum record size 6"
                )
            }
            guard start + size <= bytes.count else {
                throw .truncated(
                    characteristic: name,
                    offset: bytes.count,
                    field: "record of Size \(size)",
                    needed: start + size - bytes.count,
                    available: 0
                )
            }
            let recordBytes = Array(bytes[start..<(start + size)])
            var reader = ByteReader(recordBytes, characteristic: name)
            _ = try reader.u8("Size")
            let flags = try reader.u8("Flags")
            try reader.checkReserved(UInt32(flags), allowed: 0xE3, field: "Flags", at: start + 1)
            var rec = CGMRecord(
                glucose: try reader.sfloat("CGM Glucose Concentration"),
                timeOffset: try reader.u16("Time Offset"),
                hasCRC: false
            )
            if flags & 0x80 != 0 { rec.status = try reader.u8("Sensor Status Annunciation (Status)") }
            if flags & 0x40 != 0 { rec.calTemp = try reader.u8("Sensor Status Annunciation (Cal/Temp)") }
            if flags & 0x20 != 0 { rec.warning = try reader.u8("Sensor Status Annunciation (Warning)") }
            if flags & 0x01 != 0 { rec.trend = try reader.sfloat("CGM Trend Information") }
            if flags & 0x02 != 0 { rec.quality = try reader.sfloat("CGM Quality") }
            switch reader.remaining {
            case 0: break
            case 2:
                let computed = CRC16.mcrf4xx(recordBytes[0..<reader.offset])
                let found = try reader.u16("E2E-CRC")
                guard computed == found else {
                    throw .crcMismatch(characteristic: name, offset: start + size - 2, expected: computed, found: found)
                }
                rec.hasCRC = true
            default:
                throw .invalidValue(
                    characteristic: name,
                    offset: start,
                    field: "Size",
                    reason:
                        "\(size) does not match the fields announced by the flags (\(reader.offset) bytes, or \(reader.offset + 2) with E2E-CRC)"
                )
            }
            if let status = rec.status, status & 0xC0 != 0 {
                throw .reservedBits(
                    characteristic: name,
                    offset: start + 6,
                    field: "Status octet",
                    value: UInt32(status & 0xC0)
                )
            }
            records.append(rec)
            start += size
        }
        return CGMMeasurement(records: records)
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        guard !records.isEmpty else {
            throw .unencodable(characteristic: Self.name, field: "records", reason: "at least one record is needed")
        }
        var writer = ByteWriter(capacity: 15 * records.count)
        for r in records { r.encode(into: &writer) }
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        let recs: [JSONValue] = records.map { r in
            var members = r.glucose.jsonFields("glucose") + [("timeOffset", .int(Int64(r.timeOffset)))]
            if let status = r.status { members.append(("status", .int(Int64(status)))) }
            if let calibration = r.calTemp { members.append(("calTemp", .int(Int64(calibration)))) }
            if let warning = r.warning { members.append(("warning", .int(Int64(warning)))) }
            if let trend = r.trend { members += trend.jsonFields("trend") }
            if let quality = r.quality { members += quality.jsonFields("quality") }
            members.append(("e2eCRC", .bool(r.hasCRC)))
            return .object(members)
        }
        if recs.count == 1, case let .object(members) = recs[0] { return .object(members) }
        return .object([("records", .array(recs))])
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        var cgmRecord = CGMRecord(
            glucose: try fieldInput.sfloat("glucose"),
            timeOffset: UInt16(try fieldInput.int("timeOffset", 0...65535))
        )
        cgmRecord.status = try fieldInput.optionalInt("status", 0...0x3F).map { UInt8($0) }
        cgmRecord.calTemp = try fieldInput.optionalInt("calTemp", 0...255).map { UInt8($0) }
        cgmRecord.warning = try fieldInput.optionalInt("warning", 0...255).map { UInt8($0) }
        cgmRecord.trend = try fieldInput.optionalSFloat("trend")
        cgmRecord.quality = try fieldInput.optionalSFloat("quality")
        cgmRecord.hasCRC = fieldInput.has("e2eCRC") ? try fieldInput.bool("e2eCRC") : true
        self.init(records: [cgmRecord])
        try fieldInput.finish(known: [
            "glucose", "timeOffset", "status", "calTemp", "warning", "trend", "quality", "e2eCRC",
        ])
    }
}
