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
        var normalized = key.lowercased().trimmingWhitespace()
        if normalized.hasPrefix("org.bluetooth.characteristic.") {
            normalized.removeFirst("org.bluetooth.characteristic.".count)
        }
        normalized = String(normalized.map { $0 == "_" || $0 == " " ? "-" : $0 })
        var hex = normalized.hasPrefix("0x") ? String(normalized.dropFirst(2)) : normalized
        if hex.count == 36, hex.hasSuffix("-0000-1000-8000-00805f9b34fb"), hex.hasPrefix("0000") {
            hex = String(hex.dropFirst(4).prefix(4))
        }
        if hex.count == 4, let uuid = UInt16(hex, radix: 16), let characteristic = all.first(where: { $0.uuid == uuid })
        {
            return characteristic
        }
        if let characteristic = all.first(where: { $0.name == normalized }) { return characteristic }
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
