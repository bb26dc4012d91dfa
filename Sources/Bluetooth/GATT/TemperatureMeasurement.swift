import VitalSimCore

/// The shared layout of Temperature Measurement 0x2A1C (indicate) and Intermediate Temperature 0x2A1E (notify).
public struct TemperatureRecord: Equatable, Sendable {
    /// Flags bit 0: Fahrenheit rather than Celsius.
    public var fahrenheit: Bool
    /// IEEE-11073 32-bit FLOAT.
    public var value: MedFloat
    /// The measurement's time stamp, when present.
    public var timestamp: DateTime?
    /// Temperature Type 1...9 (flags bit 2).
    public var type: UInt8?

    /// A value with the fields given; `fahrenheit` selects the unit flag.
    public init(fahrenheit: Bool = false, value: MedFloat, timestamp: DateTime? = nil, type: UInt8? = nil) {
        self.fahrenheit = fahrenheit
        self.value = value
        self.timestamp = timestamp
        self.type = type
    }

    static func decode(_ bytes: [UInt8], name: String) throws(GATTError) -> TemperatureRecord {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let flags = try reader.u8("Flags")
        try reader.checkReserved(UInt32(flags), allowed: 0x07, field: "Flags", at: 0)
        var temperatureRecord = TemperatureRecord(
            fahrenheit: flags & 1 != 0,
            value: try reader.float32(flags & 1 != 0 ? "Temperature (Fahrenheit)" : "Temperature (Celsius)")
        )
        if flags & 0x02 != 0 { temperatureRecord.timestamp = try reader.dateTime("Time Stamp") }
        if flags & 0x04 != 0 {
            let at = reader.offset
            let type = try reader.u8("Temperature Type")
            guard (1...9).contains(type) else {
                throw .invalidValue(
                    characteristic: name,
                    offset: at,
                    field: "Temperature Type",
                    reason: "\(type) is reserved; valid 1...9"
                )
            }
            temperatureRecord.type = type
        }
        try reader.finish()
        return temperatureRecord
    }

    func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 13)
        var flags: UInt8 = fahrenheit ? 1 : 0
        if timestamp != nil { flags |= 0x02 }
        if type != nil { flags |= 0x04 }
        writer.u8(flags)
        writer.float32(value)
        if let timestamp { writer.dateTime(timestamp) }
        if let type { writer.u8(type) }
        return writer.bytes
    }

    var fields: JSONValue {
        var members = value.jsonFields("temperature") + [("unit", .string(fahrenheit ? "Fahrenheit" : "Celsius"))]
        if let timestamp { members.append(("timestamp", .string(timestamp.iso8601))) }
        if let type { members.append(("temperatureType", .int(Int64(type)))) }
        return .object(members)
    }

    init(fields fieldInput: FieldInput) throws(GATTError) {
        fahrenheit = try fieldInput.choice("unit", ["Celsius", "Fahrenheit"], default: "Celsius") == "Fahrenheit"
        value = try fieldInput.medFloat("temperature")
        timestamp = try fieldInput.dateTime("timestamp")
        type = try fieldInput.optionalInt("temperatureType", 1...9).map { UInt8($0) }
        try fieldInput.finish(known: ["temperature", "unit", "timestamp", "temperatureType"])
    }
}

/// Temperature Measurement 0x2A1C (Health Thermometer Service, indicate).
public struct TemperatureMeasurement: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A1C
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "temperature-measurement"
    /// The measurement record.
    public var record: TemperatureRecord
    /// A measurement carrying `record`.
    public init(_ record: TemperatureRecord) { self.record = record }
    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> Self {
        Self(try TemperatureRecord.decode(bytes, name: name))
    }
    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] { record.encode() }
    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue { record.fields }
    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) { record = try TemperatureRecord(fields: fieldInput) }
}

/// Intermediate Temperature 0x2A1E (Health Thermometer Service, notify).
public struct IntermediateTemperature: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A1E
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "intermediate-temperature"
    /// The measurement record.
    public var record: TemperatureRecord
    /// A measurement carrying `record`.
    public init(_ record: TemperatureRecord) { self.record = record }
    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> Self {
        Self(try TemperatureRecord.decode(bytes, name: name))
    }
    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] { record.encode() }
    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue { record.fields }
    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) { record = try TemperatureRecord(fields: fieldInput) }
}
