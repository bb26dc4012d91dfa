import VitalSimCore

/// Weight Measurement 0x2A9D (Weight Scale Service, indicate).
public struct WeightMeasurement: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A9D
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "weight-measurement"
    /// Flags bit 0: imperial (lb, in) rather than SI (kg, m).
    public var imperial: Bool
    /// Raw weight: SI × 0.005 kg, imperial × 0.01 lb. 0xFFFF means "measurement unsuccessful".
    public var rawWeight: UInt16
    /// The measurement's time stamp, when present.
    public var timestamp: DateTime?
    /// The user id, when present.
    public var userID: UInt8?
    /// BMI × 0.1 kg/m² and height (SI × 0.001 m, imperial × 0.1 in), together (flags bit 3).
    public var bmiHeight: (bmi: UInt16, height: UInt16)?

    /// A measurement with the fields given; absent optional fields are left out of the encoding.
    public init(
        imperial: Bool = false,
        rawWeight: UInt16,
        timestamp: DateTime? = nil,
        userID: UInt8? = nil,
        bmiHeight: (bmi: UInt16, height: UInt16)? = nil
    ) {
        self.imperial = imperial
        self.rawWeight = rawWeight
        self.timestamp = timestamp
        self.userID = userID
        self.bmiHeight = bmiHeight
    }

    /// An SI weight rounded to 0.005 kg; nil when out of range.
    public init?(kilograms: Double) {
        let raw = (kilograms / 0.005).rounded()
        guard raw >= 0, raw < 65535 else { return nil }
        self.init(rawWeight: UInt16(raw))
    }

    /// The weight in kg or lb (nil when unsuccessful).
    public var weight: Double? { rawWeight == 0xFFFF ? nil : Double(rawWeight) * (imperial ? 0.01 : 0.005) }

    /// Two values are equal when every field is.
    public static func == (a: Self, b: Self) -> Bool {
        a.imperial == b.imperial && a.rawWeight == b.rawWeight && a.timestamp == b.timestamp && a.userID == b.userID
            && a.bmiHeight?.bmi == b.bmiHeight?.bmi && a.bmiHeight?.height == b.bmiHeight?.height
    }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> Self {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let flags = try reader.u8("Flags")
        try reader.checkReserved(UInt32(flags), allowed: 0x0F, field: "Flags", at: 0)
        var decoded = Self(imperial: flags & 1 != 0, rawWeight: try reader.u16("Weight"))
        if flags & 0x02 != 0 { decoded.timestamp = try reader.dateTime("Time Stamp") }
        if flags & 0x04 != 0 { decoded.userID = try reader.u8("User ID") }
        if flags & 0x08 != 0 { decoded.bmiHeight = (try reader.u16("BMI"), try reader.u16("Height")) }
        try reader.finish()
        return decoded
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        var writer = ByteWriter(capacity: 15)
        var flags: UInt8 = imperial ? 1 : 0
        if timestamp != nil { flags |= 0x02 }
        if userID != nil { flags |= 0x04 }
        if bmiHeight != nil { flags |= 0x08 }
        writer.u8(flags)
        writer.u16(rawWeight)
        if let timestamp { writer.dateTime(timestamp) }
        if let userID { writer.u8(userID) }
        if let bmi = bmiHeight {
            writer.u16(bmi.bmi)
            writer.u16(bmi.height)
        }
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var members: [(String, JSONValue)] = [
            ("unit", .string(imperial ? "lb" : "kg")), ("rawWeight", .int(Int64(rawWeight))),
        ]
        members.append(
            (
                "weight",
                weight.map { _ in .decimal(Decimal10.format(Int(rawWeight) * (imperial ? 1 : 5), imperial ? -2 : -3)) }
                    ?? .string("unsuccessful")
            )
        )
        if let timestamp { members.append(("timestamp", .string(timestamp.iso8601))) }
        if let userID { members.append(("userID", .int(Int64(userID)))) }
        if let bmi = bmiHeight {
            members += [
                ("bmi", .decimal(Decimal10.format(Int(bmi.bmi), -1))),
                ("height", .decimal(Decimal10.format(Int(bmi.height), imperial ? -1 : -3))),
            ]
        }
        return .object(members)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        let imperial = try fieldInput.choice("unit", ["kg", "lb"], default: "kg") == "lb"
        var raw: UInt16
        if fieldInput.has("rawWeight") {
            raw = UInt16(try fieldInput.int("rawWeight", 0...65535))
            // `vitalsim decode` prints both; the weight must then be the raw value's.
            if let text = fieldInput.raw("weight"), text != "unsuccessful" {
                let step = imperial ? 0.01 : 0.005
                guard let number = Double(text), abs(number - Double(raw) * step) < step / 2 else {
                    throw fieldInput.fail(
                        "weight",
                        "\(text) is not rawWeight \(raw) × \(step) \(imperial ? "lb" : "kg"); give one of the two"
                    )
                }
            }
        } else {
            guard let text = fieldInput.raw("weight"), let number = Double(text), number >= 0 else {
                throw fieldInput.fail("weight", "required: kilograms (or rawWeight, the value as sent)")
            }
            let r = (number / (imperial ? 0.01 : 0.005)).rounded()
            guard r < 65535 else { throw fieldInput.fail("weight", "\(text) exceeds the range of the Weight field") }
            raw = UInt16(r)
        }
        self.init(
            imperial: imperial,
            rawWeight: raw,
            timestamp: try fieldInput.dateTime("timestamp"),
            userID: try fieldInput.optionalInt("userID", 0...255).map { UInt8($0) }
        )
        if fieldInput.has("bmi") || fieldInput.has("height") {
            guard let bmi = fieldInput.raw("bmi").flatMap(Double.init),
                let height = fieldInput.raw("height").flatMap(Double.init), bmi >= 0,
                height >= 0
            else {
                throw fieldInput.fail("bmi", "bmi and height go together, as numbers")
            }
            bmiHeight = (
                UInt16(Swift.min((bmi * 10).rounded(), 65535)),
                UInt16(Swift.min((height * (imperial ? 10 : 1000)).rounded(), 65535))
            )
        }
        try fieldInput.finish(known: ["weight", "rawWeight", "unit", "timestamp", "userID", "bmi", "height"])
    }
}
