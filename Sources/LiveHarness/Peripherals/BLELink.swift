import Bluetooth
import BluetoothHost
import Clocks
import Foundation
import Judge
import Locking
import RunRecord
import VitalSimCore

/// The BLE side of a live run (`vitalsim run --ble hci`): the scenario's Bluetooth devices as live
/// peripherals on HCI controllers, streaming their readings on the run's schedule (disconnect
/// faults drop and restore the link; glucose records measured meanwhile wait for RACP) while the
/// SUT's gateway, as the central, subscribes and ingests.
///
/// The peripherals are used by one thread at a time (connection on the caller's, the run on the
/// link's own thread, stopping after the run has ended); the mutex makes that hand-over explicit.
final class BLELink: Sendable {
    let peripherals: Locked<LivePeripherals>
    let scenario: Scenario
    let speed: Double
    /// Set once the peripherals' run has ended.
    let result = Locked<LivePeripherals.Summary?>(nil)

    init(
        scenario: Scenario,
        seed: UInt64?,
        hci: [String],
        speed: Double,
        captureDirectory: String?
    ) throws(HarnessError) {
        do {
            let devices = try LivePeripherals(
                scenario: scenario,
                seed: seed,
                hci: hci,
                speed: speed,
                captureDirectory: captureDirectory
            )
            peripherals = Locked(devices)
        } catch {
            throw .infrastructure("\(scenario.name): cannot open the BLE devices' controllers: \(error)")
        }
        self.scenario = scenario
        self.speed = speed
    }

    /// Starts advertising and waits until a central has subscribed to every device.
    func connect(timeout: TimeInterval) throws(HarnessError) {
        let waiting: [String]? = try peripherals.withLock {
            (devices: inout LivePeripherals) throws(HarnessError) -> [String]? in
            do { try devices.start() } catch { throw .infrastructure("BLE devices: \(error)") }
            guard devices.waitForCentrals(timeout: timeout, settle: 5) else {
                return devices.peripherals.filter { !$0.isSubscribed }.map(\.name)
            }
            return nil
        }
        if let waiting {
            throw .infrastructure(
                "no BLE central subscribed to \(waiting.joined(separator: ", ")) within \(Int(timeout)) s (is the SUT's gateway running and pointed at these controllers?)"
            )
        }
    }

    /// The run's BLE traffic, on the schedule that starts now; its acknowledgement latencies are
    /// the moments readings left their devices, from their intended emit times. The devices keep
    /// time on the monotonic clock, the runner on `clock`: both origins are read together.
    func alongside(startUnixMilliseconds: Int64, clock: AnyClock<Duration>) -> LiveRunner.Alongside {
        let origin = ContinuousClock.now
        let runOrigin = clock.now
        let windows = backfillWindows
        // An alert judged on records measured while a glucose meter or CGM was disconnected could not
        // be raised before that device came back: it is timed from the reconnection.
        let due: @Sendable (ObservedAlert) -> Int64 = { alert in
            let time = alert.raisedAt - startUnixMilliseconds
            return windows.first { $0.patientID == alert.patientID && $0.start <= time && time < $0.end }?.end ?? time
        }
        return LiveRunner.Alongside(origin: runOrigin, startUnixMilliseconds: startUnixMilliseconds, due: due) {
            await withCheckedContinuation { (done: CheckedContinuation<[UInt64], Never>) in
                let thread = Thread {
                    let samples = Locked<[UInt64]>([])
                    let speed = self.speed
                    let summary = self.peripherals.withLock { devices in
                        devices.run(origin: origin) { emit, at in
                            let due = origin + .microseconds(Int64(Double(emit) * 1000 / speed))
                            samples.withLock { $0.append(Duration.nonNegativeMicroseconds(at - due)) }
                        }
                    }
                    self.result.withLock { $0 = summary }
                    done.resume(returning: samples.withLock { $0 })
                }
                thread.name = "vitalsim.ble-link"
                thread.start()
            }
        }
    }

    /// Disconnect faults of devices that keep records for RACP (virtual ms from the start).
    var backfillWindows: [(patientID: String, start: Int64, end: Int64)] {
        let owners = Dictionary(
            scenario.bleDevices.filter { $0.1.type == .glucometer || $0.1.type == .cgm }
                .map { ($0.1.id, $0.0) },
            uniquingKeysWith: { a, _ in a }
        )
        return scenario.timeline.compactMap { e in
            guard case let .fault(f) = e, f.kind == .disconnect, let patient = owners[f.deviceID] else { return nil }
            return (patient, f.start, f.end)
        }
    }

    /// What happened on the link (after the run).
    func summary(devices: [String]) -> BLELinkSummary {
        var bleLinkSummary = BLELinkSummary(devices: devices)
        if let linkResult = result.withLock({ $0 }) {
            bleLinkSummary.sent = linkResult.sent
            bleLinkSummary.notSent = linkResult.notSubscribed
            bleLinkSummary.disconnects = linkResult.disconnects
            bleLinkSummary.reconnects = linkResult.reconnects
            bleLinkSummary.storedForRACP = linkResult.storedForRACP
        }
        return bleLinkSummary
    }

    /// Stops the peripherals (closing their links and captures).
    func stop() { peripherals.withLock { $0.stop() } }
}
