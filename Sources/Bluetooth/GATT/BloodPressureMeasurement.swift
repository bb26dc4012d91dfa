import VitalSimCore

/// The shared layout of Blood Pressure Measurement 0x2A35 (indicate) and Intermediate Cuff Pressure 0x2A36 (notify).
public struct BloodPressureRecord: Equatable, Sendable {
    /// Flags bit 0: kPa rather than mmHg.
    public var unitsKPa: Bool
    /// Systolic pressure (mmHg, or kPa with the unit flag).
    public var systolic: SFloat
    /// Diastolic pressure (same unit).
    public var diastolic: SFloat
    /// Mean arterial pressure (same unit).
    public var meanArterial: SFloat
    /// The measurement's time stamp, when present.
    public var timestamp: DateTime?
    /// Pulse rate (beats per minute), when present.
    public var pulseRate: SFloat?
    /// The user id, when present (0xFF: unknown user).
    public var userID: UInt8?
    /// Measurement Status bits (bit 0 body movement, 1 cuff too loose, 2 irregular pulse, 3–4 pulse range, 5 position).
    public var status: UInt16?

    /// A record with the fields given; absent optional fields are left out of the encoding.
    public init(
        unitsKPa: Bool = false,
        systolic: SFloat,
        diastolic: SFloat,
        meanArterial: SFloat,
        timestamp: DateTime? = nil,
        pulseRate: SFloat? = nil,
        userID: UInt8? = nil,
        status: UInt16? = nil
    ) {
        self.unitsKPa = unitsKPa
        self.systolic = systolic
        self.diastolic = diastolic
        self.meanArterial = meanArterial
        self.timestamp = timestamp
        self.pulseRate = pulseRate
        self.userID = userID
        self.status = status
    }

    static func decode(_ bytes: [UInt8], name: String) throws(GATTError) -> BloodPressureRecord {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let flags = try reader.u8("Flags")
        try reader.checkReserved(UInt32(flags), allowed: 0x1F, field: "Flags", at: 0)
        let unit = flags & 1 != 0 ? "kPa" : "mmHg"
        var bloodPressureRecord = BloodPressureRecord(
            unitsKPa: flags & 1 != 0,
            systolic: try reader.sfloat("Systolic (\(unit))"),
            diastolic: try reader.sfloat("Diastolic (\(unit))"),
            meanArterial: try reader.sfloat("Mean Arterial Pressure (\(unit))")
        )
        if flags & 0x02 != 0 { bloodPressureRecord.timestamp = try reader.dateTime("Time Stamp") }
        if flags & 0x04 != 0 { bloodPressureRecord.pulseRate = try reader.sfloat("Pulse Rate") }
        if flags & 0x08 != 0 { bloodPressureRecord.userID = try reader.u8("User ID") }
        if flags & 0x10 != 0 {
            let at = reader.offset
            let status = try reader.u16("Measurement Status")
            try reader.checkReserved(UInt32(status), allowed: 0x003F, field: "Measurement Status", at: at)
            if (status >> 3) & 0x3 == 3 {
                throw .invalidValue(
                    characteristic: name,
                    offset: at,
                    field: "Measurement Status",
                    reason: "pulse rate range value 3 is reserved"
                )
            }
            bloodPressureRecord.status = status
        }
        try reader.finish()
        return bloodPressureRecord
    }

    func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 19)
        var flags: UInt8 = unitsKPa ? 1 : 0
        if timestamp != nil { flags |= 0x02 }
        if pulseRate != nil { flags |= 0x04 }
        if userID != nil { flags |= 0x08 }
        if status != nil { flags |= 0x10 }
        writer.u8(flags)
        writer.sfloat(systolic)
        writer.sfloat(diastolic)
        writer.sfloat(meanArterial)
        if let timestamp { writer.dateTime(timestamp) }
        if let pulseRate { writer.sfloat(pulseRate) }
        if let userID { writer.u8(userID) }
        if let status { writer.u16(status) }
        return writer.bytes
    }

    var fields: JSONValue {
        var members: [(String, JSONValue)] = [("unit", .string(unitsKPa ? "kPa" : "mmHg"))]
        members +=
            systolic.jsonFields("systolic") + diastolic.jsonFields("diastolic")
            + meanArterial.jsonFields("meanArterialPressure")
        if let timestamp { members.append(("timestamp", .string(timestamp.iso8601))) }
        if let pulseRate { members += pulseRate.jsonFields("pulseRate") }
        if let userID { members.append(("userID", .int(Int64(userID)))) }
        if let s = status {
            members.append(("measurementStatus", .int(Int64(s))))
            var names: [JSONValue] = []
            for (bit, n) in [
                (0, "body-movement"), (1, "cuff-too-loose"), (2, "irregular-pulse"), (5, "improper-position"),
            ]
            where s & (1 << bit) != 0 {
                names.append(.string(n))
            }
            switch (s >> 3) & 3 {
            case 1: names.append(.string("pulse-rate-exceeds-upper-limit"))
            case 2: names.append(.string("pulse-rate-below-lower-limit"))
            default: break
            }
            members.append(("measurementStatusFlags", .array(names)))
        }
        return .object(members)
    }

    init(fields fieldInput: FieldInput, icp: Bool) throws(GATTError) {
        unitsKPa = try fieldInput.choice("unit", ["mmHg", "kPa"], default: "mmHg") == "kPa"
        if icp {
            systolic = try fieldInput.sfloat("cuffPressure")
            diastolic = try fieldInput.optionalSFloat("diastolic") ?? SFloat(.nan)
            meanArterial = try fieldInput.optionalSFloat("meanArterialPressure") ?? SFloat(.nan)
        } else {
            systolic = try fieldInput.sfloat("systolic")
            diastolic = try fieldInput.sfloat("diastolic")
            meanArterial = try fieldInput.sfloat("meanArterialPressure")
        }
        timestamp = try fieldInput.dateTime("timestamp")
        pulseRate = try fieldInput.optionalSFloat("pulseRate")
        userID = try fieldInput.optionalInt("userID", 0...255).map { UInt8($0) }
        status = try fieldInput.optionalInt("measurementStatus", 0...0x3F).map { UInt16($0) }
        try fieldInput.finish(known: [
            icp ? "cuffPressure" : "systolic", "diastolic", "meanArterialPressure", "unit", "timestamp", "pulseRate",
            "userID",
            "measurementStatus",
        ])
    }
}

/// Blood Pressure Measurement 0x2A35 (Blood Pressure Service, indicate).
public struct BloodPressureMeasurement: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A35
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "blood-pressure-measurement"
    /// The measurement record.
    public var record: BloodPressureRecord
    /// A measurement carrying `record`.
    public init(_ record: BloodPressureRecord) { self.record = record }
    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> Self {
        Self(try BloodPressureRecord.decode(bytes, name: name))
    }
    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] { record.encode() }
    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue { record.fields }
    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        record = try BloodPressureRecord(fields: fieldInput, icp: false)
    }
}

/// Intermediate Cuff Pressure 0x2A36 (notify): the current cuff pressure in the systolic slot, the others NaN.
public struct IntermediateCuffPressure: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A36
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "intermediate-cuff-pressure"
    /// The measurement record.
    public var record: BloodPressureRecord
    /// A measurement carrying `record`.
    public init(_ record: BloodPressureRecord) { self.record = record }
    /// A cuff pressure in mmHg with diastolic and MAP sent as NaN.
    public init?(cuffPressure mmHg: Int) {
        guard let sFloat = SFloat(mantissa: mmHg, exponent: 0) else { return nil }
        record = BloodPressureRecord(systolic: sFloat, diastolic: SFloat(.nan), meanArterial: SFloat(.nan))
    }
    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> Self {
        Self(try BloodPressureRecord.decode(bytes, name: name))
    }
    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] { record.encode() }
    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        guard case var .object(o) = record.fields else { return record.fields }
        for i in o.indices where o[i].0.hasPrefix("systolic") {
            o[i].0 = "cuffPressure" + o[i].0.dropFirst("systolic".count)
        }
        return .object(o)
    }
    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        record = try BloodPressureRecord(fields: fieldInput, icp: true)
    }
}
