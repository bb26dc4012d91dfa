/// 16-bit UUIDs of the GATT services VitalSim's devices expose (Bluetooth Assigned Numbers, §3.4.2).
public enum GATTService {
    /// Generic Access (device name).
    public static let genericAccess: UInt16 = 0x1800
    /// Health Thermometer.
    public static let healthThermometer: UInt16 = 0x1809
    /// Heart Rate.
    public static let heartRate: UInt16 = 0x180D
    /// Battery.
    public static let battery: UInt16 = 0x180F
    /// Glucose.
    public static let glucose: UInt16 = 0x1808
    /// Blood Pressure.
    public static let bloodPressure: UInt16 = 0x1810
    /// Weight Scale.
    public static let weightScale: UInt16 = 0x181D
    /// Continuous Glucose Monitoring.
    public static let continuousGlucoseMonitoring: UInt16 = 0x181F
    /// Pulse Oximeter.
    public static let pulseOximeter: UInt16 = 0x1822
}

/// 16-bit UUIDs of GATT declarations and of the GAP device name (Assigned Numbers, §3.5 and §3.8).
public enum GATTAttributeType {
    /// Primary Service declaration.
    public static let primaryService: UInt16 = 0x2800
    /// Secondary Service declaration.
    public static let secondaryService: UInt16 = 0x2801
    /// Characteristic declaration.
    public static let characteristic: UInt16 = 0x2803
    /// Client Characteristic Configuration descriptor.
    public static let clientCharacteristicConfiguration: UInt16 = 0x2902
    /// GAP Device Name characteristic.
    public static let deviceName: UInt16 = 0x2A00
}
