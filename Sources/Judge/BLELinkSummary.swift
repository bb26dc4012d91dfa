import Foundation

/// How a live run's BLE devices fared on a real BLE link (`vitalsim run --ble hci`).
public struct BLELinkSummary: Sendable {
    /// The devices carried over BLE, as `patient/device` (their readings' ids start with it and `/`).
    public var devices: [String]
    /// Readings that left their device (notification handed to the controller, indication confirmed).
    public var sent = 0
    /// Readings that never left: no central was subscribed to their characteristic by the end.
    public var notSent = 0
    public var disconnects = 0
    public var reconnects = 0
    /// Glucose/CGM records measured while disconnected, kept for the central to fetch through RACP.
    public var storedForRACP = 0

    public init(devices: [String]) { self.devices = devices }

    /// True when the reading `id` belongs to one of the BLE devices.
    public func carries(_ id: String) -> Bool { devices.contains { id.hasPrefix($0 + "/") } }
}
