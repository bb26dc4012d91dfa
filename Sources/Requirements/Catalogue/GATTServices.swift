import Bluetooth

/// The service each GATT characteristic VitalSim encodes belongs to (its specification is in
/// `requirements.yaml`'s `services:`): assigned numbers of the Bluetooth SIG.
enum GATTServices {
    static let byCharacteristic: [UInt16: String] = [
        0x2A37: "heart-rate", 0x2A38: "heart-rate", 0x2A39: "heart-rate",
        0x2A35: "blood-pressure", 0x2A36: "blood-pressure", 0x2A49: "blood-pressure",
        0x2A18: "glucose", 0x2A34: "glucose", 0x2A51: "glucose", 0x2A52: "glucose",
        0x2AA7: "cgm", 0x2AA8: "cgm", 0x2AA9: "cgm", 0x2AAA: "cgm", 0x2AAB: "cgm", 0x2AAC: "cgm",
        0x2A5E: "pulse-oximeter", 0x2A5F: "pulse-oximeter", 0x2A60: "pulse-oximeter",
        0x2A1C: "health-thermometer", 0x2A1D: "health-thermometer", 0x2A1E: "health-thermometer",
        0x2A21: "health-thermometer",
        0x2A9D: "weight-scale", 0x2A9E: "weight-scale",
        0x2A19: "battery",
        0x2902: "generic",
    ]
}
