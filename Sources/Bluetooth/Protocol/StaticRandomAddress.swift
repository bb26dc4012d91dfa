import VitalSimCore

/// Deterministic BLE random static addresses for simulated devices (the two top bits set, as the
/// Core Specification requires), derived from the scenario seed and a label such as `PATIENT/DEVICE`.
package enum StaticRandomAddress {
    /// Six bytes in HCI order (least significant first).
    package static func derive(seed: UInt64, label: String) -> [UInt8] {
        var rng = SeededRandom(seed: seed).split("ble-address:" + label)
        let bits = rng.next()
        var address = (0..<6).map { UInt8(truncatingIfNeeded: bits >> UInt64(8 * $0)) }
        address[5] |= 0xC0
        return address
    }
}
