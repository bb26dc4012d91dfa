import ArgumentParser

extension VitalSim {
    /// `vitalsim stats DIR`
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Realism report of a generated run (HRV, CGM accuracy, episodes).")
        @Argument(help: "A folder written by `vitalsim generate` (or a suite folder of them).") var directory: String
        func run() throws { throw ExitCodes.input }
    }

    /// `vitalsim bench`
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Benchmark generation + encoding.")
        func run() throws { throw ExitCodes.input }
    }
}
