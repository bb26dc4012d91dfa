import ArgumentParser
import Bluetooth
import BluetoothHost
import Foundation
import LiveHarness
import Traffic
import VitalSimCore

extension VitalSim {
    /// `vitalsim peripheral SCENARIO --hci tcp:HOST:PORT …`
    struct Peripheral: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Run a scenario's BLE devices as live peripherals over HCI (advertise, serve GATT, notify, indicate).",
            discussion: """
                Give one --hci per BLE device of the scenario, in file order: tcp:HOST:PORT for a virtual controller
                (bumble: python -m bumble.apps.controllers tcp-server:127.0.0.1:P1 tcp-server:127.0.0.1:P2), or hciN for a
                real adapter through the Linux HCI user channel. Prints `advertising DEVICE ADDRESS` per device, waits for
                centrals to subscribe, then streams the readings.
                """
        )
        @Argument(help: "Scenario file.") var scenario: String
        @Option(name: .long, help: "HCI transport per BLE device: tcp:HOST:PORT or hciN.") var hci: [String] = []
        @Option(name: .long, help: "Virtual seconds per wall second (a positive number, e.g. 60), or max.") var speed =
            Speed(factor: 1)
        @Option(name: .long, help: "Seed overriding the scenario's own.") var seed: UInt64?
        @Option(name: .long, help: "Folder for the live btsnoop captures.") var capture: String?
        @Option(name: .long, help: "Seconds to wait for centrals to subscribe.") var subscribeTimeout: Double = 60
        @Option(
            name: .long,
            help: "Seconds to keep serving (reads, RACP) after the last reading, until the centrals disconnect."
        )
        var linger: Double = 10

        func run() throws {
            let s: Scenario
            do { s = try TracedScenarioLoader.load(path: scenario) } catch {
                throw CommandFailure.input(error.description)
            }
            let devices = s.bleDevices
            guard !devices.isEmpty else {
                throw CommandFailure.input("\(scenario): no device with transport ble")
            }
            guard devices.count == hci.count else {
                throw CommandFailure.input(
                    "--hci: \(hci.count) value(s) for \(devices.count) BLE device(s) (\(devices.map(\.1.id).joined(separator: ", "))); give one per device, in that order"
                )
            }
            if let capture {
                try? FileManager.default.createDirectory(atPath: capture, withIntermediateDirectories: true)
            }
            let live: LivePeripherals
            do {
                live = try LivePeripherals(
                    scenario: s,
                    seed: seed,
                    hci: hci,
                    speed: speed.factor,
                    captureDirectory: capture
                )
                try live.start()
            } catch let hciError as HCIError {
                if case .badSpec = hciError { throw CommandFailure.input("--hci: \(hciError)") }
                throw CommandFailure.infrastructure(hciError.description)
            }
            // Unbuffered, so that a test or script reading the pipe sees the addresses at once.
            for p in live.peripherals {
                FileHandle.standardOutput.write(Data("advertising \(p.name) \(p.addressString)\n".utf8))
            }
            guard live.waitForCentrals(timeout: subscribeTimeout) else {
                printError("no central subscribed within \(subscribeTimeout) s")
                live.stop()
                throw ExitCode(3)
            }
            let summary = live.run()
            print(
                "sent \(summary.sent) readings, \(summary.notSubscribed) not subscribed, \(summary.disconnects) disconnect(s), \(summary.reconnects) reconnection(s), \(summary.storedForRACP) record(s) left for RACP"
            )
            let deadline = Date(timeIntervalSinceNow: linger)
            for p in live.peripherals { p.waitForDisconnection(timeout: max(0, deadline.timeIntervalSinceNow)) }
            live.stop()
        }
    }
}
