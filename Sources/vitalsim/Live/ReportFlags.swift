import ArgumentParser
import Foundation
import Judge

/// The reports of `run` and `merge`: JUnit XML, JSON and HTML files, and the console summary.
struct ReportFlags: ParsableArguments {
    @Option(name: .long, help: "Write JUnit XML here.") var junit: String?
    @Option(name: .long, help: "Write the verdicts as JSON here.") var json: String?
    @Option(
        name: .long,
        help:
            "Write a self-contained HTML report here (vitals charts with events and alerts, latency histograms, verdict table)."
    ) var html: String?

    /// Writes the reports and prints the console summary; exits 3 when a scenario could not be
    /// judged, 1 when a check failed.
    func emit(_ verdicts: [Verdict], title: String, colour: Bool, command: String = "run") throws {
        // A scenario that could not be judged is reported (as an error, with the SUT contract) and exits 3.
        let errors = verdicts.filter { $0.error != nil }
        for v in errors { printError("vitalsim \(command): \(v.scenario): \(v.error ?? "")") }
        if let junit { try Self.write(Data(RunReport.junit(verdicts).utf8), to: junit) }
        if let json { try Self.write(Data(RunReport.json(verdicts).utf8), to: json) }
        if let html { try Self.write(Data(HTMLReport.render(verdicts, title: title).utf8), to: html) }
        print(RunReport.console(verdicts, colour: colour), terminator: "")
        if !errors.isEmpty { throw ExitCodes.infrastructure }
        if !verdicts.allSatisfy(\.passed) { throw ExitCode(1) }
    }

    /// Writes a file, or says it cannot and exits 2.
    static func write(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            throw CommandFailure.input("cannot write \(path)")
        }
    }
}
