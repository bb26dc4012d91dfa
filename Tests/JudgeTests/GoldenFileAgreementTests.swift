import Foundation
import Judge
import TestFixtures
import Testing
import Traffic
import VitalSimCore

/// Every reviewed golden file of the repository against its scenario as the code generates it today,
/// one test case per file: the traffic it was recorded from (its digest) is the traffic planned now,
/// so no change to generation, encoding or planning slips past the golden files unnoticed. (That the
/// independent oracle derives each file's alerts is `OracleTests`.)
@Suite struct GoldenFileAgreementTests {
    /// The golden files' names (`golden/NAME.golden.yaml`), sorted.
    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.repositoryRoot + "/golden")) ?? []
        return files.filter { $0.hasSuffix(".golden.yaml") }.map { String($0.dropLast(".golden.yaml".count)) }.sorted()
    }()

    /// The shipped scenario files by scenario name (`scenarios/SUITE/NAME.yaml`).
    static let scenarioPaths: [String: String] = {
        let root = Fixtures.repositoryRoot + "/scenarios"
        var paths: [String: String] = [:]
        for suite in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + suite)) ?? []
            where file.hasSuffix(".yaml") {
                paths[String(file.dropLast(5))] = root + "/" + suite + "/" + file
            }
        }
        return paths
    }()

    /// The golden file called `name` and the scenario it was recorded for.
    static func load(_ name: String) throws -> (GoldenFile, Scenario) {
        let path = Fixtures.repositoryRoot + "/golden/\(name).golden.yaml"
        let golden = try GoldenFile.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
        let scenarioPath = try #require(scenarioPaths[golden.scenario], "no scenario file for \(path)")
        return (golden, try TracedScenarioLoader.load(path: scenarioPath))
    }

    @Test func everyShippedScenarioHasItsGoldenFile() {
        #expect(Self.names.count >= 25)
        #expect(Set(Self.names) == Set(Self.scenarioPaths.keys), "a scenario without a golden file, or the reverse")
    }

    @Test(arguments: names)
    func theTrafficIsTheOneTheGoldenFileWasRecordedFrom(_ name: String) throws {
        let (golden, scenario) = try Self.load(name)
        #expect(golden.scenario == name)
        #expect(golden.trafficDigest.hasPrefix("sha256:"))
        #expect(
            TrafficPlan.streamedDigest(for: scenario, seed: golden.seed) == golden.trafficDigest,
            "\(name): the planned traffic changed; re-record the golden file and review every line"
        )
    }
}
