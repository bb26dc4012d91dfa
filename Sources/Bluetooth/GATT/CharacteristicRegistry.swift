import VitalSimCore

/// Every characteristic VitalSim can encode and decode, found by UUID (`0x2A37`, `2a37`) or name.
public enum CharacteristicRegistry {
    /// All supported characteristic types.
    public static let all: [any GATTCharacteristic.Type] = [
        HeartRateMeasurement.self, BodySensorLocation.self, HeartRateControlPoint.self,
        BloodPressureMeasurement.self, IntermediateCuffPressure.self, BloodPressureFeature.self,
        GlucoseMeasurement.self, GlucoseMeasurementContext.self, GlucoseFeature.self, RecordAccessControlPoint.self,
        CGMMeasurement.self, CGMFeature.self, CGMStatus.self, CGMSessionStartTime.self, CGMSessionRunTime.self,
        CGMSpecificOpsControlPoint.self,
        PLXSpotCheckMeasurement.self, PLXContinuousMeasurement.self, PLXFeatures.self,
        TemperatureMeasurement.self, TemperatureType.self, IntermediateTemperature.self, MeasurementInterval.self,
        WeightMeasurement.self, WeightScaleFeature.self, BatteryLevel.self, ClientCharacteristicConfiguration.self,
    ]

    /// Finds a characteristic by UUID or name; throws ``GATTError/unknownCharacteristic(_:)``.
    public static func lookup(_ key: String) throws(GATTError) -> any GATTCharacteristic.Type {
        var k = key.lowercased().trimmingWhitespace()
        if k.hasPrefix("org.bluetooth.characteristic.") { k.removeFirst("org.bluetooth.characteristic.".count) }
        k = String(k.map { $0 == "_" || $0 == " " ? "-" : $0 })
        var hex = k.hasPrefix("0x") ? String(k.dropFirst(2)) : k
        if hex.count == 36, hex.hasSuffix("-0000-1000-8000-00805f9b34fb"), hex.hasPrefix("0000") {
            hex = String(hex.dropFirst(4).prefix(4))
        }
        if hex.count == 4, let u = UInt16(hex, radix: 16), let t = all.first(where: { $0.uuid == u }) { return t }
        if let t = all.first(where: { $0.name == k }) { return t }
        throw .unknownCharacteristic(key)
    }

    /// Decodes `bytes` as the characteristic `type` and returns its fields, with `characteristic` and `uuid` first.
    public static func decodeToJSON(
        _ type: any GATTCharacteristic.Type,
        _ bytes: [UInt8]
    ) throws(GATTError) -> JSONValue {
        let value = try type.decode(bytes)
        guard case let .object(fields) = value.fields else { return value.fields }
        return .object([("characteristic", .string(type.name)), ("uuid", .string(type.uuidString))] + fields)
    }

    /// Encodes named fields as the characteristic `type`.
    public static func encode(
        _ type: any GATTCharacteristic.Type,
        fields: [String: String]
    ) throws(GATTError) -> [UInt8] {
        try type.init(fields: FieldInput(fields, characteristic: type.name)).encode()
    }
}
