import Foundation
import VitalSimCore

/// Why the results of a sharded run cannot be merged into one verdict.
package enum MergeError: Error, Sendable, CustomStringConvertible {
    case noResults
    case unreadable(file: String, reason: String)
    case format(file: String, found: String)
    /// Two results disagree on something every shard of one run shares.
    case mismatch(file: String, other: String, what: String)
    case duplicate(shard: Int, of: Int, file: String, other: String)
    case missing(shards: [Int], of: Int)
    /// The shards' patients of a scenario do not add up to the scenario's patients.
    case patients(scenario: String, missing: [String], twice: [String], foreign: [String])
    /// A shard's part of a scenario holds neither a verdict nor why it was not run.
    case incomplete(file: String, scenario: String)
    /// A shard listed a request of a patient it did not run.
    case foreignRequest(file: String, scenario: String, patient: String, device: String, at: Int64)
    /// Two shards sent the same reading.
    case readingTwice(scenario: String, reading: String, file: String, other: String)
    /// A shard's request list does not add up to its verdict's counts (acknowledged, rejected, failed).
    case counts(file: String, scenario: String, listed: (Int, Int, Int), judged: (Int, Int, Int))
    case golden(String)
    /// No shard (or more than one) computed a scenario's traffic digest.
    case undigested(scenario: String, by: [String])

    package var description: String {
        switch self {
        case .noResults: "no result files given"
        case .unreadable(let file, let reason): "\(file): not a shard result file (a sharded run's result): \(reason)"
        case .format(let file, let found):
            "\(file): format '\(found)', expected '\(ShardResult.currentFormat)' (write every shard with the same vitalsim)"
        case .mismatch(let file, let other, let what):
            "\(file) and \(other) are not shards of one run: their \(what) differ (run every shard with the same suite, flags and golden files)"
        case .duplicate(let shard, let count, let file, let other):
            "shard \(shard)/\(count) is given twice (\(other) and \(file)): give each shard's result once"
        case .missing(let shards, let count):
            "shard(s) \(shards.map { "\($0)/\(count)" }.joined(separator: ", ")) missing: a merged verdict needs every shard's result"
        case .patients(let scenario, let missing, let twice, let foreign):
            "\(scenario): the shards' patients do not add up to the scenario's"
                + (missing.isEmpty ? "" : "; run by no shard: \(missing.joined(separator: ", "))")
                + (twice.isEmpty ? "" : "; run by more than one: \(twice.joined(separator: ", "))")
                + (foreign.isEmpty ? "" : "; not the scenario's: \(foreign.joined(separator: ", "))")
        case .incomplete(let file, let scenario):
            "\(file): scenario \(scenario) has patients of this shard but no verdict or no list of its requests"
        case .foreignRequest(let file, let scenario, let patient, let device, let at):
            "\(file): \(scenario): lists a request of patient \(patient) (device \(device), due at \(at) ms), who is not this shard's"
        case .readingTwice(let scenario, let reading, let file, let other):
            "\(scenario): reading \(reading) was sent by two shards (\(other) and \(file)): a patient's traffic must come from one shard"
        case .counts(let file, let scenario, let listed, let judged):
            "\(file): \(scenario): its requests add up to \(listed.0) acknowledged, \(listed.1) rejected, \(listed.2) failed readings, "
                + "its verdict counts \(judged.0), \(judged.1), \(judged.2): the file is damaged or incomplete"
        case .golden(let reason): reason
        case .undigested(let scenario, let by):
            "\(scenario): the shard running its first patient computes the whole scenario's traffic digest, but "
                + (by.isEmpty ? "no shard did" : "\(by.joined(separator: " and ")) did")
                + ": the results are damaged or not of one vitalsim"
        }
    }
}

/// `vitalsim merge`: the verdicts of a sharded run from every shard's result file — the same checks
/// and counts as the unsharded run, histograms merged; a missing, duplicate or foreign shard is an error.
package enum ShardMerge {
    /// Reads one shard's result file.
    package static func read(_ file: String) throws(MergeError) -> ShardResult {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw .unreadable(file: file, reason: "cannot read it")
        }
        // The format first: a file of another one says so, rather than failing to decode.
        struct Format: Decodable { let format: String }
        if let found = try? JSONDecoder().decode(Format.self, from: data).format, found != ShardResult.currentFormat {
            throw .format(file: file, found: found)
        }
        do { return try JSONDecoder().decode(ShardResult.self, from: data) } catch {
            throw .unreadable(file: file, reason: "\(error)")
        }
    }

    /// One verdict per scenario, in suite order; a scenario that could not be judged is a verdict
    /// with an error among the others, as in an unsharded run.
    package static func merge(_ given: [(file: String, result: ShardResult)]) throws(MergeError) -> [Verdict] {
        let results = try complete(given)
        let first = results[0]
        var verdicts: [Verdict] = []
        for (i, reference) in first.result.scenarios.enumerated() {
            let parts = results.map { (file: $0.file, part: $0.result.scenarios[i]) }
            try checkPatients(parts, reference)
            try checkRequests(parts, reference)
            for p in parts where p.part.golden != reference.golden {
                throw .mismatch(file: p.file, other: first.file, what: "golden files of \(reference.scenario)")
            }
            try checkDigested(parts, reference)
            var judged: [Verdict] = []
            for p in parts where !p.part.ran.isEmpty {
                if let verdict = p.part.verdict {
                    judged.append(verdict.verdict(scenario: reference.scenario))
                } else {
                    throw .incomplete(file: p.file, scenario: reference.scenario)
                }
            }
            let golden: GoldenFile
            do throws(ScenarioLoadError) {
                golden = try GoldenFile.parse(reference.golden, file: reference.goldenPath)
            } catch {
                throw .golden(error.description)
            }
            let verdict = Verdict(merging: judged, golden: golden, scenario: reference.scenario)
            verdicts.append(verdict)
        }
        return verdicts
    }

    /// The results sorted by shard, each of the run's shards exactly once, all of one run.
    static func complete(
        _ given: [(file: String, result: ShardResult)]
    ) throws(MergeError) -> [(file: String, result: ShardResult)] {
        guard let first = given.first else { throw .noResults }
        let result = first.result
        var byShard: [Int: String] = [:]
        for (file, r) in given {
            guard r.format == ShardResult.currentFormat else { throw .format(file: file, found: r.format) }
            let differs = [
                ("shard counts", r.shards != result.shards), ("suites", r.suite != result.suite),
                ("seeds", r.seed != result.seed),
                ("start instants", r.startAt != result.startAt), ("vitalsim versions", r.version != result.version),
                ("scenario files", r.scenarios.map(\.path) != result.scenarios.map(\.path)),
            ]
            if let what = differs.first(where: \.1)?.0 { throw .mismatch(file: file, other: first.file, what: what) }
            if let other = byShard[r.shard] { throw .duplicate(shard: r.shard, of: r.shards, file: file, other: other) }
            byShard[r.shard] = file
        }
        let missing = (1...max(1, result.shards)).filter { byShard[$0] == nil }
        guard missing.isEmpty else { throw .missing(shards: missing, of: result.shards) }
        return given.sorted { $0.result.shard < $1.result.shard }
    }

    /// The scenario's traffic digest computed by exactly one shard, the one running its first patient
    /// (unless a shard did not run its patients, after a scenario that could not be judged: the merged
    /// verdict is an error then).
    static func checkDigested(
        _ parts: [(file: String, part: ShardResult.Part)],
        _ reference: ShardResult.Part
    ) throws(MergeError) {
        let by = parts.filter(\.part.digested)
        guard let first = reference.patients.first,
            parts.allSatisfy({ $0.part.ran.isEmpty || $0.part.verdict != nil })
        else { return }
        guard by.count == 1, by[0].part.ran.contains(first) else {
            throw .undigested(scenario: reference.scenario, by: by.map(\.file))
        }
    }

    /// Every patient of the scenario run by exactly one shard.
    static func checkPatients(
        _ parts: [(file: String, part: ShardResult.Part)],
        _ reference: ShardResult.Part
    ) throws(MergeError) {
        var runs: [String: Int] = [:]
        for p in parts {
            if p.part.patients != reference.patients {
                throw .mismatch(file: p.file, other: parts[0].file, what: "patients of \(reference.scenario)")
            }
            for id in p.part.ran { runs[id, default: 0] += 1 }
        }
        let missing = reference.patients.filter { runs[$0] == nil }
        let twice = reference.patients.filter { (runs[$0] ?? 0) > 1 }
        let foreign = runs.keys.filter { !reference.patients.contains($0) }.sorted()
        if !missing.isEmpty || !twice.isEmpty || !foreign.isEmpty {
            throw .patients(scenario: reference.scenario, missing: missing, twice: twice, foreign: foreign)
        }
    }
}
