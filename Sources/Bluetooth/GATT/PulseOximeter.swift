import VitalSimCore

/// PLX Spot-check Measurement 0x2A5E (Pulse Oximeter Service, indicate).
public struct PLXSpotCheckMeasurement: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A5E
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "plx-spot-check-measurement"
    /// SpO2 (%).
    public var spo2: SFloat
    /// Pulse rate (beats per minute).
    public var pulseRate: SFloat
    /// The measurement's time stamp, when present.
    public var timestamp: DateTime?
    /// Measurement status bits, when present.
    public var measurementStatus: UInt16?
    /// Device and Sensor Status, 24 bits.
    public var deviceStatus: UInt32?
    /// Pulse amplitude index (%), when present.
    public var pulseAmplitudeIndex: SFloat?
    /// Flags bit 4.
    public var deviceClockNotSet: Bool

    /// A value with the fields given; absent optional fields are left out of the encoding.
    public init(
        spo2: SFloat,
        pulseRate: SFloat,
        timestamp: DateTime? = nil,
        measurementStatus: UInt16? = nil,
        deviceStatus: UInt32? = nil,
        pulseAmplitudeIndex: SFloat? = nil,
        deviceClockNotSet: Bool = false
    ) {
        self.spo2 = spo2
        self.pulseRate = pulseRate
        self.timestamp = timestamp
        self.measurementStatus = measurementStatus
        self.deviceStatus = deviceStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
        self.deviceClockNotSet = deviceClockNotSet
    }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> Self {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let flags = try reader.u8("Flags")
        try reader.checkReserved(UInt32(flags), allowed: 0x1F, field: "Flags", at: 0)
        var decoded = Self(
            spo2: try reader.sfloat("SpO2PR-Spot-Check - SpO2"),
            pulseRate: try reader.sfloat("SpO2PR-Spot-Check - PR")
        )
        decoded.deviceClockNotSet = flags & 0x10 != 0
        if flags & 0x01 != 0 { decoded.timestamp = try reader.dateTime("Timestamp") }
        if flags & 0x02 != 0 { decoded.measurementStatus = try PLXStatus.measurement(&reader) }
        if flags & 0x04 != 0 { decoded.deviceStatus = try PLXStatus.device(&reader) }
        if flags & 0x08 != 0 { decoded.pulseAmplitudeIndex = try reader.sfloat("Pulse Amplitude Index") }
        try reader.finish()
        return decoded
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        var writer = ByteWriter(capacity: 19)
        var flags: UInt8 = deviceClockNotSet ? 0x10 : 0
        if timestamp != nil { flags |= 0x01 }
        if measurementStatus != nil { flags |= 0x02 }
        if deviceStatus != nil { flags |= 0x04 }
        if pulseAmplitudeIndex != nil { flags |= 0x08 }
        writer.u8(flags)
        writer.sfloat(spo2)
        writer.sfloat(pulseRate)
        if let timestamp { writer.dateTime(timestamp) }
        if let measurementStatus { writer.u16(measurementStatus) }
        if let deviceStatus { writer.u24(deviceStatus) }
        if let pulseAmplitudeIndex { writer.sfloat(pulseAmplitudeIndex) }
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var members = spo2.jsonFields("spo2") + pulseRate.jsonFields("pulseRate")
        if let timestamp { members.append(("timestamp", .string(timestamp.iso8601))) }
        if let measurementStatus { members.append(("measurementStatus", .int(Int64(measurementStatus)))) }
        if let deviceStatus { members.append(("deviceStatus", .int(Int64(deviceStatus)))) }
        if let pulseAmplitudeIndex { members += pulseAmplitudeIndex.jsonFields("pulseAmplitudeIndex") }
        if deviceClockNotSet { members.append(("deviceClockNotSet", .bool(true))) }
        return .object(members)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        self.init(
            spo2: try fieldInput.sfloat("spo2"),
            pulseRate: try fieldInput.sfloat("pulseRate"),
            timestamp: try fieldInput.dateTime("timestamp"),
            measurementStatus: try fieldInput.optionalInt("measurementStatus", 0...0xFFFF).map { UInt16($0) },
            deviceStatus: try fieldInput.optionalInt("deviceStatus", 0...0xFFFF).map { UInt32($0) },
            pulseAmplitudeIndex: try fieldInput.optionalSFloat("pulseAmplitudeIndex"),
            deviceClockNotSet: try fieldInput.bool("deviceClockNotSet")
        )
        try fieldInput.finish(known: [
            "spo2", "pulseRate", "timestamp", "measurementStatus", "deviceStatus", "pulseAmplitudeIndex",
            "deviceClockNotSet",
        ])
    }
}

/// PLX Continuous Measurement 0x2A5F (Pulse Oximeter Service, notify).
public struct PLXContinuousMeasurement: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A5F
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "plx-continuous-measurement"
    /// SpO2 (%).
    public var spo2: SFloat
    /// Pulse rate (beats per minute).
    public var pulseRate: SFloat
    /// SpO2PR-Fast, when present.
    public var fast: (spo2: SFloat, pulseRate: SFloat)?
    /// SpO2PR-Slow, when present.
    public var slow: (spo2: SFloat, pulseRate: SFloat)?
    /// Measurement status bits, when present.
    public var measurementStatus: UInt16?
    /// Device and sensor status bits (24 bits), when present.
    public var deviceStatus: UInt32?
    /// Pulse amplitude index (%), when present.
    public var pulseAmplitudeIndex: SFloat?

    /// A value with the fields given; absent optional fields are left out of the encoding.
    public init(spo2: SFloat, pulseRate: SFloat) {
        self.spo2 = spo2
        self.pulseRate = pulseRate
    }

    /// Two values are equal when every field is.
    public static func == (a: Self, b: Self) -> Bool {
        a.spo2 == b.spo2 && a.pulseRate == b.pulseRate && a.fast?.spo2 == b.fast?.spo2
            && a.fast?.pulseRate == b.fast?.pulseRate
            && a.slow?.spo2 == b.slow?.spo2 && a.slow?.pulseRate == b.slow?.pulseRate
            && a.measurementStatus == b.measurementStatus
            && a.deviceStatus == b.deviceStatus && a.pulseAmplitudeIndex == b.pulseAmplitudeIndex
    }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> Self {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let flags = try reader.u8("Flags")
        try reader.checkReserved(UInt32(flags), allowed: 0x1F, field: "Flags", at: 0)
        var decoded = Self(
            spo2: try reader.sfloat("SpO2PR-Normal - SpO2"),
            pulseRate: try reader.sfloat("SpO2PR-Normal - PR")
        )
        if flags & 0x01 != 0 {
            decoded.fast = (try reader.sfloat("SpO2PR-Fast - SpO2"), try reader.sfloat("SpO2PR-Fast - PR"))
        }
        if flags & 0x02 != 0 {
            decoded.slow = (try reader.sfloat("SpO2PR-Slow - SpO2"), try reader.sfloat("SpO2PR-Slow - PR"))
        }
        if flags & 0x04 != 0 { decoded.measurementStatus = try PLXStatus.measurement(&reader) }
        if flags & 0x08 != 0 { decoded.deviceStatus = try PLXStatus.device(&reader) }
        if flags & 0x10 != 0 { decoded.pulseAmplitudeIndex = try reader.sfloat("Pulse Amplitude Index") }
        try reader.finish()
        return decoded
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        var writer = ByteWriter(capacity: 20)
        var flags: UInt8 = 0
        if fast != nil { flags |= 0x01 }
        if slow != nil { flags |= 0x02 }
        if measurementStatus != nil { flags |= 0x04 }
        if deviceStatus != nil { flags |= 0x08 }
        if pulseAmplitudeIndex != nil { flags |= 0x10 }
        writer.u8(flags)
        writer.sfloat(spo2)
        writer.sfloat(pulseRate)
        if let f = fast {
            writer.sfloat(f.spo2)
            writer.sfloat(f.pulseRate)
        }
        if let s = slow {
            writer.sfloat(s.spo2)
            writer.sfloat(s.pulseRate)
        }
        if let measurementStatus { writer.u16(measurementStatus) }
        if let deviceStatus { writer.u24(deviceStatus) }
        if let pulseAmplitudeIndex { writer.sfloat(pulseAmplitudeIndex) }
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var members = spo2.jsonFields("spo2") + pulseRate.jsonFields("pulseRate")
        if let fast { members += fast.spo2.jsonFields("spo2Fast") + fast.pulseRate.jsonFields("pulseRateFast") }
        if let slow { members += slow.spo2.jsonFields("spo2Slow") + slow.pulseRate.jsonFields("pulseRateSlow") }
        if let measurementStatus { members.append(("measurementStatus", .int(Int64(measurementStatus)))) }
        if let deviceStatus { members.append(("deviceStatus", .int(Int64(deviceStatus)))) }
        if let pulseAmplitudeIndex { members += pulseAmplitudeIndex.jsonFields("pulseAmplitudeIndex") }
        return .object(members)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        self.init(spo2: try fieldInput.sfloat("spo2"), pulseRate: try fieldInput.sfloat("pulseRate"))
        if fieldInput.has("spo2Fast") {
            fast = (try fieldInput.sfloat("spo2Fast"), try fieldInput.sfloat("pulseRateFast"))
        }
        if fieldInput.has("spo2Slow") {
            slow = (try fieldInput.sfloat("spo2Slow"), try fieldInput.sfloat("pulseRateSlow"))
        }
        measurementStatus = try fieldInput.optionalInt("measurementStatus", 0...0xFFFF).map { UInt16($0) }
        deviceStatus = try fieldInput.optionalInt("deviceStatus", 0...0xFFFF).map { UInt32($0) }
        pulseAmplitudeIndex = try fieldInput.optionalSFloat("pulseAmplitudeIndex")
        try fieldInput.finish(known: [
            "spo2", "pulseRate", "spo2Fast", "pulseRateFast", "spo2Slow", "pulseRateSlow", "measurementStatus",
            "deviceStatus",
            "pulseAmplitudeIndex",
        ])
    }
}

/// PLX Features 0x2A60: Supported Features, then the supported Measurement Status and Device and Sensor Status bits
/// when announced.
public struct PLXFeatures: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A60
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "plx-features"
    /// Supported features bits.
    public var supported: UInt16
    /// Measurement status support bits, when present.
    public var measurementStatusSupport: UInt16?
    /// Device and sensor status support bits, when present.
    public var deviceStatusSupport: UInt32?

    /// A value with the fields given; absent optional fields are left out of the encoding.
    public init(supported: UInt16, measurementStatusSupport: UInt16? = nil, deviceStatusSupport: UInt32? = nil) {
        self.supported = supported
        self.measurementStatusSupport = measurementStatusSupport
        self.deviceStatusSupport = deviceStatusSupport
    }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> Self {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let status = try reader.u16("Supported Features")
        try reader.checkReserved(UInt32(status), allowed: 0x00FF, field: "Supported Features", at: 0)
        var decoded = Self(supported: status)
        if status & 0x01 != 0 { decoded.measurementStatusSupport = try reader.u16("Measurement Status Support") }
        if status & 0x02 != 0 { decoded.deviceStatusSupport = try reader.u24("Device and Sensor Status Support") }
        try reader.finish()
        return decoded
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        guard (supported & 1 != 0) == (measurementStatusSupport != nil),
            (supported & 2 != 0) == (deviceStatusSupport != nil)
        else {
            throw .unencodable(
                characteristic: Self.name,
                field: "supported",
                reason: "bits 0 and 1 must match the status-support fields given"
            )
        }
        var writer = ByteWriter()
        writer.u16(supported)
        if let measurementStatusSupport { writer.u16(measurementStatusSupport) }
        if let deviceStatusSupport { writer.u24(deviceStatusSupport) }
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var members: [(String, JSONValue)] = [("supportedFeatures", .int(Int64(supported)))]
        if let measurementStatusSupport {
            members.append(("measurementStatusSupport", .int(Int64(measurementStatusSupport))))
        }
        if let deviceStatusSupport { members.append(("deviceStatusSupport", .int(Int64(deviceStatusSupport)))) }
        return .object(members)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        self.init(
            supported: UInt16(try fieldInput.int("supportedFeatures", 0...0xFF)),
            measurementStatusSupport: try fieldInput.optionalInt("measurementStatusSupport", 0...0xFFFF).map {
                UInt16($0)
            },
            deviceStatusSupport: try fieldInput.optionalInt("deviceStatusSupport", 0...0xFFFFFF).map { UInt32($0) }
        )
        try fieldInput.finish(known: ["supportedFeatures", "measurementStatusSupport", "deviceStatusSupport"])
    }
}

/// Status fields shared by the PLX measurements (bits 0–4 of Measurement Status and 16–23 of
/// Device and Sensor Status are reserved).
enum PLXStatus {
    static func measurement(_ byteReader: inout ByteReader) throws(GATTError) -> UInt16 {
        let at = byteReader.offset
        let status = try byteReader.u16("Measurement Status")
        try byteReader.checkReserved(UInt32(status), allowed: 0xFFE0, field: "Measurement Status", at: at)
        return status
    }

    static func device(_ byteReader: inout ByteReader) throws(GATTError) -> UInt32 {
        let at = byteReader.offset
        let status = try byteReader.u24("Device and Sensor Status")
        try byteReader.checkReserved(status, allowed: 0xFFFF, field: "Device and Sensor Status", at: at)
        return status
    }
}
