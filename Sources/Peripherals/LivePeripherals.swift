import BLE
import Foundation
import GATT
import GATTPrimitives
import Locking
import Payloads
import TrafficPlanning
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
                "\(hci.count) --hci value(s) for \(devices.count) BLE device(s) (\(devices.map(\.1.id).joined(separator: ", "))); give one per device"
            )
        }
        for (i, ((patientID, spec), transportSpec)) in zip(devices, hci).enumerated() {
            let transport = try HCITransports.open(transportSpec)
            let capture = try captureDirectory.map { try BTSnoopWriter(path: "\($0)/\(patientID)-\(spec.id).live.btsnoop") }
            let address = StaticRandomAddress.derive(seed: scenario.seed, label: "\(patientID)/\(spec.id)")
            let p = HCIPeripheral(
                transport: transport,
                database: GATTDatabase.forDevice(spec.type, name: "VitalSim \(spec.type.rawValue)"),
                name: spec.id,
                address: address,
                capture: capture
            )
            let store = records
            p.onRACP = { [weak p] value in
                guard let p else { return }
                store.serve(value, peripheral: p, device: i)
            }
            if spec.type == .cgm,
                let start = try? CGMSessionStartTime(start: DateTime(unixMilliseconds: scenario.startUnixMilliseconds)).encode()
            {
                // The session starts with the scenario: records carry minutes since then.
                p.server.setValue(CGMSessionStartTime.uuid, start)
            }
            peripherals.append(p)
            deviceIndex[spec.id] = i
        }
    }

    /// Starts every peripheral (controller set-up and advertising).
    package func start() throws {
        for p in peripherals { try p.start() }
    }

    /// Waits until every peripheral has a subscribed central.
    /// - Parameter settle: how long a central that has subscribed to some characteristics may pause
    ///   before the subset counts as its choice.
    package func waitForCentrals(timeout: TimeInterval, settle: TimeInterval = 1.5) -> Bool {
        peripherals.allSatisfy { $0.waitForSubscription(timeout: timeout, settle: settle) }
    }

    /// Streams the scenario's readings to the peripherals.
    /// - Parameters:
    ///   - origin: the wall moment of the scenario's start (default: now); a live run shares it with its other transports.
    ///   - onSent: called when a reading has left its device (a notification handed to the controller,
    ///     an indication confirmed), with its intended emit time (virtual ms) and the moment; not for
    ///     records served later through RACP.
    package func run(origin: ContinuousClock.Instant? = nil, onSent: (@Sendable (Int64, ContinuousClock.Instant) -> Void)? = nil) -> Summary
    {
        var summary = Summary()
        var run = ScenarioRun(scenario: scenario, seed: seed)
        let encoder = ReadingEncoder(startUnixMilliseconds: scenario.startUnixMilliseconds)
        let clock = ContinuousClock()
        let started = origin ?? clock.now
        self.onSent = onSent
        func pace(_ t: Int64) {
            guard let speed else { return }
            let due = started + .milliseconds(Int64(Double(t) / speed))
            if due > clock.now { Thread.sleep(forTimeInterval: (due - clock.now).seconds) }
        }
        var down: Set<String> = []
        var up: Set<String> = []
        /// Devices advertising again after a disconnect fault, until a central subscribes.
        var awaiting: Set<Int> = []
        var held: [[Held]] = Array(repeating: [], count: peripherals.count)
        while let (reading, _) = run.next() {
            guard let i = deviceIndex[reading.deviceID] else { continue }
            // Disconnect faults: drop the link at the fault's start, advertise again at its end and wait for the central.
            for f in scenario.faults(for: reading.deviceID) where f.kind == .disconnect {
                let key = "\(f.deviceID)@\(f.start)"
                if reading.intendedEmitTime >= f.start, !down.contains(key) {
                    down.insert(key)
                    pace(f.start)
                    try? peripherals[i].disconnect()
                    summary.disconnects += 1
                }
                // Records measured while disconnected are stored before the central comes back, so that its
                // RACP request finds them: the link comes back with the first reading that is not one of them.
                // The device advertises again and goes on: what it measures until a central has subscribed
                // again is held (below), and the other devices are not kept waiting.
                if reading.intendedEmitTime >= f.end, !up.contains(key), !reading.delivery.backfill {
                    up.insert(key)
                    pace(f.end)
                    try? peripherals[i].reconnectable()
                    awaiting.insert(i)
                }
            }
            for k in awaiting.sorted() where peripherals[k].isSubscribed {
                awaiting.remove(k)
                summary.reconnects += 1
            }
            pace(reading.intendedEmitTime)
            let payloads = encoder.encode(reading)
            if reading.kind == .glucose || reading.kind == .cgm {
                records.store(payloads.compactMap { $0.characteristic == nil ? nil : ($0.characteristic!, $0.bytes) }, device: i)
                // Glucose meters and CGMs keep stored records for the central to fetch through RACP.
                if reading.delivery.backfill {
                    summary.storedForRACP += 1
                    continue
                }
            }
            if reading.kind == .battery { peripherals[i].server.setValue(BatteryLevel.uuid, payloads.first?.bytes ?? []) }
            // A device keeps what it could not send yet (no central subscribed to that characteristic at
            // that moment, e.g. between a reconnection and the central's CCCD writes) and sends it first
            // once one is; readings are counted when they leave.
            let sendable = payloads.filter { $0.characteristic != nil }
            for (k, p) in sendable.enumerated() {
                held[i].append(
                    Held(uuid: p.characteristic!, bytes: p.bytes, indicate: p.indicate, first: k == 0, emit: reading.intendedEmitTime)
                )
            }
            // This device's payloads, and what other devices still hold (e.g. since a reconnection).
            for k in held.indices where k == i || !held[k].isEmpty { flush(k, &held, &summary) }
        }
        for k in awaiting.sorted() where reconnect(k) {
            summary.reconnects += 1
            flush(k, &held, &summary)
        }
        for i in held.indices where !held[i].isEmpty {
            let deadline = Date(timeIntervalSinceNow: 2)
            while !held[i].isEmpty, Date() < deadline {
                usleep(100_000)
                flush(i, &held, &summary)
            }
        }
        summary.notSubscribed += held.reduce(0) { $0 + $1.filter(\.first).count }
        // Links still down at the end (nothing but stored records came after the fault) come back now.
        for f in scenario.timeline.compactMap({ if case let .fault(f) = $0, f.kind == .disconnect { f } else { nil } })
        where down.contains("\(f.deviceID)@\(f.start)") && !up.contains("\(f.deviceID)@\(f.start)") {
            if let i = deviceIndex[f.deviceID], reconnect(i) { summary.reconnects += 1 }
        }
        for p in peripherals { p.drain() }
        return summary
    }

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

    /// Told about each reading that leaves its device (see ``run(origin:onSent:)``).
    var onSent: (@Sendable (Int64, ContinuousClock.Instant) -> Void)?

    /// Sends device `i`'s held payloads in order per characteristic, each once a central has
    /// subscribed to it (at most 1,000 are kept per device).
    func flush(_ i: Int, _ held: inout [[Held]], _ summary: inout Summary) {
        var blocked: Set<UInt16> = []
        var keep: [Held] = []
        for h in held[i] {
            // A link that fails mid-stream (credits or confirmation timing out) keeps this payload for later.
            if !blocked.contains(h.uuid), (try? peripherals[i].send(h.uuid, h.bytes, indicate: h.indicate)) == true {
                if h.first {
                    summary.sent += 1
                    onSent?(h.emit, .now)
                }
            } else {
                blocked.insert(h.uuid)
                keep.append(h)
            }
        }
        if keep.count > 1000 {
            summary.notSubscribed += keep.prefix(keep.count - 1000).filter(\.first).count
            keep.removeFirst(keep.count - 1000)
        }
        held[i] = keep
    }

    /// Advertises again after a disconnect fault and waits for a central to subscribe.
    func reconnect(_ i: Int) -> Bool {
        try? peripherals[i].reconnectable()
        return peripherals[i].waitForSubscription(timeout: reconnectTimeout)
    }

    /// Stops the peripherals and flushes their captures.
    package func stop() { for p in peripherals { p.stop() } }
}

/// Stored glucose records per device, served through the Record Access Control Point.
final class RecordStore: Sendable {
    private let records = Locked<[Int: [[(UInt16, [UInt8])]]]>([:])

    func store(_ payloads: [(UInt16, [UInt8])], device: Int) {
        records.withLock { $0[device, default: []].append(payloads) }
    }

    /// Answers a RACP request: report all / ≥ sequence number, number of records, abort.
    func serve(_ value: [UInt8], peripheral: HCIPeripheral, device: Int) {
        let stored = records.withLock { $0[device] ?? [] }
        guard let request = try? RecordAccessControlPoint.decode(value) else {
            let op = RecordAccessControlPoint.OpCode(rawValue: value.first ?? 0) ?? .reportStoredRecords
            _ = try? peripheral.send(
                RecordAccessControlPoint.uuid,
                (try? RecordAccessControlPoint.response(to: op, .opCodeNotSupported).encode()) ?? [],
                indicate: true
            )
            return
        }
        // GLS filters on the record's sequence number, CGMS on its time offset.
        func sequence(_ r: [(UInt16, [UInt8])]) -> UInt16 {
            guard let (uuid, b) = r.first else { return 0 }
            return uuid == CGMMeasurement.uuid
                ? (b.count > 5 ? UInt16(b[4]) | UInt16(b[5]) << 8 : 0) : (b.count > 2 ? UInt16(b[1]) | UInt16(b[2]) << 8 : 0)
        }
        var selected = stored
        switch (request.opCode, request.op) {
        case (.reportStoredRecords, .allRecords), (.reportNumberOfStoredRecords, .allRecords): break
        case (.reportStoredRecords, .greaterOrEqual), (.reportNumberOfStoredRecords, .greaterOrEqual):
            guard let n = request.sequenceFilter else {
                _ = try? peripheral.send(
                    RecordAccessControlPoint.uuid,
                    (try? RecordAccessControlPoint.response(to: request.opCode, .operandNotSupported).encode()) ?? [],
                    indicate: true
                )
                return
            }
            selected = stored.filter { sequence($0) >= n }
        case (.reportStoredRecords, .lastRecord): selected = stored.suffix(1)
        case (.reportStoredRecords, .firstRecord): selected = Array(stored.prefix(1))
        case (.abortOperation, .null):
            _ = try? peripheral.send(
                RecordAccessControlPoint.uuid,
                (try? RecordAccessControlPoint.response(to: .abortOperation, .success).encode()) ?? [],
                indicate: true
            )
            return
        default:
            _ = try? peripheral.send(
                RecordAccessControlPoint.uuid,
                (try? RecordAccessControlPoint.response(to: request.opCode, .operatorNotSupported).encode()) ?? [],
                indicate: true
            )
            return
        }
        if request.opCode == .reportNumberOfStoredRecords {
            _ = try? peripheral.send(
                RecordAccessControlPoint.uuid,
                (try? RecordAccessControlPoint.numberOfRecords(UInt16(clamping: selected.count)).encode()) ?? [],
                indicate: true
            )
            return
        }
        if selected.isEmpty {
            _ = try? peripheral.send(
                RecordAccessControlPoint.uuid,
                (try? RecordAccessControlPoint.response(to: .reportStoredRecords, .noRecordsFound).encode()) ?? [],
                indicate: true
            )
            return
        }
        for record in selected { for (uuid, bytes) in record { _ = try? peripheral.send(uuid, bytes, indicate: false) } }
        _ = try? peripheral.send(
            RecordAccessControlPoint.uuid,
            (try? RecordAccessControlPoint.response(to: .reportStoredRecords, .success).encode()) ?? [],
            indicate: true
        )
    }
}
