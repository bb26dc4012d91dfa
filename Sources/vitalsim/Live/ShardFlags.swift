import ArgumentParser
import Foundation
import Judge
import LiveHarness
import VitalSimCore

/// How a run is split over processes (`--shard`, `--shards`), when their schedule starts
/// (`--start-at`) and where a shard writes its result for `vitalsim merge` (`--result`).
struct ShardFlags: ParsableArguments {
    @Option(
        name: .long,
        help:
            "Run only shard I of N (1-based) of the suite's patients, e.g. 2/4: patients counted across the scenario files in name order, every Nth to each shard."
    ) var shard: Shard?
    @Option(
        name: .long,
        help:
            "Run shard $JOB_COMPLETION_INDEX + 1 of N, as a Kubernetes Indexed Job numbers its pods (0-based); the index must be set."
    ) var shards: Int?
    @Option(
        name: .long,
        help:
            "The wall-clock instant scenario time 0 is due (RFC 3339 with a zone, e.g. 2026-11-26T10:00:00Z, or Unix seconds), so that every shard of a run keeps one schedule."
    ) var startAt: String?
    @Option(
        name: .long,
        help:
            "Write this run's result for `vitalsim merge` here (JSON; {shard} in the path stands for the shard's number)."
    ) var result: String?

    var isSharded: Bool { shard != nil || shards != nil }

    func validate() throws {
        if shard != nil, shards != nil { throw ValidationError("give --shard I/N or --shards N, not both") }
        if let shards, !(1...100_000).contains(shards) {
            throw ValidationError("--shards must be 1...100000, got \(shards)")
        }
        if let startAt, Self.instant(startAt) == nil {
            throw ValidationError(
                "--start-at must be an RFC 3339 time with a zone (2026-11-26T10:00:00Z) or Unix seconds, got '\(startAt)'"
            )
        }
    }

    /// The shard this process runs; `--shards N` reads `$JOB_COMPLETION_INDEX` (exit 2 when it is not
    /// an index below N).
    func patientShard() throws -> PatientShard? {
        if let shard { return PatientShard(index: shard.index, count: shard.count) }
        guard let shards else { return nil }
        let raw = ProcessInfo.processInfo.environment["JOB_COMPLETION_INDEX"]
        guard let raw, let index = Int(raw), (0..<shards).contains(index) else {
            throw CommandFailure.input(
                "--shards \(shards): JOB_COMPLETION_INDEX must be 0...\(shards - 1) (a Kubernetes Indexed Job sets it), got "
                    + (raw.map { "'\($0)'" } ?? "nothing")
            )
        }
        return PatientShard(index: index + 1, count: shards)
    }

    /// `--start-at` as Unix ms.
    var startInstant: Int64? { startAt.flatMap(Self.instant) }

    /// An RFC 3339 time with a zone, or Unix seconds (with a fraction), as Unix ms.
    static func instant(_ text: String) -> Int64? {
        if let seconds = Double(text), seconds.isFinite, seconds > 0, seconds < 1e11 {
            return Int64((seconds * 1000).rounded())
        }
        return CivilTime.unixMilliseconds(rfc3339: text)
    }
}
