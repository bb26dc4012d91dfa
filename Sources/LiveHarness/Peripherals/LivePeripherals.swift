import Bluetooth
import BluetoothHost
import Foundation
import Locking
import Traffic
import VitalSimCore

/// `vitalsim peripheral`: runs a scenario's BLE devices as live peripherals over HCI, one
/// controller per device, and streams their readings as notifications and indications at the
/// scenario's times (scaled by `speed`), with no SUT attached.
package final class LivePeripherals {
    package struct Summary: Sendable {
        package var sent = 0
        /// Readings never sent: no central subscribed to their characteristic before the run ended
        /// (a reading is held until one does).
        package var notSubscribed = 0
        package var disconnects = 0
        package var reconnects = 0
        /// Backfilled glucose/CGM records left for the central to fetch with RACP.
        package var storedForRACP = 0
    }

    /// How long to wait for a central to come back after a disconnect fault.
    package var reconnectTimeout: TimeInterval = 30

    package let scenario: Scenario
    let seed: UInt64?
    let speed: Double?
    package private(set) var peripherals: [HCIPeripheral] = []
    var deviceIndex: [String: Int] = [:]
    /// Glucose records kept for RACP, per peripheral.
    let records = RecordStore()

    /// - Parameters:
    ///   - hci: one `--hci` value per BLE device of the scenario, in file order.
    ///   - speed: virtual seconds per wall second; nil runs as fast as the link allows.
    ///   - captureDirectory: where to write one btsnoop file per device.
    package init(scenario: Scenario, seed: UInt64?, hci: [String], speed: Double?, captureDirectory: String?) throws {
        self.scenario = scenario
        self.seed = seed
        self.speed = speed
        let devices = scenario.bleDevices
        guard devices.count == hci.count else {
            throw HCIError.badSpec(
                "\(hci.count) HCI controller(s) for \(devices.count) BLE device(s) (\(devices.map(\.1.id).joined(separator: ", "))); give one per device"
            )
        }
        for (i, ((patientID, spec), transportSpec)) in zip(devices, hci).enumerated() {
            let transport = try HCITransports.open(transportSpec)
            let capture = try captureDirectory.map {
                try BTSnoopWriter(path: "\($0)/\(patientID)-\(spec.id).live.btsnoop")
            }
            let address = StaticRandomAddress.derive(seed: scenario.seed, label: "\(patientID)/\(spec.id)")
            let peripheral = HCIPeripheral(
                transport: transport,
                database: GATTDatabase.forDevice(spec.type, name: "VitalSim \(spec.type.rawValue)"),
                name: spec.id,
                address: address,
                capture: capture
            )
            let store = records
            peripheral.onRACP = { [weak peripheral] value in
                guard let peripheral else { return }
                store.serve(value, peripheral: peripheral, device: i)
            }
            if spec.type == .cgm,
                let start = try? CGMSessionStartTime(start: DateTime(unixMilliseconds: scenario.startUnixMilliseconds))
                    .encode()
            {
                // The session starts with the scenario: records carry minutes since then.
                peripheral.server.setValue(CGMSessionStartTime.uuid, start)
            }
            peripherals.append(peripheral)
            deviceIndex[spec.id] = i
        }
    }

    /// Starts every peripheral (controller set-up and advertising).
    package func start() throws {
        for peripheral in peripherals { try peripheral.start() }
    }

    /// Waits until every peripheral has a subscribed central.
    /// - Parameter settle: how long a central that has subscribed to some characteristics may pause
    ///   before the subset counts as its choice.
    package func waitForCentrals(timeout: TimeInterval, settle: TimeInterval = 1.5) -> Bool {
        peripherals.allSatisfy { $0.waitForSubscription(timeout: timeout, settle: settle) }
    }

    /// Streams the scenario's readings to the peripherals.
    /// - Parameters:
    /// - origin: the wall moment of the scenario's start (default: now); a live run shares it with its other
    /// transports.
    ///   - onSent: called when a reading has left its device (a notification handed to the controller,
    ///     an indication confirmed), with its intended emit time (virtual ms) and the moment; not for
    ///     records served later through RACP.
    package func run(
        origin: ContinuousClock.Instant? = nil,
        onSent: (@Sendable (Int64, ContinuousClock.Instant) -> Void)? = nil
    ) -> Summary {
        var state = StreamState(held: Array(repeating: [], count: peripherals.count))
        var run = ScenarioRun(scenario: scenario, seed: seed)
        let encoder = ReadingEncoder(startUnixMilliseconds: scenario.startUnixMilliseconds)
        let pacer = Pacer(started: origin ?? ContinuousClock.now, speed: speed)
        self.onSent = onSent
        while let (reading, _) = run.next() {
            guard let device = deviceIndex[reading.deviceID] else { continue }
            applyDisconnectFaults(before: reading, device: device, pacer, &state)
            for k in state.awaiting.sorted() where peripherals[k].isSubscribed {
                state.awaiting.remove(k)
                state.summary.reconnects += 1
            }
            pacer.wait(until: reading.intendedEmitTime)
            send(encoder.encode(reading), of: reading, device: device, &state)
        }
        finish(&state)
        return state.summary
    }

    /// Told about each reading that leaves its device (see ``run(origin:onSent:)``).
    var onSent: (@Sendable (Int64, ContinuousClock.Instant) -> Void)?

    /// Advertises again after a disconnect fault and waits for a central to subscribe.
    func reconnect(_ i: Int) -> Bool {
        try? peripherals[i].reconnectable()
        return peripherals[i].waitForSubscription(timeout: reconnectTimeout)
    }

    /// Stops the peripherals and flushes their captures.
    package func stop() { for p in peripherals { p.stop() } }
}
