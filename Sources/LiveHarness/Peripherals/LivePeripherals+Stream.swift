import Bluetooth
import BluetoothHost
import Foundation
import Traffic
import VitalSimCore

/// A payload a device has not been able to send yet.
struct Held {
    var uuid: UInt16
    var bytes: [UInt8]
    var indicate: Bool
    /// The reading's first payload (the reading counts as sent when it leaves).
    var first: Bool
    /// The reading's intended emit time (virtual ms).
    var emit: Int64
}

/// What one ``LivePeripherals/run(origin:onSent:)`` keeps between readings.
struct StreamState {
    var summary = LivePeripherals.Summary()
    /// Disconnect faults (`device@start`) whose link has been dropped, and those whose link is back.
    var down: Set<String> = []
    var up: Set<String> = []
    /// Devices advertising again after a disconnect fault, until a central subscribes.
    var awaiting: Set<Int> = []
    /// Per device, the payloads not sent yet.
    var held: [[Held]]
}

/// Virtual time to wall time at a speed (nil: as fast as the link allows).
struct Pacer {
    let started: ContinuousClock.Instant
    let speed: Double?

    /// Sleeps until virtual time `t` (ms) is due.
    func wait(until t: Int64) {
        guard let speed else { return }
        let due = started + .milliseconds(Int64(Double(t) / speed))
        let now = ContinuousClock.now
        if due > now { Thread.sleep(forTimeInterval: (due - now).seconds) }
    }
}

extension LivePeripherals {
    /// Disconnect faults: drops the link at the fault's start, advertises again at its end.
    ///
    /// Records measured while disconnected are stored before the central comes back, so that its
    /// RACP request finds them: the link comes back with the first reading that is not one of them.
    /// The device advertises again and goes on: what it measures until a central has subscribed
    /// again is held, and the other devices are not kept waiting.
    func applyDisconnectFaults(before reading: Reading, device i: Int, _ pacer: Pacer, _ state: inout StreamState) {
        for f in scenario.faults(for: reading.deviceID) where f.kind == .disconnect {
            let key = "\(f.deviceID)@\(f.start)"
            if reading.intendedEmitTime >= f.start, !state.down.contains(key) {
                state.down.insert(key)
                pacer.wait(until: f.start)
                try? peripherals[i].disconnect()
                state.summary.disconnects += 1
            }
            if reading.intendedEmitTime >= f.end, !state.up.contains(key), !reading.delivery.backfill {
                state.up.insert(key)
                pacer.wait(until: f.end)
                try? peripherals[i].reconnectable()
                state.awaiting.insert(i)
            }
        }
    }

    /// Stores glucose records for RACP, updates the battery level, and sends the reading's payloads
    /// (with whatever this and other devices still hold).
    func send(_ payloads: [EncodedPayload], of reading: Reading, device i: Int, _ state: inout StreamState) {
        if reading.kind == .glucose || reading.kind == .cgm {
            records.store(
                payloads.compactMap { $0.characteristic == nil ? nil : ($0.characteristic!, $0.bytes) },
                device: i
            )
            // Glucose meters and CGMs keep stored records for the central to fetch through RACP.
            if reading.delivery.backfill {
                state.summary.storedForRACP += 1
                return
            }
        }
        if reading.kind == .battery { peripherals[i].server.setValue(BatteryLevel.uuid, payloads.first?.bytes ?? []) }
        // A device keeps what it could not send yet (no central subscribed to that characteristic at
        // that moment, e.g. between a reconnection and the central's CCCD writes) and sends it first
        // once one is; readings are counted when they leave.
        let sendable = payloads.filter { $0.characteristic != nil }
        for (k, p) in sendable.enumerated() {
            state.held[i].append(
                Held(
                    uuid: p.characteristic!,
                    bytes: p.bytes,
                    indicate: p.indicate,
                    first: k == 0,
                    emit: reading.intendedEmitTime
                )
            )
        }
        // This device's payloads, and what other devices still hold (e.g. since a reconnection).
        for k in state.held.indices where k == i || !state.held[k].isEmpty { flush(k, &state) }
    }

    /// After the last reading: waits for centrals to come back, sends what is held (2 s at most per
    /// device), counts what never left, and brings back links still down.
    func finish(_ state: inout StreamState) {
        for k in state.awaiting.sorted() where reconnect(k) {
            state.summary.reconnects += 1
            flush(k, &state)
        }
        for device in state.held.indices where !state.held[device].isEmpty {
            let deadline = Date(timeIntervalSinceNow: 2)
            while !state.held[device].isEmpty, Date() < deadline {
                usleep(100_000)
                flush(device, &state)
            }
        }
        state.summary.notSubscribed += state.held.reduce(0) { $0 + $1.filter(\.first).count }
        // Links still down at the end (nothing but stored records came after the fault) come back now.
        for f in scenario.timeline.compactMap({ if case let .fault(f) = $0, f.kind == .disconnect { f } else { nil } })
        where state.down.contains("\(f.deviceID)@\(f.start)") && !state.up.contains("\(f.deviceID)@\(f.start)") {
            if let device = deviceIndex[f.deviceID], reconnect(device) { state.summary.reconnects += 1 }
        }
        for p in peripherals { p.drain() }
    }

    /// Sends device `i`'s held payloads in order per characteristic, each once a central has
    /// subscribed to it (at most 1,000 are kept per device).
    func flush(_ i: Int, _ state: inout StreamState) {
        var blocked: Set<UInt16> = []
        var keep: [Held] = []
        for h in state.held[i] {
            // A link that fails mid-stream (credits or confirmation timing out) keeps this payload for later.
            if !blocked.contains(h.uuid), (try? peripherals[i].send(h.uuid, h.bytes, indicate: h.indicate)) == true {
                if h.first {
                    state.summary.sent += 1
                    onSent?(h.emit, .now)
                }
            } else {
                blocked.insert(h.uuid)
                keep.append(h)
            }
        }
        if keep.count > 1000 {
            state.summary.notSubscribed += keep.prefix(keep.count - 1000).filter(\.first).count
            keep.removeFirst(keep.count - 1000)
        }
        state.held[i] = keep
    }
}
