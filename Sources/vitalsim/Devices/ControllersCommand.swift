import ArgumentParser
import Foundation
import LiveHarness

extension VitalSim {
    /// `vitalsim controllers PORT…`
    struct Controllers: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Run bumble virtual BLE controllers on one virtual link, each serving HCI over H4 on 127.0.0.1:PORT, until interrupted.",
            discussion: """
                For `vitalsim peripheral`, `vitalsim central` and `vitalsim serve --ble-gateway` without a Bluetooth adapter:
                give each of them its own --hci tcp:127.0.0.1:PORT. Prints `ready` once every controller listens.
                bumble comes from --bumble-python, $VITALSIM_BUMBLE_PYTHON or .venv-bumble (ci/setup-debian.sh creates it).
                """
        )
        @Argument(help: "TCP ports on 127.0.0.1, one per controller (at least two).") var ports: [Int] = []
        @Option(name: .long, help: "Python interpreter with bumble.") var bumblePython: String?

        func validate() throws {
            if ports.count < 2 {
                throw ValidationError("give at least two ports: controllers talk to each other over the virtual link")
            }
            for p in ports where !(1...65535).contains(p) { throw ValidationError("port \(p) is outside 1...65535") }
            if Set(ports).count != ports.count { throw ValidationError("ports must differ") }
        }

        func run() throws {
            guard let python = BumbleControllers.python(explicit: bumblePython, executable: LiveFlags.executablePath)
            else {
                throw CommandFailure.infrastructure(
                    "vitalsim controllers: no Python with bumble: run ci/setup-debian.sh (it creates .venv-bumble) or give --bumble-python"
                )
            }
            let log = FileManager.default.temporaryDirectory.appendingPathComponent(
                "vitalsim-controllers-\(getpid()).log"
            ).path
            let controllers: BumbleControllers
            do { controllers = try BumbleControllers(python: python, ports: ports, log: log) } catch {
                throw CommandFailure.infrastructure("vitalsim controllers: \(error)")
            }
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            // Until SIGINT or SIGTERM (as swift-service-lifecycle does: ignored as a default action, seen by a
            // dispatch source), or until bumble ends; the controllers are stopped with us.
            let stop = DispatchSemaphore(value: 0)
            var sources: [any DispatchSourceSignal] = []
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                source.setEventHandler { stop.signal() }
                source.resume()
                sources.append(source)
            }
            while controllers.isRunning, stop.wait(timeout: .now() + 0.2) == .timedOut {}
            for source in sources { source.cancel() }
            let died = !controllers.isRunning
            controllers.stop()
            try? FileManager.default.removeItem(atPath: log)
            if died {
                throw CommandFailure.infrastructure("vitalsim controllers: bumble stopped")
            }
        }
    }
}
