import ArgumentParser
import Foundation

/// The `vitalsim` command line.
@main
struct VitalSim: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vitalsim",
        abstract: "Device simulator and conformance harness for remote patient monitoring systems.",
        subcommands: [Generate.self, Validate.self, Encode.self, Decode.self, Stats.self, Bench.self]
    )
}

/// Exit codes shared by the commands.
enum ExitCodes {
    /// Usage or input error (bad scenario, bad flag, bad payload).
    static let input = ExitCode(2)
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
