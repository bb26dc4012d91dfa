import Foundation

/// How a live run's BLE devices fared on a real BLE link (`vitalsim run --ble hci`).
package struct BLELinkSummary: Sendable, Codable {
    /// The devices carried over BLE, as `patient/device` (their readings' ids start with it and `/`).
    package var devices: [String]
    /// Readings that left their device (notification handed to the controller, indication confirmed).
    package var sent = 0
    /// Readings that never left: no central was subscribed to their characteristic by the end.
    package var notSent = 0
    package var disconnects = 0
    package var reconnects = 0
    /// Glucose/CGM records measured while disconnected, kept for the central to fetch through RACP.
    package var storedForRACP = 0

    package init(devices: [String]) { self.devices = devices }

    /// True when the reading `id` belongs to one of the BLE devices.
    package func carries(_ id: String) -> Bool { devices.contains { id.hasPrefix($0 + "/") } }
}
