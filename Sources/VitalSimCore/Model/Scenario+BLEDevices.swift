extension Scenario {
    /// The scenario's Bluetooth devices that use a BLE link (`transport: ble`), in file order, with
    /// their patient ids: the devices a live run carries over a real BLE link with `--ble hci`.
    public var bleDevices: [(String, DeviceSpec)] {
        patients.flatMap { p in p.devices.map { (p.id, $0) } }.filter {
            $0.1.type.isBluetooth && $0.1.transport == .ble
        }
    }
}
