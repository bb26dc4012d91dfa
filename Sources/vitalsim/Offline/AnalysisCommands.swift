import ArgumentParser
import Generation
import VitalSimCore

extension VitalSim {
    /// `vitalsim stats DIR`
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Realism report of a generated run: HRV (SDNN, RMSSD, pNN50, LF/HF), CGM TIR and MARD, lag, episodes.",
            discussion: "DIR is a folder written by `vitalsim generate`, or a suite folder of them."
        )
        @Argument(help: "Folder with readings.jsonl, or a folder of such folders.") var directory: String
        @Flag(name: .long, help: "Print JSON instead of text.") var json = false

        func run() throws {
            var dirs: [String] = []
            if FileManagerShim.isDirectory(directory), !FileManagerShim.exists(directory + "/readings.jsonl") {
                dirs = ((try? FileManagerShim.contents(directory)) ?? []).sorted().map { directory + "/" + $0 }.filter {
                    FileManagerShim.exists($0 + "/readings.jsonl")
                }
            } else {
                dirs = [directory]
            }
            if dirs.isEmpty {
                throw CommandFailure.input(
                    "\(directory): no readings.jsonl here or in its sub-folders; run `vitalsim generate` first"
                )
            }
            var all: [(String, JSONValue)] = []
            for d in dirs {
                do {
                    let realismReport = try RealismReport(directory: d)
                    if json {
                        all.append((d, realismReport.json))
                    } else {
                        print("== \(d)")
                        for line in realismReport.lines { print(line) }
                    }
                } catch {
                    throw CommandFailure.input("\(error)")
                }
            }
            if json { print(JSONValue.object(all).pretty()) }
        }
    }
}
