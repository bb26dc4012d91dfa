import VitalSimCore

/// Heart Rate Measurement 0x2A37 (Heart Rate Service, notify).
public struct HeartRateMeasurement: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A37
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "heart-rate-measurement"

    /// Heart rate, bpm.
    public var heartRate: UInt16
    /// Sends the rate as UInt16 even when it fits in one byte (flags bit 0).
    public var uses16BitFormat: Bool
    /// Sensor Contact Status bits 1–2 as sent: 0/1 not supported, 2 supported but not detected, 3 detected.
    public var contactBits: UInt8
    /// Energy expended, kJ (flags bit 3).
    public var energyExpended: UInt16?
    /// RR intervals in 1/1024 s, oldest first (flags bit 4).
    public var rrIntervals: [UInt16]
    /// Sets flags bit 4 even with no intervals (only possible when decoding odd captures; kept for byte-exactness).
    public var rrFlag: Bool

    /// A measurement with the fields given; the encoding picks the 8- or 16-bit format from the value.
    public init(
        heartRate: UInt16,
        contact: SensorContact = .notSupported,
        energyExpended: UInt16? = nil,
        rrIntervals: [UInt16] = [],
        uses16BitFormat: Bool = false
    ) {
        self.heartRate = heartRate
        self.uses16BitFormat = uses16BitFormat || heartRate > 255
        switch contact {
        case .notSupported: contactBits = 0
        case .notDetected: contactBits = 2
        case .detected: contactBits = 3
        }
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
        self.rrFlag = !rrIntervals.isEmpty
    }

    /// The sensor contact status.
    public var contact: SensorContact { SensorContact(bits: contactBits) }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> HeartRateMeasurement {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let flags = try reader.u8("Flags")
        try reader.checkReserved(UInt32(flags), allowed: 0x1F, field: "Flags", at: 0)
        let wide = flags & 0x01 != 0
        let hr =
            wide
            ? try reader.u16("Heart Rate Measurement Value (uint16)")
            : UInt16(try reader.u8("Heart Rate Measurement Value (uint8)"))
        var heartRateMeasurement = HeartRateMeasurement(heartRate: hr, uses16BitFormat: wide)
        heartRateMeasurement.contactBits = (flags >> 1) & 0x03
        if flags & 0x08 != 0 { heartRateMeasurement.energyExpended = try reader.u16("Energy Expended") }
        if flags & 0x10 != 0 {
            heartRateMeasurement.rrFlag = true
            if reader.remaining % 2 != 0 {
                throw .truncated(
                    characteristic: name,
                    offset: reader.offset + reader.remaining - 1,
                    field: "RR-Interval",
                    needed: 2,
                    available: 1
                )
            }
            while reader.remaining > 0 { heartRateMeasurement.rrIntervals.append(try reader.u16("RR-Interval")) }
        }
        try reader.finish()
        return heartRateMeasurement
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        if !uses16BitFormat, heartRate > 255 {
            throw .unencodable(
                characteristic: Self.name,
                field: "heartRate",
                reason: "\(heartRate) needs the UInt16 format"
            )
        }
        var writer = ByteWriter()
        var flags: UInt8 = (uses16BitFormat ? 0x01 : 0) | (contactBits & 0x03) << 1
        if energyExpended != nil { flags |= 0x08 }
        if rrFlag || !rrIntervals.isEmpty { flags |= 0x10 }
        writer.u8(flags)
        if uses16BitFormat { writer.u16(heartRate) } else { writer.u8(UInt8(heartRate)) }
        if let energyExpended { writer.u16(energyExpended) }
        for rr in rrIntervals { writer.u16(rr) }
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var members: [(String, JSONValue)] = [
            ("heartRate", .int(Int64(heartRate))), ("format", .string(uses16BitFormat ? "uint16" : "uint8")),
            ("sensorContact", .string(contact.rawValue)),
        ]
        // Bits 1–2 = 1 also means "not supported"; printed so that the value re-encodes to itself.
        if contactBits == 1 { members.append(("sensorContactBits", .int(1))) }
        if let energyExpended { members.append(("energyExpended", .int(Int64(energyExpended)))) }
        if rrFlag {
            members.append(("rrIntervals", .array(rrIntervals.map { .int(Int64($0)) })))
            members.append(("rrIntervalsSeconds", .array(rrIntervals.map { .double(Double($0) / 1024) })))
        }
        return .object(members)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        let contact = SensorContact(
            rawValue: try fieldInput.choice(
                "sensorContact",
                ["not-supported", "not-detected", "detected"],
                default: "not-supported"
            )
        )!
        let energy = try fieldInput.optionalInt("energyExpended", 0...65535)
        let rr = try fieldInput.intList("rrIntervals", 0...65535).map { UInt16($0) }
        let wide = try fieldInput.choice("format", ["uint8", "uint16"], default: "uint8") == "uint16"
        self.init(
            heartRate: UInt16(try fieldInput.int("heartRate", 0...65535)),
            contact: contact,
            energyExpended: energy.map { UInt16($0) },
            rrIntervals: rr,
            uses16BitFormat: wide
        )
        // `--rr-intervals ""` sets the RR flag with no intervals (as decoded from such a value).
        rrFlag = fieldInput.has("rrIntervals")
        if let bits = try fieldInput.optionalInt("sensorContactBits", 0...3) {
            guard SensorContact(bits: UInt8(bits)) == contact else {
                throw fieldInput.fail("sensorContactBits", "\(bits) contradicts sensorContact \(contact.rawValue)")
            }
            contactBits = UInt8(bits)
        }
        try fieldInput.finish(known: [
            "heartRate", "format", "sensorContact", "sensorContactBits", "energyExpended", "rrIntervals",
        ])
    }
}

extension SensorContact {
    /// The status of Heart Rate Measurement flags bits 1–2: 0 and 1 not supported, 2 supported but
    /// not detected, 3 detected (HRS 1.0 §3.1.1.1).
    init(bits: UInt8) {
        switch bits & 0x03 {
        case 2: self = .notDetected
        case 3: self = .detected
        default: self = .notSupported
        }
    }
}
