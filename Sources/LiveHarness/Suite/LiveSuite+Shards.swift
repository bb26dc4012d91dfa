import Foundation
import Judge
import Traffic
import VitalSimCore

/// A suite's run: the verdicts of the scenarios it ran, and every scenario's part of a shard's
/// result file (``ShardResult``).
package struct SuiteRun: Sendable {
    package var verdicts: [Verdict] = []
    package var parts: [ShardResult.Part] = []
}

/// A scenario of the suite with its golden file, loaded before anything runs. A class, so that a
/// shard can let go of the whole scenario once its part is cut (``scenario`` nil): a ward of a
/// million devices takes half a gigabyte.
final class LoadedScenario {
    let path: String
    var scenario: Scenario?
    let name: String
    let patients: [String]
    let goldenPath: String
    let goldenText: String
    let golden: GoldenFile

    init(path: String, scenario: Scenario, goldenPath: String, goldenText: String, golden: GoldenFile) {
        self.path = path
        self.scenario = scenario
        name = scenario.name
        patients = scenario.patients.map(\.id)
        self.goldenPath = goldenPath
        self.goldenText = goldenText
        self.golden = golden
    }
}

/// What a shard knows of the whole scenario its part is of.
struct WholeScenario {
    /// Its patients, in file order (the narrowed read-backs ask for its first ones, as one process would).
    let patients: [String]
    /// The scenario itself when this shard digests its traffic (it runs the first patient), else nil.
    let digested: Scenario?
}

extension LiveSuite {
    /// Runs and judges each scenario of the suite, or with ``LiveOptions/shard`` this shard's
    /// patients of each: every scenario and golden file is read first (a bad one stops the run before
    /// it starts), then the scenarios run in order. A scenario that cannot be judged does not stop
    /// the suite: its verdict has an ``Verdict/error`` and the scenarios after it still run.
    package func runSuite(_ paths: [String], progress: (String) -> Void) async throws(HarnessError) -> SuiteRun {
        var loaded: [LoadedScenario] = []
        for path in paths { loaded.append(try load(path)) }
        let split = options.sharding.shard?.patients(of: loaded.map(\.patients))
        var out = SuiteRun()
        var options = options
        var startAt = options.sharding.startAt
        for (i, l) in loaded.enumerated() {
            let all = l.patients
            let ran = split?[i] ?? all
            var part = ShardResult.Part(
                scenario: l.name,
                path: l.path,
                patients: all,
                ran: ran,
                goldenPath: l.goldenPath,
                golden: l.goldenText
            )
            guard !ran.isEmpty else {
                out.parts.append(part)
                continue
            }
            guard var scenario = l.scenario else { continue }
            var golden = l.golden
            // The shard running the scenario's first patient digests the whole scenario's traffic.
            part.digested = split == nil || all.first.map(Set(ran).contains) == true
            let whole = split == nil ? nil : WholeScenario(patients: all, digested: part.digested ? scenario : nil)
            if split != nil {
                let mine = Set(ran)
                let everyone = Set(all)
                let first = all.first
                scenario = scenario.restricted(to: mine)
                golden = golden.restricted(to: mine)
                options.keepsPatient = { PatientShard.keeps($0, ran: mine, all: everyone, first: first) }
                l.scenario = nil
            }
            options.origin = startAt.map { origin(at: $0, note: options.note) }
            startAt = nil
            let share = split == nil ? "" : ", \(ran.count) of its \(all.count) patient(s)"
            progress("running \(scenario.name) (\(l.path))\(share)")
            let (verdict, requests) = try await runScenario(
                l.path,
                scenario,
                golden: golden,
                goldenPath: l.goldenPath,
                whole: whole,
                options: options
            )
            part.verdict = VerdictRecord(verdict)
            if options.reports.listsRequests, verdict.error == nil { part.requests = requests }
            out.parts.append(part)
            out.verdicts.append(verdict)
        }
        return out
    }

    /// A scenario file and its golden file, read and parsed.
    func load(_ path: String) throws(HarnessError) -> LoadedScenario {
        let scenario: Scenario
        do throws(ScenarioLoadError) { scenario = try TracedScenarioLoader.load(path: path) } catch {
            throw .golden(error.description)
        }
        let goldenPath = goldenPath(scenario)
        guard let text = try? String(contentsOfFile: goldenPath, encoding: .utf8) else {
            throw .golden(
                "\(scenario.name): no golden file at \(goldenPath); write one with `vitalsim record \(path)` and review it"
                    + (options.reports.ci ? " (CI never writes one)" : "")
            )
        }
        let golden: GoldenFile
        do throws(ScenarioLoadError) { golden = try GoldenFile.parse(text, file: goldenPath) } catch {
            throw .golden(error.description)
        }
        try checkBroker(scenario)
        return LoadedScenario(path: path, scenario: scenario, goldenPath: goldenPath, goldenText: text, golden: golden)
    }

    /// A scenario that sends or observes over MQTT against a SUT given by URL needs its broker
    /// (`--mqtt`): said before the suite's first scenario runs, not when its turn comes.
    func checkBroker(_ scenario: Scenario) throws(HarnessError) {
        if let problem = options.missingBroker(scenario) { throw .usage("\(scenario.name) \(problem)") }
    }

    /// The monotonic moment of a wall-clock instant (Unix ms); one already past is said.
    func origin(at unixMilliseconds: Int64, note: (String) -> Void) -> ContinuousClock.Instant {
        let ahead = unixMilliseconds - Int64((Date().timeIntervalSince1970 * 1000).rounded())
        if ahead < -1000 {
            note(
                String(
                    format:
                        "the start instant passed %.1f s ago: this shard starts behind the schedule the others keep (its scheduling lag shows by how much)",
                    Double(-ahead) / 1000
                )
            )
        }
        return ContinuousClock.now + .milliseconds(ahead)
    }
}
