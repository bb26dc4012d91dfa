import Foundation
import Judge
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// The streamed traffic plan: the same requests in the same order as the plan the golden files
/// were recorded from (their traffic digests), due order kept, and only a window of requests held.
final class TrafficPlanStreamTests: XCTestCase {
    func testStreamReproducesTheRecordedTrafficOfEveryCoreScenario() throws {
        let dir = Fixtures.repositoryRoot + "/scenarios/core"
        for name in try FileManager.default.contentsOfDirectory(atPath: dir).filter({ $0.hasSuffix(".yaml") }).sorted()
        {
            let scenario = try ScenarioLoader.load(path: dir + "/" + name)
            let golden = try GoldenFile.parse(
                String(contentsOfFile: Fixtures.repositoryRoot + "/" + scenario.golden, encoding: .utf8),
                file: scenario.golden
            )
            let stream = TrafficPlanStream(for: scenario, seed: golden.seed)
            XCTAssertNil(stream.digest, "no digest before the end")
            var previous = Int64.min
            var count = 0
            var readings = 0
            var ids: Set<String> = []
            for r in stream {
                XCTAssertGreaterThanOrEqual(r.sendAt, previous, "\(name): due order")
                previous = r.sendAt
                count += 1
                for reading in r.readings {
                    readings += 1
                    ids.insert(reading.id)
                }
                if r.topic == nil, r.expectedRejection == nil, r.path == "/api/v1/observations", r.readings.count > 1 {
                    XCTAssertEqual(r.body.first, UInt8(ascii: "["))
                    XCTAssertEqual(r.body.last, UInt8(ascii: "]"))
                    XCTAssertLessThanOrEqual(r.readings.last!.emit - r.readings.first!.emit, TrafficPlan.batchWindow)
                }
            }
            XCTAssertEqual(
                stream.digest,
                golden.trafficDigest,
                "\(name): the streamed traffic differs from what the golden file was recorded from"
            )
            XCTAssertEqual(stream.produced, count)
            XCTAssertEqual(
                TrafficPlan.digest(TrafficPlan.requests(for: scenario, seed: golden.seed)),
                golden.trafficDigest
            )
            XCTAssertNil(stream.next(), "an ended stream stays ended")
            XCTAssertGreaterThan(readings, 0)
            XCTAssertGreaterThanOrEqual(readings, ids.count)
        }
    }

    func testSentRequestsKnowExactlyWhichReadingsTheyCarried() throws {
        let dir = Fixtures.repositoryRoot + "/scenarios/core"
        var checked = 0
        for name in [
            "device-dropout-and-backfill.yaml", "corrupt-and-duplicate-payloads.yaml", "chd-infant-interstage.yaml",
        ] {
            let plan = TrafficPlan.requests(for: try ScenarioLoader.load(path: dir + "/" + name))
            let sent = plan.map(SentRequest.init)
            for (i, r) in plan.enumerated() {
                XCTAssertEqual(sent[i].readingCount, r.readings.count)
                XCTAssertEqual(sent[i].firstReading, r.readings.first?.id)
                let mine = Set(r.readings.map(\.id))
                for id in mine { XCTAssertTrue(sent[i].carries(id), "\(name): request \(i) carried \(id)") }
                // The sequence numbers just outside each of its readings are not its own unless it carried them too.
                for id in mine {
                    guard let slash = id.lastIndex(of: "/"), let seq = Int(id[id.index(after: slash)...]) else {
                        continue
                    }
                    for near in [seq - 1, seq + 1] where near >= 0 {
                        let neighbour = String(id[...slash]) + String(near)
                        XCTAssertEqual(
                            sent[i].carries(neighbour),
                            mine.contains(neighbour),
                            "\(name): request \(i), \(neighbour)"
                        )
                        checked += 1
                    }
                }
                // Readings of the neighbouring requests are not its own.
                for j in [i - 1, i + 1] where plan.indices.contains(j) {
                    for other in plan[j].readings where !mine.contains(other.id) {
                        XCTAssertFalse(sent[i].carries(other.id), "\(name): request \(i) did not carry \(other.id)")
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
    }

    func testOnlyAWindowOfRequestsIsHeld() throws {
        // 90 minutes of one patient's 1 s heart rate and continuous oximetry, batched per minute: 178
        // requests, of which the stream holds only those of about two batch windows.
        let scenario = try ScenarioLoader.load(
            path: Fixtures.repositoryRoot + "/scenarios/core/adult-bradycardia-night.yaml"
        )
        let stream = TrafficPlanStream(for: scenario)
        var count = 0
        for _ in stream { count += 1 }
        XCTAssertGreaterThan(count, 150)
        XCTAssertLessThan(stream.peakHeld, 20, "held \(stream.peakHeld) of \(count) requests")
    }
}
