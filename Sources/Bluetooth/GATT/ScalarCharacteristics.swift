import VitalSimCore

/// Describes a characteristic whose value is one unsigned integer.
public protocol ScalarSpec: Sendable {
    static var uuid: UInt16 { get }
    static var name: String { get }
    /// JSON / command-line field name.
    static var field: String { get }
    /// Width in bytes (1, 2, 3 or 4).
    static var width: Int { get }
    /// Allowed values; others are rejected as invalid (RFU).
    static var valid: ClosedRange<UInt32> { get }
    /// Optional names of values.
    static var names: [UInt32: String] { get }
}

extension ScalarSpec {
    /// Names of the values that have one (`vitalsim decode` prints them).
    public static var names: [UInt32: String] { [:] }
}

/// A characteristic holding one unsigned integer (Battery Level, Body Sensor Location, feature bit fields, …).
public struct ScalarCharacteristic<Spec: ScalarSpec>: GATTCharacteristic {
    /// The assigned 16-bit UUID.
    public static var uuid: UInt16 { Spec.uuid }
    /// The command-line name (`vitalsim decode`, `vitalsim encode`).
    public static var name: String { Spec.name }
    /// The value.
    public var value: UInt32

    /// A value; out of the valid range, encoding fails.
    public init(_ value: UInt32) { self.value = value }

    /// Decodes a value strictly; throws ``GATTError`` naming the byte offset of any problem.
    public static func decode(_ bytes: [UInt8]) throws(GATTError) -> Self {
        var reader = try ByteReader(value: bytes, characteristic: name)
        let value: UInt32
        switch Spec.width {
        case 1: value = UInt32(try reader.u8(Spec.field))
        case 2: value = UInt32(try reader.u16(Spec.field))
        case 3: value = try reader.u24(Spec.field)
        default: value = try reader.u32(Spec.field)
        }
        guard Spec.valid.contains(value) else {
            throw .invalidValue(
                characteristic: name,
                offset: 0,
                field: Spec.field,
                reason: "\(value) outside \(Spec.valid.lowerBound)...\(Spec.valid.upperBound)"
            )
        }
        try reader.finish()
        return Self(value)
    }

    /// Encodes the value as the characteristic's bytes; throws ``GATTError`` for a value the layout cannot carry.
    public func encode() throws(GATTError) -> [UInt8] {
        guard Spec.valid.contains(value) else {
            throw .unencodable(
                characteristic: Self.name,
                field: Spec.field,
                reason: "\(value) outside \(Spec.valid.lowerBound)...\(Spec.valid.upperBound)"
            )
        }
        var writer = ByteWriter()
        switch Spec.width {
        case 1: writer.u8(UInt8(value))
        case 2: writer.u16(UInt16(value))
        case 3: writer.u24(value)
        default: writer.u32(value)
        }
        return writer.bytes
    }

    /// The decoded fields, as `vitalsim decode` prints them.
    public var fields: JSONValue {
        var members: [(String, JSONValue)] = [(Spec.field, .int(Int64(value)))]
        if let name = Spec.names[value] { members.append((Spec.field + "Name", .string(name))) }
        return .object(members)
    }

    /// Builds the value from named fields (`vitalsim encode`); throws ``GATTError`` naming a missing or invalid field.
    public init(fields fieldInput: FieldInput) throws(GATTError) {
        let max = Int(Spec.valid.upperBound)
        self.init(UInt32(try fieldInput.int(Spec.field, Int(Spec.valid.lowerBound)...max)))
        try fieldInput.finish(known: [Spec.field])
    }
}

/// The definition of the BatteryLevel characteristic.
public enum BatteryLevelSpec: ScalarSpec {
    public static let uuid: UInt16 = 0x2A19, name = "battery-level", field = "batteryLevel", width = 1
    /// The values the characteristic allows.
    public static let valid: ClosedRange<UInt32> = 0...100
}
/// The BatteryLevel characteristic.
public typealias BatteryLevel = ScalarCharacteristic<BatteryLevelSpec>

/// The definition of the BodySensorLocation characteristic.
public enum BodySensorLocationSpec: ScalarSpec {
    public static let uuid: UInt16 = 0x2A38, name = "body-sensor-location", field = "location", width = 1
    /// The values the characteristic allows.
    public static let valid: ClosedRange<UInt32> = 0...6
    /// Names of the values that have one (`vitalsim decode` prints them).
    public static let names: [UInt32: String] = [
        0: "other", 1: "chest", 2: "wrist", 3: "finger", 4: "hand", 5: "ear-lobe", 6: "foot",
    ]
}
/// The BodySensorLocation characteristic.
public typealias BodySensorLocation = ScalarCharacteristic<BodySensorLocationSpec>

/// The definition of the HeartRateControlPoint characteristic.
public enum HeartRateControlPointSpec: ScalarSpec {
    public static let uuid: UInt16 = 0x2A39, name = "heart-rate-control-point", field = "opCode", width = 1
    /// The values the characteristic allows.
    public static let valid: ClosedRange<UInt32> = 1...1
    /// Names of the values that have one (`vitalsim decode` prints them).
    public static let names: [UInt32: String] = [1: "reset-energy-expended"]
}
/// The HeartRateControlPoint characteristic.
public typealias HeartRateControlPoint = ScalarCharacteristic<HeartRateControlPointSpec>

/// The definition of the TemperatureType characteristic.
public enum TemperatureTypeSpec: ScalarSpec {
    public static let uuid: UInt16 = 0x2A1D, name = "temperature-type", field = "temperatureType", width = 1
    /// The values the characteristic allows.
    public static let valid: ClosedRange<UInt32> = 1...9
    /// Names of the values that have one (`vitalsim decode` prints them).
    public static let names: [UInt32: String] = [
        1: "armpit", 2: "body", 3: "ear", 4: "finger", 5: "gastro-intestinal-tract",
        6: "mouth", 7: "rectum", 8: "toe", 9: "tympanum",
    ]
}
/// The TemperatureType characteristic.
public typealias TemperatureType = ScalarCharacteristic<TemperatureTypeSpec>

/// The definition of the MeasurementInterval characteristic.
public enum MeasurementIntervalSpec: ScalarSpec {
    public static let uuid: UInt16 = 0x2A21, name = "measurement-interval", field = "seconds", width = 2
    /// The values the characteristic allows.
    public static let valid: ClosedRange<UInt32> = 0...65535
}
/// The MeasurementInterval characteristic.
public typealias MeasurementInterval = ScalarCharacteristic<MeasurementIntervalSpec>

/// The definition of the BloodPressureFeature characteristic.
public enum BloodPressureFeatureSpec: ScalarSpec {
    public static let uuid: UInt16 = 0x2A49, name = "blood-pressure-feature", field = "features", width = 2
    /// The values the characteristic allows.
    public static let valid: ClosedRange<UInt32> = 0...0x01FF
}
/// The BloodPressureFeature characteristic.
public typealias BloodPressureFeature = ScalarCharacteristic<BloodPressureFeatureSpec>

/// The definition of the GlucoseFeature characteristic.
public enum GlucoseFeatureSpec: ScalarSpec {
    public static let uuid: UInt16 = 0x2A51, name = "glucose-feature", field = "features", width = 2
    /// The values the characteristic allows.
    public static let valid: ClosedRange<UInt32> = 0...0x07FF
}
/// The GlucoseFeature characteristic.
public typealias GlucoseFeature = ScalarCharacteristic<GlucoseFeatureSpec>

/// The definition of the WeightScaleFeature characteristic.
public enum WeightScaleFeatureSpec: ScalarSpec {
    public static let uuid: UInt16 = 0x2A9E, name = "weight-scale-feature", field = "features", width = 4
    /// The values the characteristic allows.
    public static let valid: ClosedRange<UInt32> = 0...0x03FF
}
/// The WeightScaleFeature characteristic.
public typealias WeightScaleFeature = ScalarCharacteristic<WeightScaleFeatureSpec>

/// The definition of the CGMSessionRunTime characteristic.
public enum CGMSessionRunTimeSpec: ScalarSpec {
    public static let uuid: UInt16 = 0x2AAB, name = "cgm-session-run-time", field = "hours", width = 2
    /// The values the characteristic allows.
    public static let valid: ClosedRange<UInt32> = 0...65535
}
/// The CGMSessionRunTime characteristic.
public typealias CGMSessionRunTime = ScalarCharacteristic<CGMSessionRunTimeSpec>

/// The definition of the ClientCharacteristicConfiguration characteristic.
public enum ClientCharacteristicConfigurationSpec: ScalarSpec {
    public static let uuid: UInt16 = 0x2902, name = "client-characteristic-configuration", field = "configuration",
        width = 2
    /// The values the characteristic allows.
    public static let valid: ClosedRange<UInt32> = 0...3
    /// Names of the values that have one (`vitalsim decode` prints them).
    public static let names: [UInt32: String] = [
        0: "off", 1: "notifications", 2: "indications", 3: "notifications+indications",
    ]
}
/// The ClientCharacteristicConfiguration characteristic.
public typealias ClientCharacteristicConfiguration = ScalarCharacteristic<ClientCharacteristicConfigurationSpec>
