import VitalSimCore

/// Characteristic properties (ATT characteristic declaration bits).
public struct CharacteristicProperties: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt8
    /// Properties from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The value may be read.
    public static let read = Self(rawValue: 0x02)
    /// The value may be written without a response.
    public static let writeWithoutResponse = Self(rawValue: 0x04)
    /// The value may be written.
    public static let write = Self(rawValue: 0x08)
    /// The value may be notified.
    public static let notify = Self(rawValue: 0x10)
    /// The value may be indicated (confirmed).
    public static let indicate = Self(rawValue: 0x20)
}

/// One attribute of a GATT server.
public struct Attribute: Sendable, Equatable {
    /// The attribute handle.
    public var handle: UInt16
    /// Attribute type UUID (0x2800 service, 0x2803 characteristic, 0x2902 CCCD, or the characteristic UUID).
    public var type: UInt16
    /// The attribute value.
    public var value: [UInt8]
}

/// A characteristic as laid out in a database.
public struct CharacteristicEntry: Sendable, Equatable {
    /// The assigned 16-bit UUID.
    public var uuid: UInt16
    /// The characteristic's properties.
    public var properties: CharacteristicProperties
    /// Handle of the characteristic declaration.
    public var declarationHandle: UInt16
    /// Handle of the characteristic value.
    public var valueHandle: UInt16
    /// Handle of its Client Characteristic Configuration descriptor, for notifying or indicating characteristics.
    public var cccdHandle: UInt16?
}

/// A service with its handle range.
public struct ServiceEntry: Sendable, Equatable {
    /// The assigned 16-bit UUID.
    public var uuid: UInt16
    /// First handle of the service.
    public var startHandle: UInt16
    /// Last handle of the service.
    public var endHandle: UInt16
    /// The service's characteristics in handle order.
    public var characteristics: [CharacteristicEntry]
}

/// The GATT database of a simulated device type, with Bluetooth SIG properties (HRM notify, BPM indicate, …).
public struct GATTDatabase: Sendable {
    /// Every attribute in handle order.
    public private(set) var attributes: [Attribute] = []
    /// Every service in handle order.
    public private(set) var services: [ServiceEntry] = []

    /// Builds the database of a device type: GAP (device name), its health service, Battery.
    public static func forDevice(_ type: DeviceType, name: String) -> GATTDatabase {
        var db = GATTDatabase()
        db.addService(GATTService.genericAccess, [(GATTAttributeType.deviceName, [.read], Array(name.utf8.prefix(20)))])
        if let (service, characteristics) = healthService(of: type) { db.addService(service, characteristics) }
        db.addService(GATTService.battery, [(BatteryLevel.uuid, [.read, .notify], [100])])
        return db
    }

    /// A characteristic in a service definition: UUID, properties, initial value.
    typealias CharacteristicDefinition = (UInt16, CharacteristicProperties, [UInt8])

    /// The health service of a device type with its characteristics (nil for devices without BLE).
    static func healthService(of type: DeviceType) -> (UInt16, [CharacteristicDefinition])? {
        switch type {
        case .heartRateStrap:
            (
                GATTService.heartRate,
                [
                    (HeartRateMeasurement.uuid, [.notify], []), (BodySensorLocation.uuid, [.read], [1]),
                    (HeartRateControlPoint.uuid, [.write], []),
                ]
            )
        case .bpCuff:
            (
                GATTService.bloodPressure,
                [
                    (BloodPressureMeasurement.uuid, [.indicate], []), (IntermediateCuffPressure.uuid, [.notify], []),
                    (BloodPressureFeature.uuid, [.read], [0x04, 0x00]),
                ]
            )
        case .glucometer:
            (
                GATTService.glucose,
                [
                    (GlucoseMeasurement.uuid, [.notify], []), (GlucoseMeasurementContext.uuid, [.notify], []),
                    (GlucoseFeature.uuid, [.read], [0x01, 0x00]),
                    (RecordAccessControlPoint.uuid, [.write, .indicate], []),
                ]
            )
        case .cgm: (GATTService.continuousGlucoseMonitoring, cgmCharacteristics)
        case .pulseOximeter:
            (
                GATTService.pulseOximeter,
                [
                    (PLXSpotCheckMeasurement.uuid, [.indicate], []), (PLXContinuousMeasurement.uuid, [.notify], []),
                    (PLXFeatures.uuid, [.read], [0x00, 0x00]),
                ]
            )
        case .thermometer:
            (
                GATTService.healthThermometer,
                [(TemperatureMeasurement.uuid, [.indicate], []), (TemperatureType.uuid, [.read], [6])]
            )
        case .weightScale:
            (
                GATTService.weightScale,
                [(WeightScaleFeature.uuid, [.read], [0, 0, 0, 0]), (WeightMeasurement.uuid, [.indicate], [])]
            )
        case .phoneBridge, .feedingLog, .respirationMonitor, .symptomDiary, .ecgWatch, .equipmentLog: nil
        }
    }

    /// The CGM service: measurement with E2E-CRC, feature, status, session times, RACP, CGM control point.
    static var cgmCharacteristics: [CharacteristicDefinition] {
        let feature = (try? CGMFeature(features: CGMFeature.e2eCRCSupported | 0x01).encode()) ?? []
        return [
            (CGMMeasurement.uuid, [.notify], []), (CGMFeature.uuid, [.read], feature), (CGMStatus.uuid, [.read], []),
            (CGMSessionStartTime.uuid, [.read, .write], []), (CGMSessionRunTime.uuid, [.read], [0x50, 0x01]),
            (RecordAccessControlPoint.uuid, [.write, .indicate], []),
            (CGMSpecificOpsControlPoint.uuid, [.write, .indicate], []),
        ]
    }

    mutating func addService(_ uuid: UInt16, _ chars: [CharacteristicDefinition]) {
        var handle = UInt16(attributes.count + 1)
        let start = handle
        attributes.append(Attribute(handle: handle, type: GATTAttributeType.primaryService, value: le(uuid)))
        var entries: [CharacteristicEntry] = []
        for (cu, props, value) in chars {
            let decl = handle + 1
            let valueHandle = handle + 2
            attributes.append(
                Attribute(
                    handle: decl,
                    type: GATTAttributeType.characteristic,
                    value: [props.rawValue] + le(valueHandle) + le(cu)
                )
            )
            attributes.append(Attribute(handle: valueHandle, type: cu, value: value))
            handle = valueHandle
            var cccd: UInt16?
            if props.contains(.notify) || props.contains(.indicate) {
                handle += 1
                cccd = handle
                attributes.append(
                    Attribute(handle: handle, type: GATTAttributeType.clientCharacteristicConfiguration, value: [0, 0])
                )
            }
            entries.append(
                CharacteristicEntry(
                    uuid: cu,
                    properties: props,
                    declarationHandle: decl,
                    valueHandle: valueHandle,
                    cccdHandle: cccd
                )
            )
        }
        services.append(ServiceEntry(uuid: uuid, startHandle: start, endHandle: handle, characteristics: entries))
    }

    /// The characteristic with this UUID (first match).
    public func characteristic(_ uuid: UInt16) -> CharacteristicEntry? {
        for s in services {
            if let characteristic = s.characteristics.first(where: { $0.uuid == uuid }) { return characteristic }
        }
        return nil
    }

    private func le(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
}
