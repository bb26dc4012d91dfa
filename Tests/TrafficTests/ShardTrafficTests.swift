import Foundation
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// A shard sends its patients' requests exactly as the whole scenario sends them: same paths,
/// topics, bodies and times, so a sharded run's traffic is the unsharded run's, split.
final class ShardTrafficTests: XCTestCase {
    /// Each patient's requests: path or topic, send time and body.
    func requests(_ scenario: Scenario) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for r in TrafficPlanStream(for: scenario) {
            out[r.patientID, default: []].append(
                "\(r.topic ?? r.path) @\(r.sendAt) " + String(decoding: r.body, as: UTF8.self)
            )
        }
        return out
    }

    func checkShard(
        _ path: String,
        every n: Int,
        from first: Int,
        file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let scenario = try ScenarioLoader.load(path: Fixtures.repositoryRoot + "/" + path)
        let ids = scenario.patients.map(\.id)
        let mine = Set(ids.enumerated().filter { $0.offset % n == first }.map(\.element))
        let shard = scenario.restricted(to: mine)
        XCTAssertEqual(shard.patients.map(\.id), ids.filter(mine.contains), file: file, line: line)
        let whole = requests(scenario)
        let part = requests(shard)
        XCTAssertEqual(Set(part.keys), mine.intersection(whole.keys), path, file: file, line: line)
        for id in mine.sorted() {
            XCTAssertEqual(
                part[id] ?? [],
                whole[id] ?? [],
                "\(path): patient \(id)'s requests differ in the shard",
                file: file,
                line: line
            )
        }
        XCTAssertGreaterThan(part.values.reduce(0) { $0 + $1.count }, 0, path, file: file, line: line)
    }

    func testAShardSendsItsPatientsRequestsByteForByte() throws {
        try checkShard("scenarios/core/heart-failure-fluid-gain.yaml", every: 2, from: 1)
        try checkShard("scenarios/core/hypertension-stage2-series.yaml", every: 2, from: 0)
        try checkShard("scenarios/boundaries/adult-thresholds.yaml", every: 3, from: 2)
        try checkShard("scenarios/load/ward-2500-patients.yaml", every: 25, from: 7)
    }

    func testARestrictedScenarioKeepsOnlyItsPatientsTimeline() throws {
        let scenario = try ScenarioLoader.load(
            path: Fixtures.repositoryRoot + "/scenarios/load/ward-2500-patients.yaml"
        )
        let shard = scenario.restricted(to: ["w00000", "w00001", "w00009"])
        XCTAssertEqual(scenario.timeline.count, 75)
        XCTAssertEqual(shard.timeline.count, 2, "the tachycardia of w00000 and the fever of w00009")
        XCTAssertEqual(shard.events(for: "w00000").map(\.kind), [.tachycardia])
        XCTAssertTrue(shard.events(for: "w00007").isEmpty)
    }
}
