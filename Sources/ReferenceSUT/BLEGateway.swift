import BLE
import Foundation
import GATT
import Logging
import ServiceLifecycle
import Synchronization
import VitalSimCore

/// The reference SUT's BLE gateway role (`vitalsim serve --ble-gateway --hci …`): one central per
/// HCI controller scans for a known device (by address), connects, discovers, subscribes to every
/// notifying or indicating characteristic, decodes each value with VitalSim's GATT decoders and
/// ingests it like any other reading. When the link drops it scans and reconnects; glucose meters
/// are asked for their stored records through the Record Access Control Point (all records at the
/// first connection, then those after the last sequence number seen), so a disconnect loses nothing.
public final class BLEGateway: Service, Sendable {
    /// A device the gateway may connect to, and whose readings it files under `patientID`.
    public struct Target: Sendable, Equatable {
        /// HCI byte order (least significant first).
        public var address: [UInt8]
        public var patientID: String
        public var deviceID: String
        public init(address: [UInt8], patientID: String, deviceID: String) { self.address = address; self.patientID = patientID; self.deviceID = deviceID }
    }

    /// A value received from a device, in arrival order.
    struct Received: Sendable { var target: Target; var uuid: UInt16; var value: [UInt8]; var receivedAt: Int64; var arrival: Int }

    let hci: [String]
    let targets: [Target]
    let context: ServerContext
    let logger: Logger
    let claimed = Mutex(Set<[UInt8]>())
    let stopping = Atomic<Bool>(false)
    /// Highest glucose record sequence number ingested per device (for RACP "≥ N" after a reconnect).
    let lastSequence = Mutex([String: UInt16]())
    /// Glucose record sequence numbers ingested per device.
    let seenSequences = Mutex([String: Set<UInt16>]())
    /// Values received so far (orders values with the same receipt millisecond).
    let arrivals = Mutex(0)

    public init(hci: [String], targets: [Target], context: ServerContext, logger: Logger) {
        self.hci = hci; self.targets = targets; self.context = context; self.logger = logger
    }

    /// Runs one central per controller until graceful shutdown.
    public func run() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: Received.self)
        var threads: [Thread] = []
        for (i, spec) in hci.enumerated() {
            let t = Thread { [self] in self.drive(spec, index: i, deliver: continuation) }
            t.name = "vitalsim.ble-gateway.\(i)"
            threads.append(t)
            t.start()
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
                central = HCICentral(transport: try HCITransports.open(spec), address: StaticRandomAddress.derive(seed: 0x6A7E, label: "gateway/\(index)"), capture: nil)
                try central.start()
            } catch {
                logger.error("BLE gateway cannot open its controller", metadata: ["hci": "\(spec)", "reason": "\(error)"])
                sleep(1)
                continue
            }
            defer { central.stop() }
            while !stopping.load(ordering: .sequentiallyConsistent) {
                do {
                    guard let target = try find(central, preferring: ownTarget) else { continue }
                    ownTarget = target
                    try central.connect(to: target.address)
                    // The records to fetch are those after the last one seen before this connection; read it
                    // now, before live notifications of this connection can move it past the missed ones.
                    let after = lastSequence.withLock { $0[target.deviceID] }
                    let chars = try central.discover()
                    central.onValue = { uuid, value in
                        let n = self.arrivals.withLock { n in n += 1; return n }
                        deliver.yield(Received(target: target, uuid: uuid, value: value, receivedAt: self.context.clock(), arrival: n))
                    }
                    for c in chars where c.cccdHandle != nil { try central.subscribe(c.uuid) }
                    if chars.contains(where: { $0.uuid == RecordAccessControlPoint.uuid }) {
                        // Report stored records: all (0x01 0x01), or ≥ N by sequence number (0x01 0x03 0x01 N).
                        let racp: [UInt8] = after.map { n in [0x01, 0x03, 0x01, UInt8(truncatingIfNeeded: n &+ 1), UInt8(truncatingIfNeeded: (n &+ 1) >> 8)] } ?? [0x01, 0x01]
                        _ = try central.write(RecordAccessControlPoint.uuid, racp)
                    }
                    logger.info("BLE gateway connected", metadata: ["controller": "\(index)", "characteristics": "\(chars.count)"])
                    context.metrics.count("vitalsim_ble_connections_total")
                    while central.isConnected, !stopping.load(ordering: .sequentiallyConsistent) { usleep(100_000) }
                    if !stopping.load(ordering: .sequentiallyConsistent) { context.metrics.count("vitalsim_ble_disconnects_total") }
                } catch {
                    logger.notice("BLE gateway link attempt failed; retrying", metadata: ["controller": "\(index)", "reason": "\(error)"])
                    usleep(500_000)
                }
            }
        }
    }

    /// Scans until a target (this controller's own one, or any unclaimed one) advertises.
    func find(_ central: HCICentral, preferring own: Target?) throws(HCIError) -> Target? {
        let seen = try central.scan(seconds: 1)
        if let own { return seen.contains { $0.address == own.address } ? own : nil }
        for a in seen {
            guard let t = targets.first(where: { $0.address == a.address }) else { continue }
            if claimed.withLock({ $0.insert(t.address).inserted }) { return t }
        }
        return nil
    }

    func ingest(_ r: Received) async {
        let metrics = context.metrics
        var id = "\(r.target.patientID)/\(r.target.deviceID)/ble/\(String(r.uuid, radix: 16))/\(r.receivedAt)-\(r.arrival)"
        if r.uuid == GlucoseMeasurement.uuid, let g = try? GlucoseMeasurement.decode(r.value) {
            id = "\(r.target.patientID)/\(r.target.deviceID)/glucose/\(g.sequenceNumber)"
            lastSequence.withLock { $0[r.target.deviceID] = max($0[r.target.deviceID] ?? 0, g.sequenceNumber) }
            // A record notified live just after a reconnection comes again in the RACP answer: the
            // sequence number identifies it, so it is not judged twice.
            guard seenSequences.withLock({ $0[r.target.deviceID, default: []].insert(g.sequenceNumber).inserted }) else {
                metrics.count("vitalsim_ble_values_total", ["outcome": "repeated-record"])
                return
            }
        }
        let observation: Observation?
        do throws(GATTError) {
            observation = try GATTObservations.observation(uuid: r.uuid, bytes: r.value, patientID: r.target.patientID, deviceID: r.target.deviceID,
                                                           readingID: id, receivedAt: r.receivedAt)
        } catch {
            metrics.count("vitalsim_ble_values_total", ["outcome": "rejected"])
            logger.notice("BLE gateway rejected a value", metadata: ["characteristic": "\(String(r.uuid, radix: 16))", "reason": "\(error)"])
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
