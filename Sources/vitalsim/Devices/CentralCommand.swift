import ArgumentParser
import Bluetooth
import BluetoothHost
import Foundation
import Locking
import VitalSimCore

extension VitalSim {
    /// `vitalsim central --hci tcp:HOST:PORT [--address ADDR]`
    struct Central: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Act as a BLE central: scan, connect, discover, subscribe and print every decoded value as a JSON line.",
            discussion:
                "Without --address it connects to the first advertiser offering a health service VitalSim decodes (Heart Rate, Blood Pressure, Glucose, CGM, Pulse Oximeter, Health Thermometer, Weight Scale)."
        )
        @Option(name: .long, help: "HCI transport: tcp:HOST:PORT or hciN.") var hci: String
        @Option(name: .long, help: "Peer address (random static), e.g. C0:DE:C0:DE:C0:DE.") var address: String?
        @Option(name: .long, help: "Stop after this many values.") var count = 10
        @Option(name: .long, help: "Seconds to wait for the values.") var timeout: Double = 30
        @Option(name: .long, help: "Seconds to scan when no --address is given.") var scanSeconds: Double = 2
        @Option(name: .long, help: "Write the session to this btsnoop file.") var capture: String?

        static let healthServices: Set<UInt16> = [
            GATTService.heartRate, GATTService.bloodPressure, GATTService.glucose,
            GATTService.continuousGlucoseMonitoring,
            GATTService.pulseOximeter, GATTService.healthThermometer, GATTService.weightScale,
        ]

        func run() throws {
            var peer: [UInt8]?
            if let address {
                let bytes = address.split(separator: ":").compactMap { UInt8($0, radix: 16) }
                guard bytes.count == 6 else {
                    throw CommandFailure.input(
                        "--address: expected six hex bytes such as C0:DE:C0:DE:C0:DE, got '\(address)'"
                    )
                }
                peer = bytes.reversed()
            }
            let central: HCICentral
            do {
                let transport = try HCITransports.open(hci)
                central = HCICentral(
                    transport: transport,
                    address: [0x11, 0x22, 0x33, 0x44, 0x55, 0xC6],
                    capture: try capture.map { try BTSnoopWriter(path: $0) }
                )
                try central.start()
                if peer == nil {
                    let seen = try central.scan(seconds: scanSeconds)
                    guard let found = seen.first(where: { !Set($0.services).isDisjoint(with: Self.healthServices) })
                    else {
                        printError(
                            "no advertiser with a health service found in \(scanSeconds) s (seen: \(seen.map(\.addressString).joined(separator: ", ")))"
                        )
                        throw ExitCode(3)
                    }
                    peer = found.address
                }
                try central.connect(to: peer!)
                let chars = try central.discover()
                let done = DispatchSemaphore(value: 0)
                let collector = ValueCollector(limit: count, done: done)
                central.onValue = { uuid, value in collector.add(uuid, value) }
                for c in chars
                where c.cccdHandle != nil && c.uuid != RecordAccessControlPoint.uuid
                    && c.uuid != CGMSpecificOpsControlPoint.uuid
                {
                    try central.subscribe(c.uuid)
                }
                let finished = done.wait(timeout: .now() + timeout) == .success
                central.stop()
                if !finished {
                    printError("received \(collector.count) of \(count) values within \(timeout) s")
                    throw ExitCode(3)
                }
            } catch let hciError as HCIError {
                if case .badSpec = hciError { throw CommandFailure.input("--hci: \(hciError)") }
                throw CommandFailure.infrastructure(hciError.description)
            }
        }
    }
}

/// Prints each received value as a JSON line and signals after `limit` values.
final class ValueCollector: Sendable {
    let limit: Int
    let done: DispatchSemaphore
    private let received = Locked(0)
    /// How many values were printed.
    var count: Int { received.withLock { $0 } }

    init(limit: Int, done: DispatchSemaphore) {
        self.limit = limit
        self.done = done
    }

    func add(_ uuid: UInt16, _ value: [UInt8]) {
        // The line is printed while holding the count, so lines never interleave and no more than
        // `limit` are printed.
        received.withLock { count in
            guard count < limit else { return }
            var members: [(String, JSONValue)] = [
                ("uuid", .string("0x" + String(uuid, radix: 16, uppercase: true))), ("hex", .string(Hex.encode(value))),
            ]
            if let type = try? CharacteristicRegistry.lookup(String(uuid, radix: 16)) {
                members.insert(("characteristic", .string(type.name)), at: 0)
                do { members.append(("fields", try CharacteristicRegistry.decodeToJSON(type, value))) } catch {
                    members.append(("error", .string("\(error)")))
                }
            }
            FileHandle.standardOutput.write(Data((JSONValue.object(members).serialized() + "\n").utf8))
            count += 1
            if count == limit { done.signal() }
        }
    }
}
