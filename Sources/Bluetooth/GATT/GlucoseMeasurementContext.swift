import VitalSimCore

/// Glucose Measurement Context 0x2A34 (Glucose Service, notify), sent after a measurement with the same sequence
/// number.
public struct GlucoseMeasurementContext: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static let uuid: UInt16 = 0x2A34
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static let name = "glucose-measurement-context"

    /// The sequence number of the measurement it belongs to.
    public var sequenceNumber: UInt16
    /// Extended flags, when present.
    public var extendedFlags: UInt8?
    /// Carbohydrate ID (1 breakfast … 7 brunch) and amount in kg.
    public var carbohydrate: (id: UInt8, kg: SFloat)?
    /// Meal: 1 preprandial, 2 postprandial, 3 fasting, 4 casual, 5 bedtime.
    public var meal: UInt8?
    /// Tester (low nibble) and Health (high nibble), always together.
    public var testerHealth: (tester: UInt8, health: UInt8)?
    /// Exercise duration in seconds (0xFFFF overrun) and intensity %.
    public var exercise: (seconds: UInt16, intensity: UInt8)?
    /// Medication ID (1 rapid … 5 pre-mixed) and amount in kg, or litres with `medicationInLiters`.
    public var medication: (id: UInt8, amount: SFloat)?
    /// Medication quantity unit: litres (true) or kilograms (false).
    public var medicationInLiters: Bool
    /// HbA1c (%), when present.
    public var hbA1c: SFloat?

    /// A context with the meal, when known.
    public init(sequenceNumber: UInt16, meal: UInt8? = nil) {
        self.sequenceNumber = sequenceNumber
        self.meal = meal
        medicationInLiters = false
    }

    /// Two values are equal when every field is.
    public static func == (a: Self, b: Self) -> Bool {
        a.sequenceNumber == b.sequenceNumber && a.extendedFlags == b.extendedFlags
            && a.carbohydrate?.id == b.carbohydrate?.id
            && a.carbohydrate?.kg == b.carbohydrate?.kg && a.meal == b.meal
            && a.testerHealth?.tester == b.testerHealth?.tester
            && a.testerHealth?.health == b.testerHealth?.health && a.exercise?.seconds == b.exercise?.seconds
            && a.exercise?.intensity == b.exercise?.intensity && a.medication?.id == b.medication?.id
            && a.medication?.amount == b.medication?.amount && a.medicationInLiters == b.medicationInLiters
            && a.hbA1c == b.hbA1c
    }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> GlucoseMeasurementContext {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let flags = try reader.u8("Flags")
        var glucoseMeasurementContext = GlucoseMeasurementContext(sequenceNumber: try reader.u16("Sequence Number"))
        glucoseMeasurementContext.medicationInLiters = flags & 0x20 != 0
        if flags & 0x80 != 0 { glucoseMeasurementContext.extendedFlags = try reader.u8("Extended Flags") }
        if flags & 0x01 != 0 {
            let at = reader.offset
            let id = try reader.u8("Carbohydrate ID")
            guard (1...7).contains(id) else {
                throw invalid(at, "Carbohydrate ID", "\(id) is reserved; valid 1...7")
            }
            glucoseMeasurementContext.carbohydrate = (id, try reader.sfloat("Carbohydrate"))
        }
        if flags & 0x02 != 0 {
            let at = reader.offset
            let medicationFlags = try reader.u8("Meal")
            guard (1...5).contains(medicationFlags) else {
                throw invalid(at, "Meal", "\(medicationFlags) is reserved; valid 1...5")
            }
            glucoseMeasurementContext.meal = medicationFlags
        }
        if flags & 0x04 != 0 {
            let at = reader.offset
            let th = try reader.u8("Tester-Health")
            let tester = th & 0x0F
            let health = th >> 4
            guard (1...3).contains(tester) || tester == 15 else {
                throw invalid(at, "Tester", "\(tester) is reserved; valid 1...3, 15")
            }
            guard (1...5).contains(health) || health == 15 else {
                throw invalid(at, "Health", "\(health) is reserved; valid 1...5, 15")
            }
            glucoseMeasurementContext.testerHealth = (tester, health)
        }
        if flags & 0x08 != 0 {
            let seconds = try reader.u16("Exercise Duration")
            let at = reader.offset
            let intensity = try reader.u8("Exercise Intensity")
            guard intensity <= 100 else {
                throw invalid(at, "Exercise Intensity", "\(intensity) % exceeds 100 %")
            }
            glucoseMeasurementContext.exercise = (seconds, intensity)
        }
        if flags & 0x10 != 0 {
            let at = reader.offset
            let id = try reader.u8("Medication ID")
            guard (1...5).contains(id) else {
                throw invalid(at, "Medication ID", "\(id) is reserved; valid 1...5")
            }
            glucoseMeasurementContext.medication = (id, try reader.sfloat("Medication"))
        }
        if flags & 0x40 != 0 { glucoseMeasurementContext.hbA1c = try reader.sfloat("HbA1c") }
        try reader.finish()
        return glucoseMeasurementContext
    }

    /// A reserved or out-of-range value of `field` at byte `offset`.
    static func invalid(_ offset: Int, _ field: String, _ reason: String) -> GATTError {
        .invalidValue(characteristic: name, offset: offset, field: field, reason: reason)
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        var writer = ByteWriter(capacity: 17)
        var flags: UInt8 = medicationInLiters ? 0x20 : 0
        if carbohydrate != nil { flags |= 0x01 }
        if meal != nil { flags |= 0x02 }
        if testerHealth != nil { flags |= 0x04 }
        if exercise != nil { flags |= 0x08 }
        if medication != nil { flags |= 0x10 }
        if hbA1c != nil { flags |= 0x40 }
        if extendedFlags != nil { flags |= 0x80 }
        writer.u8(flags)
        writer.u16(sequenceNumber)
        if let extendedFlags { writer.u8(extendedFlags) }
        if let c = carbohydrate {
            writer.u8(c.id)
            writer.sfloat(c.kg)
        }
        if let meal { writer.u8(meal) }
        if let th = testerHealth {
            guard th.tester <= 15, th.health <= 15 else {
                throw .unencodable(characteristic: Self.name, field: "tester/health", reason: "each is a 4-bit nibble")
            }
            writer.u8(th.tester | th.health << 4)
        }
        if let e = exercise {
            writer.u16(e.seconds)
            writer.u8(e.intensity)
        }
        if let m = medication {
            writer.u8(m.id)
            writer.sfloat(m.amount)
        }
        if let hbA1c { writer.sfloat(hbA1c) }
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var members: [(String, JSONValue)] = [("sequenceNumber", .int(Int64(sequenceNumber)))]
        if let extendedFlags { members.append(("extendedFlags", .int(Int64(extendedFlags)))) }
        if let carbohydrate {
            members += [("carbohydrateID", .int(Int64(carbohydrate.id)))] + carbohydrate.kg.jsonFields("carbohydrateKg")
        }
        if let meal { members.append(("meal", .int(Int64(meal)))) }
        if let th = testerHealth {
            members += [("tester", .int(Int64(th.tester))), ("health", .int(Int64(th.health)))]
        }
        if let e = exercise {
            members += [("exerciseDuration", .int(Int64(e.seconds))), ("exerciseIntensity", .int(Int64(e.intensity)))]
        }
        if let medication {
            members += [("medicationID", .int(Int64(medication.id)))] + medication.amount.jsonFields("medication")
        }
        // The units flag is printed when set even without a medication, so the value re-encodes to itself.
        if medication != nil || medicationInLiters {
            members.append(("medicationUnit", .string(medicationInLiters ? "L" : "kg")))
        }
        if let hbA1c { members += hbA1c.jsonFields("hbA1c") }
        return .object(members)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        self.init(sequenceNumber: UInt16(try fieldInput.int("sequenceNumber", 0...65535)))
        extendedFlags = try fieldInput.optionalInt("extendedFlags", 0...255).map { UInt8($0) }
        if fieldInput.has("carbohydrateID") {
            carbohydrate = (UInt8(try fieldInput.int("carbohydrateID", 1...7)), try fieldInput.sfloat("carbohydrateKg"))
        }
        meal = try fieldInput.optionalInt("meal", 1...5).map { UInt8($0) }
        if fieldInput.has("tester") || fieldInput.has("health") {
            testerHealth = (UInt8(try fieldInput.int("tester", 1...15)), UInt8(try fieldInput.int("health", 1...15)))
        }
        if fieldInput.has("exerciseDuration") {
            exercise = (
                UInt16(try fieldInput.int("exerciseDuration", 0...65535)),
                UInt8(try fieldInput.int("exerciseIntensity", 0...100))
            )
        }
        if fieldInput.has("medicationID") {
            medication = (UInt8(try fieldInput.int("medicationID", 1...5)), try fieldInput.sfloat("medication"))
        }
        medicationInLiters = try fieldInput.choice("medicationUnit", ["kg", "L"], default: "kg") == "L"
        hbA1c = try fieldInput.optionalSFloat("hbA1c")
        try fieldInput.finish(known: [
            "sequenceNumber", "extendedFlags", "carbohydrateID", "carbohydrateKg", "meal", "tester", "health",
            "exerciseDuration", "exerciseIntensity", "medicationID", "medication", "medicationUnit", "hbA1c",
        ])
    }
}
