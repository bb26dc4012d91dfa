import Foundation
import XCTest

/// Latency baselines end to end: a run's JSON verdict keeps its histograms; `vitalsim compare`
/// flags a run against a SUT whose alerts come 200 ms late (`--sut-fault delay-alerts=200ms`) and
/// not a rerun against the same SUT; `run --baseline` does the same in one step.
final class LatencyBaselineTests: XCTestCase {
    var directory = ""
    let scenario = TestSupport.repositoryRoot + "/scenarios/boundaries/adult-thresholds.yaml"

    override func setUp() { directory = TestSupport.temporaryDirectory("latency-baseline") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func vitalsim(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try TestSupport.vitalsim(args, in: directory, environment: ["CI": "true"])
    }

    func run(_ json: String, _ extra: [String] = []) throws -> (status: Int32, out: String, err: String) {
        try vitalsim(
            ["run", scenario, "--golden-dir", TestSupport.repositoryRoot + "/golden", "--json", directory + "/" + json]
                + extra
        )
    }

    func testCompareFlagsDelayedAlertsAndNotARerun() throws {
        let base = try run("base.json")
        XCTAssertEqual(base.status, 0, base.out + base.err)
        let rerun = try run("rerun.json", ["--baseline", directory + "/base.json"])
        XCTAssertEqual(rerun.status, 0, rerun.out + rerun.err)
        let delayed = try run(
            "delayed.json",
            ["--sut-fault", "delay-alerts=200ms", "--baseline", directory + "/base.json"]
        )
        XCTAssertEqual(delayed.status, 1, delayed.out + delayed.err)
        XCTAssertTrue(
            delayed.out.contains(
                "latency-regression budget reading-to-alert no slower than the baseline: slower than \(directory)/base.json beyond noise"
            ),
            delayed.out
        )
        XCTAssertFalse(delayed.out.contains("latency-regression budget reading-to-ack"), delayed.out)

        let same = try vitalsim(["compare", directory + "/base.json", directory + "/rerun.json"])
        XCTAssertEqual(same.status, 0, same.out + same.err)
        XCTAssertTrue(same.out.contains("same suite reading-to-alert: not slower than"), same.out)
        let slower = try vitalsim([
            "compare", directory + "/base.json", directory + "/delayed.json", "--json", directory + "/compare.json",
        ])
        XCTAssertEqual(slower.status, 1, slower.out + slower.err)
        XCTAssertTrue(slower.out.contains("SLOWER suite reading-to-alert: slower than"), slower.out)
        XCTAssertTrue(slower.out.contains("same suite reading-to-ack:"), slower.out)
        let rows = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/compare.json")))
                as? [[String: Any]]
        )
        let alert = try XCTUnwrap(rows.first { $0["path"] as? String == "reading-to-alert" })
        XCTAssertEqual(alert["outcome"] as? String, "slower")
        XCTAssertEqual(try XCTUnwrap(alert["shiftMs"] as? Double), 200, accuracy: 60)

        // An unusable file is an input error naming it.
        let junk = TestSupport.write("{}", to: directory, name: "junk.json")
        let refused = try vitalsim(["compare", junk, directory + "/base.json"])
        XCTAssertEqual(refused.status, 2, refused.out + refused.err)
        XCTAssertTrue(refused.err.contains("junk.json: not a VitalSim JSON verdict"), refused.err)
    }
}
