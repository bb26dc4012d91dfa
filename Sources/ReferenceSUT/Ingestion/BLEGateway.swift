import Bluetooth
import BluetoothHost
import Foundation
import Locking
import Logging
import ReferenceEngine
import ServiceLifecycle
import Synchronization
import VitalSimCore

/// The reference SUT's BLE gateway role (`vitalsim serve --ble-gateway --hci …`): one central per
/// HCI controller scans for a known device (by address), connects, discovers, subscribes to every
/// notifying or indicating characteristic, decodes each value with VitalSim's GATT decoders and
/// ingests it like any other reading. When the link drops it scans and reconnects; glucose meters
/// and CGMs are asked for their stored records through the Record Access Control Point (all records
/// at the first connection, then those after the last sequence number — CGM: time offset — seen),
/// so a disconnect loses nothing. A CGM's Session Start Time is read at connection: its records are
/// stamped session start + time offset.
package final class BLEGateway: Service, Sendable {
    /// A device the gateway may connect to, and whose readings it files under `patientID`.
    package struct Target: Sendable, Equatable {
        /// HCI byte order (least significant first).
        package var address: [UInt8]
        package var patientID: String
        package var deviceID: String
        package init(address: [UInt8], patientID: String, deviceID: String) {
            self.address = address
            self.patientID = patientID
            self.deviceID = deviceID
        }
    }

    /// A value received from a device, in arrival order.
    struct Received: Sendable {
        var target: Target
        var uuid: UInt16
        var value: [UInt8]
        var receivedAt: Int64
        var arrival: Int
        /// The CGM's session start (Unix ms), read at connection: CGM records are stamped with it plus their time
        /// offset.
        var cgmSessionStart: Int64?
    }

    let hci: [String]
    let targets: [Target]
    let context: ServerContext
    let logger: Logger
    let claimed = Locked(Set<[UInt8]>())
    let stopping = Atomic<Bool>(false)
    /// Highest glucose record sequence number (CGM: time offset, keyed `cgm/DEVICE`) ingested per device (for RACP "≥
    /// N" after a reconnect).
    let lastSequence = Locked([String: UInt16]())
    /// Glucose record sequence numbers (CGM time offsets) ingested per device.
    let seenSequences = Locked([String: Set<UInt16>]())
    /// Values received so far (orders values with the same receipt millisecond).
    let arrivals = Locked(0)
    /// The scenario clock that stamps values without a time stamp of their own, if any.
    let virtualClock: VirtualClock?
    /// Targets subscribed at least once, and when the last of them first was (the virtual clock's origin).
    let subscribedOnce = Locked(Set<[UInt8]>())
    let origin = Locked<ContinuousClock.Instant?>(nil)

    /// A simulated device's clock for a gateway in a time-compressed run: heart rate, continuous
    /// SpO2, CGM and battery values carry no time stamp, so a gateway stamps them on receipt; with
    /// this clock the stamp is `startUnixMilliseconds` when every target has subscribed for the
    /// first time, advancing `speed` times faster than the wall clock from then on.
    package struct VirtualClock: Sendable, Equatable {
        package var startUnixMilliseconds: Int64
        package var speed: Double
        package init(startUnixMilliseconds: Int64, speed: Double) {
            self.startUnixMilliseconds = startUnixMilliseconds
            self.speed = speed
        }
    }

    /// - Parameter virtualClock: stamps values on a scenario's time axis (`serve --ble-speed`); nil stamps them with
    /// the wall clock, as a real gateway does.
    package init(
        hci: [String],
        targets: [Target],
        context: ServerContext,
        logger: Logger,
        virtualClock: VirtualClock? = nil
    ) {
        self.hci = hci
        self.targets = targets
        self.context = context
        self.logger = logger
        self.virtualClock = virtualClock
    }

    /// The receipt time stamp (Unix ms) for a value received now.
    func receiptTime() -> Int64 {
        guard let virtual = virtualClock else { return context.clock() }
        guard let started = origin.withLock({ $0 }) else { return virtual.startUnixMilliseconds }
        let e = (ContinuousClock.now - started).components
        let elapsed = Double(e.seconds) * 1000 + Double(e.attoseconds) / 1e15
        return virtual.startUnixMilliseconds + Int64((elapsed * virtual.speed).rounded())
    }

    /// Notes a target's subscription; the virtual clock starts when every target has subscribed once.
    func subscribed(_ target: Target) {
        let all = subscribedOnce.withLock { s in
            s.insert(target.address)
            return s.count >= targets.count
        }
        if all { origin.withLock { o in if o == nil { o = .now } } }
    }

    /// Runs one central per controller until graceful shutdown.
    package func run() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: Received.self)
        var threads: [Thread] = []
        for (i, spec) in hci.enumerated() {
            let thread = Thread { [self] in self.drive(spec, index: i, deliver: continuation) }
            thread.name = "vitalsim.ble-gateway.\(i)"
            threads.append(thread)
            thread.start()
        }
        let consumer = Task { [self] in
            for await r in stream { await self.ingest(r) }
        }
        try? await gracefulShutdown()
        stopping.store(true, ordering: .sequentiallyConsistent)
        continuation.finish()
        await consumer.value
    }

    /// Connects, subscribes and reconnects on one controller, until the service stops.
    func drive(_ spec: String, index: Int, deliver: AsyncStream<Received>.Continuation) {
        var ownTarget: Target?
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let central: HCICentral
            do {
                central = HCICentral(
                    transport: try HCITransports.open(spec),
                    address: StaticRandomAddress.derive(seed: 0x6A7E, label: "gateway/\(index)"),
                    capture: nil
                )
                try central.start()
            } catch {
                logger.error(
                    "BLE gateway cannot open its controller",
                    metadata: ["hci": "\(spec)", "reason": "\(error)"]
                )
                sleep(1)
                continue
            }
            defer { central.stop() }
            while !stopping.load(ordering: .sequentiallyConsistent) {
                do {
                    guard let target = try find(central, preferring: ownTarget) else { continue }
                    ownTarget = target
                    try connection(central, to: target, index: index, deliver: deliver)
                } catch {
                    logger.notice(
                        "BLE gateway link attempt failed; retrying",
                        metadata: ["controller": "\(index)", "reason": "\(error)"]
                    )
                    usleep(500_000)
                }
            }
        }
    }

    /// One connection to a target: discovers, subscribes, fetches missed records, and returns once
    /// the link is down (or the service stops).
    func connection(
        _ central: HCICentral,
        to target: Target,
        index: Int,
        deliver: AsyncStream<Received>.Continuation
    ) throws(HCIError) {
        try central.connect(to: target.address)
        let chars = try central.discover()
        // The records to fetch are those after the last one seen before this connection; read it
        // now, before live notifications of this connection can move it past the missed ones.
        // Glucose meters filter RACP on the record's sequence number, CGMs on its time offset (CGMS 4.12).
        let cgm = chars.contains { $0.uuid == CGMMeasurement.uuid }
        let after = lastSequence.withLock { $0[(cgm ? "cgm/" : "") + target.deviceID] }
        let sessionStart = try cgmSessionStart(central, chars, target)
        central.onValue = { [sessionStart] uuid, value in
            let arrived = self.arrivals.withLock { arrived in
                arrived += 1
                return arrived
            }
            let receivedAt = self.receiptTime()
            deliver.yield(
                Received(
                    target: target,
                    uuid: uuid,
                    value: value,
                    receivedAt: receivedAt,
                    arrival: arrived,
                    cgmSessionStart: sessionStart
                )
            )
        }
        for c in chars where c.cccdHandle != nil { try central.subscribe(c.uuid) }
        if chars.contains(where: { $0.uuid == RecordAccessControlPoint.uuid }) {
            // Report stored records: all, or those after the last one seen.
            let request = after.map { RecordAccessControlPoint.report(fromSequence: $0 &+ 1) } ?? .reportAll
            _ = try central.write(RecordAccessControlPoint.uuid, (try? request.encode()) ?? [])
        }
        subscribed(target)
        logger.info("BLE gateway connected", metadata: ["controller": "\(index)", "characteristics": "\(chars.count)"])
        context.metrics.count("vitalsim_ble_connections_total")
        while central.isConnected, !stopping.load(ordering: .sequentiallyConsistent) { usleep(100_000) }
        if !stopping.load(ordering: .sequentiallyConsistent) { context.metrics.count("vitalsim_ble_disconnects_total") }
    }

    /// A CGM's records carry minutes since its session start: read it (CGMS 3.4) before subscribing.
    /// Nil for other devices, and (logged) when the CGM's session start is unset or invalid.
    func cgmSessionStart(
        _ central: HCICentral,
        _ chars: [DiscoveredCharacteristic],
        _ target: Target
    ) throws(HCIError) -> Int64? {
        guard chars.contains(where: { $0.uuid == CGMSessionStartTime.uuid }),
            let bytes = try central.read(CGMSessionStartTime.uuid)
        else { return nil }
        guard let start = (try? CGMSessionStartTime.decode(bytes))?.unixMilliseconds else {
            logger.notice(
                "BLE gateway: CGM session start time unset or invalid; stamping CGM records on receipt",
                metadata: ["device": "\(target.deviceID)"]
            )
            return nil
        }
        return start
    }

    /// Scans until a target (this controller's own one, or any unclaimed one) advertises.
    func find(_ central: HCICentral, preferring own: Target?) throws(HCIError) -> Target? {
        let seen = try central.scan(seconds: 0.3)
        if let own { return seen.contains { $0.address == own.address } ? own : nil }
        for a in seen {
            guard let target = targets.first(where: { $0.address == a.address }) else { continue }
            if claimed.withLock({ $0.insert(target.address).inserted }) { return target }
        }
        return nil
    }

    func ingest(_ received: Received) async {
        let metrics = context.metrics
        var id =
            "\(received.target.patientID)/\(received.target.deviceID)/ble/\(String(received.uuid, radix: 16))/\(received.receivedAt)-\(received.arrival)"
        // A stored record's key: a glucose record's sequence number, a CGM record's time offset.
        var record: (key: String, number: UInt16)?
        if received.uuid == GlucoseMeasurement.uuid, let glucose = try? GlucoseMeasurement.decode(received.value) {
            id = "\(received.target.patientID)/\(received.target.deviceID)/glucose/\(glucose.sequenceNumber)"
            record = (received.target.deviceID, glucose.sequenceNumber)
        } else if received.uuid == CGMMeasurement.uuid,
            let offset = (try? CGMMeasurement.decode(received.value))?.records.last?.timeOffset
        {
            id = "\(received.target.patientID)/\(received.target.deviceID)/cgm/\(offset)"
            record = ("cgm/" + received.target.deviceID, offset)
        }
        if let record {
            lastSequence.withLock { $0[record.key] = max($0[record.key] ?? 0, record.number) }
            // A record notified live just after a reconnection comes again in the RACP answer: its
            // sequence number (time offset) identifies it, so it is not judged twice.
            guard seenSequences.withLock({ $0[record.key, default: []].insert(record.number).inserted }) else {
                metrics.count("vitalsim_ble_values_total", ["outcome": "repeated-record"])
                return
            }
        }
        let observation: Observation?
        do throws(GATTError) {
            observation = try GATTObservations.observation(
                uuid: received.uuid,
                bytes: received.value,
                patientID: received.target.patientID,
                deviceID: received.target.deviceID,
                readingID: id,
                receivedAt: received.receivedAt,
                cgmSessionStart: received.cgmSessionStart
            )
        } catch {
            metrics.count("vitalsim_ble_values_total", ["outcome": "rejected"])
            logger.notice(
                "BLE gateway rejected a value",
                metadata: ["characteristic": "\(String(received.uuid, radix: 16))", "reason": "\(error)"]
            )
            return
        }
        guard let observation else {
            metrics.count("vitalsim_ble_values_total", ["outcome": "ignored"])
            return
        }
        do throws(StorageError) {
            let fresh = try await context.store.ingest(observation, source: "ble")
            metrics.count("vitalsim_ble_values_total", ["outcome": fresh ? "accepted" : "duplicate"])
        } catch {
            metrics.count("vitalsim_ble_values_total", ["outcome": "storage-failed"])
        }
    }
}
