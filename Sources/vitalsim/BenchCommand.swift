import ArgumentParser

extension VitalSim {
    /// `vitalsim bench`
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Benchmark generation + encoding.")
        func run() throws { throw ExitCodes.input }
    }
}
