import ArgumentParser
import Foundation
import LiveHarness
import VitalSimCore

/// The `vitalsim` command line.
@main
struct VitalSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vitalsim",
        abstract: "Device simulator and conformance harness for remote patient monitoring systems.",
        version: VitalSimVersion.current,
        groupedSubcommands: [
            CommandGroup(
                name: "Live runs against a SUT",
                subcommands: [
                    Run.self, Doctor.self, Record.self, Shrink.self, Merge.self, Compare.self, Replay.self,
                    Keygen.self, BenchTransport.self,
                ]
            ),
            CommandGroup(
                name: "Offline",
                subcommands: [
                    Validate.self, Generate.self, Expect.self, Stats.self, Encode.self, Decode.self, Bench.self,
                    RequirementsCatalogue.self, Coverage.self,
                ]
            ),
            CommandGroup(name: "Bluetooth devices", subcommands: [Peripheral.self, Central.self, Controllers.self]),
            CommandGroup(name: "Reference SUT", subcommands: [Serve.self]),
        ]
    )

    /// Runs the command; usage errors (unknown flags, bad values) exit with status 2 like input errors.
    static func main() async {
        do {
            var command = try parseAsRoot()
            // glibc gives every thread that allocates its own malloc arena (up to 8 per core), and
            // memory freed in one is not reused by another. In a run, request bodies are built by the
            // generator's thread and freed on libcurl's: with two arenas the 10,000-device run peaked
            // at 188-269 MB, with one at 181-183 MB every time, and no slower. The reference SUT keeps
            // two for its server threads. (docs/performance.md; MALLOC_ARENA_MAX in the environment wins.)
            if getenv("MALLOC_ARENA_MAX") == nil { limitMallocArenas(command is Serve ? 2 : 1) }
            // Devices, receivers and helpers each hold descriptors; 1,024 is too few for a large run.
            ListenerLimits.raiseDescriptorLimit()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            printError(failure.message)
            exit(withError: failure.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                printError(fullMessage(for: error))
                exit(withError: ExitCodes.input)
            }
            exit(withError: error)
        }
    }
}

/// Why a command failed: the message, printed once on standard error by ``VitalSim/main()``, and
/// the exit status it carries (2 for input, 3 for infrastructure). A command that has already
/// printed its problems (every scenario error, a doctor's checklist) throws ``ExitCodes`` instead.
struct CommandFailure: Error, CustomStringConvertible {
    /// What the user reads, naming the file, flag or endpoint to fix.
    let message: String
    /// The exit status.
    let exitCode: ExitCode

    /// A usage or input error: exit 2.
    static func input(_ message: String) -> Self { Self(message: message, exitCode: ExitCodes.input) }

    /// An infrastructure failure (a server, broker or database unreachable, a port in use): exit 3.
    static func infrastructure(_ message: String) -> Self { Self(message: message, exitCode: ExitCodes.infrastructure) }

    var description: String { message }
}

/// Exit codes shared by the commands.
enum ExitCodes {
    /// Usage or input error (bad scenario, bad flag, bad payload).
    static let input = ExitCode(2)
    /// Infrastructure failure (a server, broker or database unreachable, a port in use).
    static let infrastructure = ExitCode(3)
}

/// Writes to standard error.
func printError(_ text: String) {
    var stderr = StandardError()
    print(text, to: &stderr)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}

/// `mallopt(M_ARENA_MAX, n)` (glibc; `<malloc.h>` is not in Swift's Glibc module, so looked up at run time).
func limitMallocArenas(_ n: Int32) {
    typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
    let mArenaMax: Int32 = -8  // M_ARENA_MAX in glibc's <malloc.h>
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: MallOpt.self)(mArenaMax, n)
}
