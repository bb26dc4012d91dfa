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
        var r = try ByteReader(value: bytes, characteristic: name)
        let flags = try r.u8("Flags")
        try r.checkReserved(UInt32(flags), allowed: 0x1F, field: "Flags", at: 0)
        var v = Self(spo2: try r.sfloat("SpO2PR-Spot-Check - SpO2"), pulseRate: try r.sfloat("SpO2PR-Spot-Check - PR"))
        v.deviceClockNotSet = flags & 0x10 != 0
        if flags & 0x01 != 0 { v.timestamp = try r.dateTime("Timestamp") }
        if flags & 0x02 != 0 { v.measurementStatus = try PLXStatus.measurement(&r) }
        if flags & 0x04 != 0 { v.deviceStatus = try PLXStatus.device(&r) }
        if flags & 0x08 != 0 { v.pulseAmplitudeIndex = try r.sfloat("Pulse Amplitude Index") }
        try r.finish()
        return v
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        var w = ByteWriter(capacity: 19)
        var flags: UInt8 = deviceClockNotSet ? 0x10 : 0
        if timestamp != nil { flags |= 0x01 }
        if measurementStatus != nil { flags |= 0x02 }
        if deviceStatus != nil { flags |= 0x04 }
        if pulseAmplitudeIndex != nil { flags |= 0x08 }
        w.u8(flags)
        w.sfloat(spo2)
        w.sfloat(pulseRate)
        if let t = timestamp { w.dateTime(t) }
        if let s = measurementStatus { w.u16(s) }
        if let d = deviceStatus { w.u24(d) }
        if let p = pulseAmplitudeIndex { w.sfloat(p) }
        return w.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var o = spo2.jsonFields("spo2") + pulseRate.jsonFields("pulseRate")
        if let t = timestamp { o.append(("timestamp", .string(t.iso8601))) }
        if let s = measurementStatus { o.append(("measurementStatus", .int(Int64(s)))) }
        if let d = deviceStatus { o.append(("deviceStatus", .int(Int64(d)))) }
        if let p = pulseAmplitudeIndex { o += p.jsonFields("pulseAmplitudeIndex") }
        if deviceClockNotSet { o.append(("deviceClockNotSet", .bool(true))) }
        return .object(o)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields f: FieldInput) throws(GATTError) {
        self.init(
            spo2: try f.sfloat("spo2"),
            pulseRate: try f.sfloat("pulseRate"),
            timestamp: try f.dateTime("timestamp"),
            measurementStatus: try f.optionalInt("measurementStatus", 0...0xFFFF).map { UInt16($0) },
            deviceStatus: try f.optionalInt("deviceStatus", 0...0xFFFF).map { UInt32($0) },
            pulseAmplitudeIndex: try f.optionalSFloat("pulseAmplitudeIndex"),
            deviceClockNotSet: try f.bool("deviceClockNotSet")
        )
        try f.finish(known: [
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
        var r = try ByteReader(value: bytes, characteristic: name)
        let flags = try r.u8("Flags")
        try r.checkReserved(UInt32(flags), allowed: 0x1F, field: "Flags", at: 0)
        var v = Self(spo2: try r.sfloat("SpO2PR-Normal - SpO2"), pulseRate: try r.sfloat("SpO2PR-Normal - PR"))
        if flags & 0x01 != 0 { v.fast = (try r.sfloat("SpO2PR-Fast - SpO2"), try r.sfloat("SpO2PR-Fast - PR")) }
        if flags & 0x02 != 0 { v.slow = (try r.sfloat("SpO2PR-Slow - SpO2"), try r.sfloat("SpO2PR-Slow - PR")) }
        if flags & 0x04 != 0 { v.measurementStatus = try PLXStatus.measurement(&r) }
        if flags & 0x08 != 0 { v.deviceStatus = try PLXStatus.device(&r) }
        if flags & 0x10 != 0 { v.pulseAmplitudeIndex = try r.sfloat("Pulse Amplitude Index") }
        try r.finish()
        return v
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        var w = ByteWriter(capacity: 20)
        var flags: UInt8 = 0
        if fast != nil { flags |= 0x01 }
        if slow != nil { flags |= 0x02 }
        if measurementStatus != nil { flags |= 0x04 }
        if deviceStatus != nil { flags |= 0x08 }
        if pulseAmplitudeIndex != nil { flags |= 0x10 }
        w.u8(flags)
        w.sfloat(spo2)
        w.sfloat(pulseRate)
        if let f = fast {
            w.sfloat(f.spo2)
            w.sfloat(f.pulseRate)
        }
        if let s = slow {
            w.sfloat(s.spo2)
            w.sfloat(s.pulseRate)
        }
        if let s = measurementStatus { w.u16(s) }
        if let d = deviceStatus { w.u24(d) }
        if let p = pulseAmplitudeIndex { w.sfloat(p) }
        return w.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var o = spo2.jsonFields("spo2") + pulseRate.jsonFields("pulseRate")
        if let f = fast { o += f.spo2.jsonFields("spo2Fast") + f.pulseRate.jsonFields("pulseRateFast") }
        if let s = slow { o += s.spo2.jsonFields("spo2Slow") + s.pulseRate.jsonFields("pulseRateSlow") }
        if let s = measurementStatus { o.append(("measurementStatus", .int(Int64(s)))) }
        if let d = deviceStatus { o.append(("deviceStatus", .int(Int64(d)))) }
        if let p = pulseAmplitudeIndex { o += p.jsonFields("pulseAmplitudeIndex") }
        return .object(o)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields f: FieldInput) throws(GATTError) {
        self.init(spo2: try f.sfloat("spo2"), pulseRate: try f.sfloat("pulseRate"))
        if f.has("spo2Fast") { fast = (try f.sfloat("spo2Fast"), try f.sfloat("pulseRateFast")) }
        if f.has("spo2Slow") { slow = (try f.sfloat("spo2Slow"), try f.sfloat("pulseRateSlow")) }
        measurementStatus = try f.optionalInt("measurementStatus", 0...0xFFFF).map { UInt16($0) }
        deviceStatus = try f.optionalInt("deviceStatus", 0...0xFFFF).map { UInt32($0) }
        pulseAmplitudeIndex = try f.optionalSFloat("pulseAmplitudeIndex")
        try f.finish(known: [
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
        var r = try ByteReader(value: bytes, characteristic: name)
        let s = try r.u16("Supported Features")
        try r.checkReserved(UInt32(s), allowed: 0x00FF, field: "Supported Features", at: 0)
        var v = Self(supported: s)
        if s & 0x01 != 0 { v.measurementStatusSupport = try r.u16("Measurement Status Support") }
        if s & 0x02 != 0 { v.deviceStatusSupport = try r.u24("Device and Sensor Status Support") }
        try r.finish()
        return v
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
        var w = ByteWriter()
        w.u16(supported)
        if let m = measurementStatusSupport { w.u16(m) }
        if let d = deviceStatusSupport { w.u24(d) }
        return w.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var o: [(String, JSONValue)] = [("supportedFeatures", .int(Int64(supported)))]
        if let m = measurementStatusSupport { o.append(("measurementStatusSupport", .int(Int64(m)))) }
        if let d = deviceStatusSupport { o.append(("deviceStatusSupport", .int(Int64(d)))) }
        return .object(o)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields f: FieldInput) throws(GATTError) {
        self.init(
            supported: UInt16(try f.int("supportedFeatures", 0...0xFF)),
            measurementStatusSupport: try f.optionalInt("measurementStatusSupport", 0...0xFFFF).map { UInt16($0) },
            deviceStatusSupport: try f.optionalInt("deviceStatusSupport", 0...0xFFFFFF).map { UInt32($0) }
        )
        try f.finish(known: ["supportedFeatures", "measurementStatusSupport", "deviceStatusSupport"])
    }
}

/// Status fields shared by the PLX measurements (bits 0–4 of Measurement Status and 16–23 of
/// Device and Sensor Status are reserved).
enum PLXStatus {
    static func measurement(_ r: inout ByteReader) throws(GATTError) -> UInt16 {
        let at = r.offset
        let s = try r.u16("Measurement Status")
        try r.checkReserved(UInt32(s), allowed: 0xFFE0, field: "Measurement Status", at: at)
        return s
    }

    static func device(_ r: inout ByteReader) throws(GATTError) -> UInt32 {
        let at = r.offset
        let s = try r.u24("Device and Sensor Status")
        try r.checkReserved(s, allowed: 0xFFFF, field: "Device and Sensor Status", at: at)
        return s
    }
}
