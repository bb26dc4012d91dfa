import Foundation
import InProcessSUT
import Judge
import LiveHarness
import TestFixtures
import Testing
import Traffic

/// In a sharded run, the shard running a scenario's first patient digests the whole scenario's
/// traffic, and only that shard: the others generate only their own patients' traffic. A golden
/// file whose digest no longer matches fails the merged verdict once, from that shard.
struct ShardedDigestTests {
    /// The two patients of `heart-failure-fluid-gain` in two shards, against one in-process SUT,
    /// judged against the golden file as committed or with another digest.
    static func shards(digest: String?) async throws -> [ShardResult] {
        let path = InProcessRun.path("core", "heart-failure-fluid-gain")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sharded-digest-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var golden = try String(
            contentsOfFile: Fixtures.repositoryRoot + "/golden/heart-failure-fluid-gain.golden.yaml",
            encoding: .utf8
        )
        if let digest {
            let line = try #require(golden.split(separator: "\n").first { $0.hasPrefix("trafficDigest: ") })
            golden = golden.replacingOccurrences(of: line, with: "trafficDigest: \"\(digest)\"")
        }
        try golden.write(toFile: directory + "/heart-failure-fluid-gain.golden.yaml", atomically: true, encoding: .utf8)
        let sut = try InProcessSUT(scenario: TracedScenarioLoader.load(path: path))
        return try await sut.test { client in
            var results: [ShardResult] = []
            for index in 1...2 {
                var options = InProcessRun.options(client)
                options.reports.goldenDirectory = directory
                options.reports.listsRequests = true
                options.sharding.shard = PatientShard(index: index, count: 2)
                let run = try await LiveSuite(options: options).runSuite([path], progress: { _ in })
                results.append(
                    ShardResult(shard: index, shards: 2, suite: path, seed: nil, startAt: nil, scenarios: run.parts)
                )
            }
            return results
        }
    }

    static func merged(_ results: [ShardResult]) throws -> Verdict {
        let files = results.map { (file: "shard-\($0.shard).json", result: $0) }
        return try #require(try ShardMerge.merge(files).first)
    }

    @Test func onlyTheFirstPatientsShardDigestsAndTheMergePasses() async throws {
        let results = try await Self.shards(digest: nil)
        #expect(results.map(\.scenarios[0].ran) == [["721"], ["722"]])
        #expect(results.map(\.scenarios[0].digested) == [true, false])
        let verdict = try Self.merged(results)
        #expect(verdict.error == nil)
        #expect(InProcessRun.failures(verdict, latency: false) == [])
    }

    @Test func aChangedDigestFailsTheMergedVerdictOnce() async throws {
        let results = try await Self.shards(digest: "sha256:" + String(repeating: "0", count: 64))
        let traffic = results.map { $0.scenarios[0].verdict?.checks.filter { $0.kind == .traffic }.count }
        #expect(traffic == [1, 0])
        let verdict = try Self.merged(results)
        #expect(InProcessRun.failures(verdict, latency: false) == ["traffic-changed traffic digest"])
    }
}
